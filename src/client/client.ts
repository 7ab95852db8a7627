import type { ZodMiniType } from 'zod/v4/mini';
import {
	BOUNDS,
	RATE_LIMIT_HEADERS,
	SLUG_PATTERN,
	createDecisionResponseSchema,
	decisionListSchema,
	decisionSchema,
	errorEnvelopeSchema,
	feedbackRecordSchema,
	quotaExceededDetailsSchema,
	rateLimitedDetailsSchema,
	runSchema,
	templateListSchema,
	type CreateDecisionRequest,
	type CreateDecisionResponse,
	type DecideRequestOptions,
	type Decision,
	type DecisionSummary,
	type ErrorDetail,
	type FeedbackRecord,
	type Locale,
	type Run,
	type TemplateList,
} from '../contract';
import { validateCreateDecisionRequest } from '../contract/validation';
import {
	DecisionNotLiveError,
	DecisionServiceError,
	GenerationFailedError,
	GenerationUnavailableError,
	InvalidRequestError,
	NetworkError,
	NotFoundError,
	PayloadTooLargeError,
	QuotaExceededError,
	RateLimitedError,
	ResponseFormatError,
	ServerError,
	TimeoutError,
	UnauthorizedError,
	scrubSecrets,
	type ErrorInit,
} from './errors';
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

/**
 * How a request may be repeated after a failure that might have reached the server:
 * `safe` (reads, and creates that are idempotent on their slug) or `metered` (decide, feedback:
 * only when the request provably never reached the server, so nothing is charged twice).
 */
type RetryClass = 'safe' | 'metered';

interface Operation<T> {
	method: HttpMethod;
	path: string;
	body?: unknown;
	retry: RetryClass;
	schema: ZodMiniType<T>;
	/** Names the operation in error messages. */
	label: string;
}

export interface DecideCallOptions extends DecideRequestOptions {
	signal?: AbortSignal;
}

const RETRYABLE_STATUSES = new Set([502, 503, 504]);
/** Deliberate answers of the service with a 5xx status: repeating the request will not help. */
const FINAL_SERVER_CODES = new Set(['generation_unavailable', 'generation_failed']);

function headerNumber(headers: Record<string, string>, name: string): number | undefined {
	const raw = headers[name];
	if (raw === undefined || raw.trim() === '') return undefined;
	const value = Number(raw);
	return Number.isFinite(value) ? value : undefined;
}

function rateWindowOf(response: TransportResponse): RateWindowInfo {
	return {
		limit: headerNumber(response.headers, RATE_LIMIT_HEADERS.limit),
		remaining: headerNumber(response.headers, RATE_LIMIT_HEADERS.remaining),
		resetSeconds: headerNumber(response.headers, RATE_LIMIT_HEADERS.reset),
	};
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
	let value: unknown = body;
	for (const key of path) {
		if (typeof value !== 'object' || value === null) return undefined;
		value = (value as Record<PropertyKey, unknown>)[key];
	}
	return value;
}

function formatSeconds(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
}

/**
 * Typed client of the Decision Service API. Owns retries, the timeout, the per-key rate gate and
 * the concurrency cap; how bytes move is the transport's business.
 */
export class DecisionClient {
	private readonly baseUrl: string;
	private readonly options: Required<
		Omit<DecisionClientOptions, 'rateGateKey' | 'secrets' | 'describeTransportError'>
	> &
		Pick<DecisionClientOptions, 'describeTransportError'> & { secrets: string[] };
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

	/** POST /decide/{slug}. Metered: never sent twice unless the first provably did not arrive. */
	async decide(
		slug: string,
		input: string | Record<string, unknown>,
		options: DecideCallOptions = {},
	): Promise<Run> {
		const { signal, ...decideOptions } = options;
		const body: Record<string, unknown> = { input };
		if (decideOptions.version !== undefined || decideOptions.engine !== undefined)
			body.options = decideOptions;
		return this.call(
			{
				method: 'POST',
				path: `/decide/${this.slugPath(slug)}`,
				body,
				retry: 'metered',
				schema: runSchema,
				label: `decide on "${slug}"`,
			},
			signal,
		);
	}

	/**
	 * POST /decisions in any of its three shapes. Checked locally first (a 400 costs a round trip).
	 * Retried after a dropped connection only when a name or slug makes it idempotent.
	 */
	async createDecision(
		request: CreateDecisionRequest,
		signal?: AbortSignal,
	): Promise<CreateDecisionResponse> {
		const validation = validateCreateDecisionRequest(request);
		if (!validation.ok) throw this.invalidRequest('create decision', validation.details, undefined);
		const idempotent =
			request.slug !== undefined || request.name !== undefined || 'template' in request;
		return this.call(
			{
				method: 'POST',
				path: '/decisions',
				body: request,
				retry: idempotent ? 'safe' : 'metered',
				schema: createDecisionResponseSchema,
				label: 'create decision',
			},
			signal,
		);
	}

	async getDecision(slug: string, signal?: AbortSignal): Promise<Decision> {
		return this.call(
			{
				method: 'GET',
				path: `/decisions/${this.slugPath(slug)}`,
				retry: 'safe',
				schema: decisionSchema,
				label: `get decision "${slug}"`,
			},
			signal,
		);
	}

	async listDecisions(signal?: AbortSignal): Promise<DecisionSummary[]> {
		const list = await this.call(
			{
				method: 'GET',
				path: '/decisions',
				retry: 'safe',
				schema: decisionListSchema,
				label: 'list decisions',
			},
			signal,
		);
		return list.decisions;
	}

	async listTemplates(locale?: Locale, signal?: AbortSignal): Promise<TemplateList> {
		const query = locale ? `?locale=${encodeURIComponent(locale)}` : '';
		return this.call(
			{
				method: 'GET',
				path: `/templates${query}`,
				retry: 'safe',
				schema: templateListSchema,
				label: 'list templates',
			},
			signal,
		);
	}

	async sendFeedback(
		runId: string,
		feedback: { feedback: string; note?: string },
		signal?: AbortSignal,
	): Promise<FeedbackRecord> {
		if (!runId.trim())
			throw this.invalidRequest(
				'send feedback',
				[{ field: 'run_id', message: 'is required' }],
				undefined,
			);
		if (!feedback.feedback?.trim()) {
			throw this.invalidRequest(
				'send feedback',
				[{ field: 'feedback', message: 'must be a non-empty string' }],
				undefined,
			);
		}
		return this.call(
			{
				method: 'POST',
				path: `/runs/${encodeURIComponent(runId)}/feedback`,
				body: feedback,
				retry: 'metered',
				schema: feedbackRecordSchema,
				label: `send feedback on run "${runId}"`,
			},
			signal,
		);
	}

	private slugPath(slug: string): string {
		if (!SLUG_PATTERN.test(slug) || slug.length > BOUNDS.slugMax) {
			throw this.invalidRequest(
				'call',
				[
					{
						field: 'slug',
						message: `"${slug}" is not a valid slug (lower-case letters and digits separated by single hyphens, at most ${BOUNDS.slugMax})`,
					},
				],
				undefined,
			);
		}
		return slug;
	}

	private async call<T>(operation: Operation<T>, signal?: AbortSignal): Promise<T> {
		return this.limiter.run(() => this.attempt(operation, signal));
	}

	private async attempt<T>(operation: Operation<T>, signal?: AbortSignal): Promise<T> {
		const { sleep, maxRetries, maxRateLimitWaitMs, timeoutMs } = this.options;
		const body = operation.body === undefined ? undefined : JSON.stringify(operation.body);
		let retries = 0;
		let rateWaitedMs = 0;
		for (;;) {
			const reservation = this.gate.tryReserve();
			if ('waitMs' in reservation) {
				if (rateWaitedMs + reservation.waitMs > maxRateLimitWaitMs) {
					throw new RateLimitedError({
						code: 'rate_limited',
						status: 429,
						waitedMs: rateWaitedMs,
						message: `Rate limit of the API key reached: ${operation.label} waited ${formatSeconds(rateWaitedMs)}, and the next slot is ${formatSeconds(reservation.waitMs)} away, beyond the ${formatSeconds(maxRateLimitWaitMs)} this client may wait.`,
						hint: 'Raise "Max Wait on Rate Limit", lower the number of items per run, or move to a plan with a higher rate limit.',
					});
				}
				await sleep(reservation.waitMs, signal);
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
				const failure =
					error instanceof TransportError
						? error
						: (this.options.describeTransportError?.(error) ??
							new TransportError('reset', 'The transport failed without an answer.'));
				const mayHaveReachedServer = failure.kind !== 'connect';
				const retryable =
					failure.kind !== 'aborted' && (!mayHaveReachedServer || operation.retry === 'safe');
				if (retryable && retries < maxRetries) {
					await sleep(this.backoffMs(retries), signal);
					retries += 1;
					continue;
				}
				throw this.transportFailure(operation, failure, retries);
			}
			this.gate.release(reservation.ticket, rateWindowOf(response));

			if (response.status >= 200 && response.status < 300) return this.parse(operation, response);

			const error = this.errorFrom(operation, response, rateWaitedMs);
			if (error instanceof RateLimitedError) {
				const waitMs = Math.max(1, (error.retryAfterSeconds ?? 1) * 1000);
				this.gate.block(waitMs);
				// The loop waits on the gate, and gives up there when the wait budget is spent.
				continue;
			}
			const retryable =
				RETRYABLE_STATUSES.has(response.status) &&
				!FINAL_SERVER_CODES.has(error.code) &&
				operation.retry === 'safe';
			if (retryable && retries < maxRetries) {
				await sleep(this.backoffMs(retries), signal);
				retries += 1;
				continue;
			}
			throw error;
		}
	}

	/** Exponential backoff with jitter (50-100 % of the step), so parallel retries spread out. */
	private backoffMs(retry: number): number {
		const step = Math.min(this.options.retryBaseDelayMs * 2 ** retry, 8_000);
		return Math.round(step * (0.5 + this.options.random() * 0.5));
	}

	private parse<T>(operation: Operation<T>, response: TransportResponse): T {
		let json: unknown;
		try {
			json = JSON.parse(response.body);
		} catch {
			// src/ is n8n-free; the node turns every client error into a NodeApiError (toNodeError).
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
			throw new ResponseFormatError({
				code: 'invalid_response',
				status: response.status,
				message: `The Decision Service answered ${operation.label} with status ${response.status} but a body that is not JSON.`,
				hint: 'Check that the base URL points at the Decision Service API and includes /v1.',
			});
		}
		const parsed = operation.schema.safeParse(json);
		if (parsed.success) return parsed.data;
		const issue = parsed.error.issues[0];
		const field = issue.path.map(String).join('.') || '(body)';
		const received = JSON.stringify(valueAt(json, issue.path)) ?? 'nothing';
		throw new ResponseFormatError({
			code: 'invalid_response',
			status: response.status,
			details: parsed.error.issues.map((each) => ({
				field: each.path.map(String).join('.'),
				message: each.message,
			})),
			message: this.scrub(
				`Unexpected answer to ${operation.label}: field "${field}" ${issue.message.toLowerCase()} (received ${received.slice(0, 80)}).`,
			),
			hint: 'The service may be newer than this client; update the package.',
		});
	}

	private errorFrom<T>(
		operation: Operation<T>,
		response: TransportResponse,
		rateWaitedMs: number,
	): DecisionServiceError {
		let code = `http_${response.status}`;
		let serviceMessage = '';
		let details: unknown;
		try {
			const envelope = errorEnvelopeSchema.safeParse(JSON.parse(response.body));
			if (envelope.success) {
				code = envelope.data.error.code;
				serviceMessage = envelope.data.error.message;
				details = envelope.data.error.details;
			}
		} catch {
			// A proxy's HTML page, say: keep the status-derived code.
		}
		const status = response.status;
		const base: ErrorInit = {
			status,
			code,
			details,
			message: this.scrub(
				`${operation.label} failed (${status} ${code})${serviceMessage ? `: ${serviceMessage}` : ''}`,
			),
		};
		const retryAfterHeader = headerNumber(response.headers, RATE_LIMIT_HEADERS.retryAfter);

		if (status === 429 && code === 'quota_exceeded') {
			const quota = quotaExceededDetailsSchema.safeParse(details);
			const retryAfterSeconds = quota.success ? quota.data.retry_after : retryAfterHeader;
			const resetsAt =
				retryAfterSeconds !== undefined
					? new Date(this.options.now() + retryAfterSeconds * 1000)
					: undefined;
			const usage = quota.success
				? `${quota.data.used} of ${quota.data.quota} decisions used this month. `
				: '';
			return new QuotaExceededError({
				...base,
				used: quota.success ? quota.data.used : undefined,
				quota: quota.success ? quota.data.quota : undefined,
				upgradeUrl: quota.success ? quota.data.upgrade_url : undefined,
				retryAfterSeconds,
				resetsAt,
				message: this.scrub(
					`Monthly quota of the Decision Service reached: ${usage}${resetsAt ? `It resets on ${resetsAt.toISOString().slice(0, 10)} (UTC).` : ''}`.trim(),
				),
				hint: `Wait for the reset or upgrade the plan${quota.success ? `: ${quota.data.upgrade_url}` : ''}. Nothing was charged for this request.`,
			});
		}
		if (status === 429) {
			const rate = rateLimitedDetailsSchema.safeParse(details);
			return new RateLimitedError({
				...base,
				code: 'rate_limited',
				limit: rate.success
					? rate.data.limit
					: headerNumber(response.headers, RATE_LIMIT_HEADERS.limit),
				retryAfterSeconds: retryAfterHeader ?? (rate.success ? rate.data.retry_after : undefined),
				waitedMs: rateWaitedMs,
			});
		}
		if (status === 401) {
			return new UnauthorizedError({
				...base,
				message: `The Decision Service refused the API key (401 ${code}).`,
				hint: 'Check the API key in the credential: it may be mistyped, revoked, or meant for another base URL.',
			});
		}
		if (status === 400) {
			const problems = Array.isArray(details) ? (details as ErrorDetail[]) : [];
			return this.invalidRequest(operation.label, problems, serviceMessage, code);
		}
		if (status === 404) {
			return new NotFoundError({
				...base,
				hint: "Check the slug or ID; runs are purged after the plan's retention period.",
			});
		}
		if (status === 409) {
			return new DecisionNotLiveError({
				...base,
				hint: 'Publish the decision in the app, or pick a version with "Version".',
			});
		}
		if (status === 413)
			return new PayloadTooLargeError({
				...base,
				hint: 'Send a smaller input (the body must stay under 1 MiB).',
			});
		if (code === 'generation_unavailable') {
			return new GenerationUnavailableError({
				...base,
				hint: 'Create the decision from a template or an explicit definition instead.',
			});
		}
		if (code === 'generation_failed') {
			return new GenerationFailedError({
				...base,
				hint: 'Rephrase the description, name the options, or give an explicit definition.',
			});
		}
		if (status >= 500)
			return new ServerError({ ...base, hint: 'The service had a problem; try again later.' });
		return new DecisionServiceError(base);
	}

	private invalidRequest(
		label: string,
		problems: ErrorDetail[],
		serviceMessage: string | undefined,
		code = 'invalid_request',
	): InvalidRequestError {
		const listed = problems.map((problem) => `${problem.field} ${problem.message}`).join('; ');
		return new InvalidRequestError({
			status: serviceMessage === undefined ? undefined : 400,
			code,
			details: problems,
			problems,
			message: this.scrub(`${label} was refused: ${listed || serviceMessage || 'invalid request'}`),
			hint: 'Fix the fields named above.',
		});
	}

	private transportFailure<T>(
		operation: Operation<T>,
		failure: TransportError,
		retries: number,
	): DecisionServiceError {
		const tries = retries > 0 ? ` after ${retries + 1} attempts` : '';
		if (failure.kind === 'timeout') {
			return new TimeoutError({
				code: 'timeout',
				timeoutMs: this.options.timeoutMs,
				message: `${operation.label} got no answer within ${formatSeconds(this.options.timeoutMs)}${tries}.`,
				hint:
					operation.retry === 'metered'
						? 'It was not repeated because the service may have run it. Raise the timeout if the service is slow.'
						: 'Raise the timeout, or try again later.',
			});
		}
		const mayHaveReachedServer = failure.kind !== 'connect';
		return new NetworkError({
			code: failure.code ? failure.code.toLowerCase() : 'network_error',
			mayHaveReachedServer,
			message: this.scrub(
				`${operation.label} failed: ${mayHaveReachedServer ? 'the connection dropped before an answer' : 'could not connect to the service'}${tries}.`,
			),
			hint:
				mayHaveReachedServer && operation.retry === 'metered'
					? 'It was not repeated because the service may have run (and charged) it; check the run history before sending it again.'
					: 'Check the base URL and the network, then try again.',
		});
	}

	private scrub(text: string): string {
		return scrubSecrets(text, this.options.secrets);
	}
}
