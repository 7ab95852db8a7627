/**
 * The request loop under every operation of the client (see Requester). One file because the loop,
 * the rate gate and the failure each attempt can end in are read together (hence its length).
 */
import type { z } from 'zod/v4';
import { BOUNDS, RATE_LIMIT_HEADERS, type ErrorDetail } from '../contract';
import { errorFromResponse, headerNumber, refusalMessage } from './error-from-response';
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
import { backoffMs, mayRetryErrorAnswer, mayRetryTransportFailure, type RetryClass } from './retry';
import { ConcurrencyLimiter } from './limiter';
import { rateGateFor, type RateGate, type RateWindowInfo } from './rate-gate';
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
	/** Requests in flight at once from this client. Default 5. */
	concurrency?: number;
	/** Retries after 502/503/504 or a dropped connection, where retrying is safe. Default 2. */
	maxRetries?: number;
	/** First backoff delay; doubles each retry, with jitter. Default 500 ms. */
	retryBaseDelayMs?: number;
	/** Most time one request may spend waiting on the rate limit before it fails. Default 120 s. */
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
	schema: z.ZodType<T>;
	/** Names the operation in error messages. */
	label: string;
}

function rateWindowOf(response: TransportResponse): RateWindowInfo {
	return {
		limit: headerNumber(response.headers, RATE_LIMIT_HEADERS.limit),
		remaining: headerNumber(response.headers, RATE_LIMIT_HEADERS.remaining),
		resetSeconds: headerNumber(response.headers, RATE_LIMIT_HEADERS.reset),
	};
}

function formatSeconds(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
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
	private readonly gate: RateGate;
	private readonly limiter: ConcurrencyLimiter;

	constructor(options: DecisionClientOptions) {
		this.baseUrl = options.baseUrl.replace(/\/+$/, '');
		this.options = {
			timeoutMs: BOUNDS.clientTimeoutDefaultMs,
			concurrency: 5,
			maxRetries: 2,
			retryBaseDelayMs: 500,
			maxRateLimitWaitMs: 120_000,
			now: Date.now,
			random: Math.random,
			...options,
			secrets: options.secrets ?? [],
		};
		this.gate = rateGateFor(options.rateGateKey ?? this.baseUrl, this.options.now);
		this.limiter = new ConcurrencyLimiter(this.options.concurrency);
	}

	async send<T>(operation: Operation<T>, signal?: AbortSignal): Promise<T> {
		return this.limiter.run(() => this.attempt(operation, signal));
	}

	/** The request, repeated while retry.ts allows it, waiting on the rate gate before each send. */
	private async attempt<T>(operation: Operation<T>, signal?: AbortSignal): Promise<T> {
		const { maxRetries, maxRateLimitWaitMs, timeoutMs } = this.options;
		const body = operation.body === undefined ? undefined : JSON.stringify(operation.body);
		let retries = 0;
		let rateWaitedMs = 0;
		for (;;) {
			const reservation = this.gate.tryReserve();
			if ('waitMs' in reservation) {
				if (rateWaitedMs + reservation.waitMs > maxRateLimitWaitMs) {
					throw this.rateWaitExceeded(operation, rateWaitedMs, reservation.waitMs);
				}
				await this.sleep(reservation.waitMs, operation, signal);
				rateWaitedMs += reservation.waitMs;
				continue;
			}

			let response: TransportResponse;
			try {
				response = await this.options.transport({
					method: operation.method,
					url: `${this.baseUrl}${operation.path}`,
					headers: {
						accept: 'application/json',
						...(body !== undefined ? { 'content-type': 'application/json' } : {}),
					},
					body,
					timeoutMs,
					signal,
				});
			} catch (error) {
				this.gate.release(reservation.ticket);
				const failure = this.transportErrorOf(error, signal);
				if (mayRetryTransportFailure(operation.retry, failure) && retries < maxRetries) {
					await this.sleep(this.backoffMs(retries), operation, signal);
					retries += 1;
					continue;
				}
				throw this.transportFailure(operation, failure, retries);
			}
			this.gate.release(reservation.ticket, rateWindowOf(response));

			if (response.status >= 200 && response.status < 300) {
				return parseAnswer(response, operation.schema, {
					label: operation.label,
					secrets: this.options.secrets,
					mayHaveBeenCharged: operation.retry === 'metered',
				});
			}
			const error = errorFromResponse(response, {
				label: operation.label,
				now: this.options.now(),
				rateWaitedMs,
				secrets: this.options.secrets,
			});
			if (error instanceof RateLimitedError) {
				this.gate.block(Math.max(1, (error.retryAfterSeconds ?? 1) * 1000));
				// The loop waits on the gate, and gives up there when the wait budget is spent.
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
			message: `Rate limit of the API key reached: ${operation.label} waited ${formatSeconds(waitedMs)}, and the next slot is ${formatSeconds(nextMs)} away, beyond the ${max} this client may wait.`,
		});
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
		const metered = operation.retry === 'metered';
		if (failure.kind === 'timeout') {
			return new TimeoutError({
				code: 'timeout',
				timeoutMs: this.options.timeoutMs,
				mayHaveBeenCharged: metered,
				message: `${operation.label} got no answer within ${formatSeconds(this.options.timeoutMs)}${tries}${metered ? '; it was not repeated because the service may have run (and charged) it' : ''}.`,
			});
		}
		const mayHaveReachedServer = failure.kind !== 'connect';
		const what = mayHaveReachedServer
			? 'the connection dropped before an answer'
			: 'could not connect to the service';
		const notRepeated =
			mayHaveReachedServer && metered
				? '; it was not repeated because the service may have run (and charged) it'
				: '';
		return new NetworkError({
			code: failure.code ? failure.code.toLowerCase() : 'network_error',
			mayHaveReachedServer,
			mayHaveBeenCharged: mayHaveReachedServer && metered,
			message: this.scrub(`${operation.label} failed: ${what}${tries}${notRepeated}.`),
		});
	}

	private scrub(text: string): string {
		return scrubSecrets(text, this.options.secrets);
	}
}
