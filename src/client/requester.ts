/**
 * Long because the loop, its waits on the rate gate and the error each attempt ends in read as one.
 *
 * The request loop under every operation of the client (see Requester).
 */
import type { ZodMiniType } from 'zod/v4/mini';
import { BOUNDS, ownValue, type ErrorDetail } from '../contract';
import { errorFromResponse, refusalMessage } from './error-from-response';
import {
	AbortedError,
	DecisionServiceError,
	LocalValidationError,
	NetworkError,
	RateLimitedError,
	TimeoutError,
	scrubSecrets,
} from './errors';
import { parseAnswer } from './parse';
import {
	backoffMs,
	mayHaveBeenCharged,
	mayRetryErrorAnswer,
	mayRetryTransportFailure,
	type RetryClass,
} from './retry';
import {
	ConcurrencyLimiter,
	DEFAULT_MAX_CONCURRENCY,
	MAX_IN_FLIGHT,
	checkCapacity,
} from './concurrency';
import { rateGateFor, type RateGate } from './rate-gate';
import { rateLimitWaitMs, rateWindowOf } from './rate-headers';
import {
	TransportError,
	type HttpMethod,
	type Sleep,
	type Transport,
	type TransportResponse,
} from './transport';

export interface DecisionClientOptions {
	/** Includes the version segment, e.g. `https://api.example.com/v1`. */
	baseUrl: string;
	transport: Transport;
	sleep: Sleep;
	/**
	 * Identity of the rate window shared by clients of the same key in this process, typically
	 * base URL + key. Held in memory only. Defaults to the base URL.
	 */
	rateGateKey?: string;
	/** Strings that must never appear in an error message (the API key). */
	secrets?: string[];
	/** Per request. Default 15 s; the API asks for at least 10 s. */
	timeoutMs?: number;
	/**
	 * Most requests in flight at once from this client (DEFAULT_MAX_CONCURRENCY, at most
	 * MAX_IN_FLIGHT). Within it, the key's rate gate lets through what the window has left.
	 */
	concurrency?: number;
	/** Retries of one request where retry.ts allows them (free or provably unsent). Default 4. */
	maxRetries?: number;
	/** First backoff delay; doubles each retry, with jitter. Default 500 ms. */
	retryBaseDelayMs?: number;
	/**
	 * Most time one request may wait on the rate limit while no request of its key gets through
	 * (the key is stuck, not busy with this run's earlier windows) before it fails. Default 120 s.
	 */
	maxRateLimitWaitMs?: number;
	now?: () => number;
	random?: () => number;
	/**
	 * Says what kind of failure an error thrown by the transport is, for transports that throw
	 * their own errors (n8n's helpers do). Errors it does not know are taken as a dropped connection.
	 */
	describeTransportError?: (error: unknown) => TransportError | undefined;
}

export interface Operation<T> {
	method: HttpMethod;
	path: string;
	body?: unknown;
	retry: RetryClass;
	/** Counted by the key's per-minute rate limit (decide, create): waits on the shared rate gate. */
	rateLimited: boolean;
	schema: ZodMiniType<T>;
	/** Names the operation in error messages. */
	label: string;
}

/**
 * A system or TLS error code in words. The code itself stays in the error's `code`: n8n rewrites
 * a message that contains a common code (ECONNREFUSED…) into its own generic sentence.
 */
function causeOf(code: string): string {
	const words: Record<string, string> = {
		ECONNREFUSED: 'connection refused',
		ENOTFOUND: 'host not found',
		EAI_AGAIN: 'host name lookup failed',
		EHOSTUNREACH: 'host unreachable',
		ENETUNREACH: 'network unreachable',
		ECONNRESET: 'connection reset',
		ETIMEDOUT: 'connection timed out',
		ECONNABORTED: 'connection aborted',
		EPIPE: 'connection closed',
	};
	const known = ownValue(words, code);
	if (typeof known === 'string') return known;
	if (/CERT|SSL|TLS|EPROTO/.test(code))
		return `TLS handshake failed: ${code.toLowerCase().replace(/_/g, ' ')}`;
	return code.toLowerCase().replace(/_/g, ' ');
}

function formatSeconds(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
}

/** One request's time waiting on the rate limit: in all, and since when. */
interface RateWait {
	rateWaitedMs: number;
	since?: number;
}

type ResolvedOptions = Required<
	Omit<DecisionClientOptions, 'rateGateKey' | 'secrets' | 'describeTransportError'>
> &
	Pick<DecisionClientOptions, 'describeTransportError'> & { secrets: string[] };

/**
 * Sends one operation: waits on the key's rate gate, holds the concurrency cap, applies the
 * timeout, repeats the request while retry.ts allows it, and turns every failure into one of the
 * error classes (errors.ts). The operations themselves are DecisionClient's (client.ts).
 */
export class Requester {
	private readonly baseUrl: string;
	private readonly options: ResolvedOptions;
	private readonly limiter: ConcurrencyLimiter;
	/** Whose rate window and recent decisions these are: base URL and key digest (never printed). */
	readonly identity: string;

	constructor(options: DecisionClientOptions) {
		this.baseUrl = options.baseUrl.replace(/\/+$/, '');
		this.options = {
			timeoutMs: BOUNDS.clientTimeoutDefaultMs,
			maxRetries: 4,
			retryBaseDelayMs: 500,
			maxRateLimitWaitMs: 120_000,
			now: Date.now,
			random: Math.random,
			...options,
			concurrency: Math.min(options.concurrency ?? DEFAULT_MAX_CONCURRENCY, MAX_IN_FLIGHT),
			secrets: options.secrets ?? [],
		};
		this.identity = options.rateGateKey ?? this.baseUrl;
		checkCapacity(this.options.concurrency);
		this.limiter = new ConcurrencyLimiter(this.options.concurrency);
	}

	now(): number {
		return this.options.now();
	}

	/** Most requests this client has in flight at once (Max Concurrency). */
	get maxConcurrency(): number {
		return this.options.concurrency;
	}

	async send<T>(operation: Operation<T>, signal?: AbortSignal): Promise<T> {
		return this.limiter.run(() => this.sendWithRetries(operation, signal));
	}

	/**
	 * The request with its key's rate gate, looked up now and held to its end: the process drops
	 * a gate only while no request holds it (rate-gate.ts, RateGates).
	 */
	private async sendWithRetries<T>(operation: Operation<T>, signal?: AbortSignal): Promise<T> {
		const gate = rateGateFor(this.identity, this.options.now);
		const release = gate.acquire();
		try {
			return await this.attempts(gate, operation, signal);
		} finally {
			release();
		}
	}

	/** The request, repeated while retry.ts allows it, waiting on the rate gate before each send. */
	private async attempts<T>(
		gate: RateGate,
		operation: Operation<T>,
		signal?: AbortSignal,
	): Promise<T> {
		const { maxRetries, timeoutMs, now } = this.options;
		const url = `${this.baseUrl}${operation.path}`;
		const body = operation.body === undefined ? undefined : JSON.stringify(operation.body);
		const wait: RateWait = { rateWaitedMs: 0 };
		let retries = 0;
		let consecutive429s = 0;
		for (;;) {
			const ticket = operation.rateLimited
				? await this.reserve(gate, operation, wait, signal)
				: undefined;
			let response: TransportResponse;
			try {
				response = await this.options.transport({
					method: operation.method,
					url,
					headers: {
						accept: 'application/json',
						...(body !== undefined ? { 'content-type': 'application/json' } : {}),
					},
					body,
					timeoutMs,
					signal,
				});
			} catch (error) {
				if (ticket !== undefined) gate.release(ticket);
				const failure = this.transportErrorOf(error, signal);
				if (mayRetryTransportFailure(operation.retry, failure) && retries < maxRetries) {
					await this.sleep(this.backoffMs(retries), operation, signal);
					retries += 1;
					continue;
				}
				throw this.transportFailure(operation, failure, retries);
			}
			const answered = response.status >= 200 && response.status < 300;
			if (ticket !== undefined)
				gate.release(ticket, rateWindowOf(response.headers, now()), answered);
			if (answered) return this.parse(operation, response);
			const error = errorFromResponse(response, {
				label: operation.label,
				now: now(),
				rateWaitedMs: wait.rateWaitedMs,
				secrets: this.options.secrets,
				url,
				retry: operation.retry,
			});
			if (error instanceof RateLimitedError) {
				consecutive429s += 1;
				const askedMs =
					error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
				const holdMs = rateLimitWaitMs(askedMs, consecutive429s);
				if (operation.rateLimited) {
					// Everyone on this key holds; the next reserve waits it out within the wait budget.
					// Retry-After is whole seconds rounded up: the first 429's window ends within its last.
					const earliestMs =
						askedMs !== undefined && consecutive429s === 1 && holdMs === askedMs
							? askedMs - 1000
							: holdMs;
					gate.block(holdMs, earliestMs, ticket);
				} else {
					await this.waitOnRateLimit(gate, operation, wait, holdMs, signal);
				}
				continue;
			}
			if (mayRetryErrorAnswer(operation.retry, error) && retries < maxRetries) {
				await this.sleep(this.backoffMs(retries), operation, signal);
				retries += 1;
				continue;
			}
			throw error;
		}
	}

	/** A slot of the key's rate window, waiting for one within the wait budget. */
	private async reserve<T>(
		gate: RateGate,
		operation: Operation<T>,
		wait: RateWait,
		signal?: AbortSignal,
	): Promise<number> {
		for (;;) {
			const reservation = gate.tryReserve();
			if ('ticket' in reservation) return reservation.ticket;
			await this.waitOnRateLimit(gate, operation, wait, reservation.waitMs, signal);
		}
	}

	/**
	 * Waits `ms` for the rate limit, or fails when the key would then have let no request through
	 * for longer than the wait budget (waiting for this run's own later windows is not being stuck).
	 */
	private async waitOnRateLimit<T>(
		gate: RateGate,
		operation: Operation<T>,
		wait: RateWait,
		ms: number,
		signal?: AbortSignal,
	): Promise<void> {
		const now = this.options.now();
		wait.since ??= now;
		const stuckSince = Math.max(wait.since, gate.progressAt ?? -Infinity);
		if (now + ms - stuckSince > this.options.maxRateLimitWaitMs) {
			throw this.rateWaitExceeded(operation, wait.rateWaitedMs, ms);
		}
		await this.sleep(ms, operation, signal);
		wait.rateWaitedMs += ms;
	}

	/** A 2xx body read with the operation's schema. A decide answered 2xx was charged. */
	private parse<T>(operation: Operation<T>, response: TransportResponse): T {
		const charged = mayHaveBeenCharged(operation.retry, { kind: 'answered' });
		return parseAnswer(response, operation.schema, {
			label: operation.label,
			secrets: this.options.secrets,
			mayHaveBeenCharged: charged,
			changesState: operation.method !== 'GET' && !charged,
		});
	}

	private backoffMs(retry: number): number {
		return backoffMs(retry, this.options.retryBaseDelayMs, this.options.random);
	}

	/** The client's sleep; a Stop during the wait is reported as such. */
	private async sleep<T>(ms: number, operation: Operation<T>, signal?: AbortSignal): Promise<void> {
		try {
			await this.options.sleep(ms, signal);
		} catch {
			// A sleep only rejects when its signal aborts.
			throw this.aborted(operation);
		}
	}

	private transportErrorOf(error: unknown, signal?: AbortSignal): TransportError {
		if (signal?.aborted) return new TransportError('aborted', 'The call was aborted.');
		if (error instanceof TransportError) return error;
		return (
			this.options.describeTransportError?.(error) ??
			new TransportError('reset', 'The transport failed without an answer.')
		);
	}

	refusedLocally(label: string, problems: ErrorDetail[]): LocalValidationError {
		return new LocalValidationError({
			code: 'invalid_request',
			details: problems,
			problems,
			message: this.scrub(refusalMessage(label, problems, 'invalid request')),
		});
	}

	private rateWaitExceeded<T>(
		operation: Operation<T>,
		waitedMs: number,
		nextMs: number,
	): RateLimitedError {
		const max = formatSeconds(this.options.maxRateLimitWaitMs);
		return new RateLimitedError({
			code: 'rate_limited',
			status: 429,
			waitedMs,
			message: `Rate limit of the API key reached: ${operation.label} waited ${formatSeconds(waitedMs)} while no request of this key got through, and the next slot is ${formatSeconds(nextMs)} away, beyond the ${max} this client may wait.`,
		});
	}

	/** host:port of the base URL, for messages (the URL's path and query stay out). */
	private hostAndPort(): string {
		try {
			const url = new URL(this.baseUrl);
			const port = url.port || (url.protocol === 'https:' ? '443' : '80');
			return `${url.hostname}:${port}`;
		} catch {
			return 'the Base URL';
		}
	}

	private aborted<T>(operation: Operation<T>): AbortedError {
		return new AbortedError({ code: 'aborted', message: `${operation.label} was stopped.` });
	}

	private transportFailure<T>(
		operation: Operation<T>,
		failure: TransportError,
		retries: number,
	): DecisionServiceError {
		if (failure.kind === 'aborted') return this.aborted(operation);
		const tries = retries > 0 ? ` after ${retries + 1} attempts` : '';
		const sent = failure.kind !== 'connect';
		const charged = mayHaveBeenCharged(operation.retry, { kind: 'no-answer', sent });
		const notRepeated =
			sent && operation.retry !== 'safe'
				? `; it was not repeated because the service may have run${charged ? ' (and charged)' : ''} it`
				: '';
		if (failure.kind === 'timeout') {
			return new TimeoutError({
				code: 'timeout',
				timeoutMs: this.options.timeoutMs,
				mayHaveBeenCharged: charged,
				message: `${operation.label} got no answer within ${formatSeconds(this.options.timeoutMs)}${tries}${notRepeated}.`,
			});
		}
		const cause = failure.code ? ` (${causeOf(failure.code)})` : '';
		if (!sent && failure.code === 'ECONNREFUSED') {
			// The one a user meets first (a wrong port, the service not started): say what to check.
			return new NetworkError({
				code: 'econnrefused',
				mayHaveReachedServer: false,
				mayHaveBeenCharged: false,
				message: this.scrub(
					`${operation.label} failed: nothing answers at ${this.hostAndPort()}${tries} (connection refused). Check the host and port of the Base URL, and that the service runs there.`,
				),
			});
		}
		const what = sent
			? 'the connection dropped after the request was sent, before an answer'
			: 'the request was not sent: could not connect to the service';
		return new NetworkError({
			code: failure.code ? failure.code.toLowerCase() : 'network_error',
			mayHaveReachedServer: sent,
			mayHaveBeenCharged: charged,
			message: this.scrub(`${operation.label} failed: ${what}${tries}${cause}${notRepeated}.`),
		});
	}

	private scrub(text: string): string {
		return scrubSecrets(text, this.options.secrets);
	}
}
