/**
 * The one place where an HTTP answer other than 2xx becomes an error class (see errors.ts): the
 * builders by code and by status are read together with their table, hence the length.
 */
import {
	RATE_LIMIT_HEADERS,
	errorEnvelopeSchema,
	ownValue,
	quotaExceededDetailsSchema,
	rateLimitedDetailsSchema,
	type ErrorDetail,
} from '../contract';
import {
	DecisionNotLiveError,
	DecisionServiceError,
	GenerationFailedError,
	GenerationUnavailableError,
	InvalidRequestError,
	NotFoundError,
	PayloadTooLargeError,
	QuotaExceededError,
	RateLimitedError,
	RedirectError,
	ServerError,
	UnauthorizedError,
	scrubSecrets,
	type ErrorInit,
} from './errors';
import { RATE_WAIT_MIN_MS, RATE_WINDOW_MAX_MS, retryAfterMs } from './rate-headers';
import type { TransportResponse } from './transport';
import { mayHaveBeenCharged, type RetryClass } from './retry';

/** A header as a finite number, or undefined when absent or not a number. */
export function headerNumber(headers: Record<string, string>, name: string): number | undefined {
	const raw = headers[name];
	if (raw === undefined || raw.trim() === '') return undefined;
	const value = Number(raw);
	return Number.isFinite(value) ? value : undefined;
}

export interface ResponseErrorContext {
	/** Names the operation in the message, e.g. `decide on "ticket-routing"`. */
	label: string;
	/** For the quota's reset date. */
	now: number;
	/** Time the request already spent waiting on the rate limit. */
	rateWaitedMs: number;
	/** Strings that must never appear in a message (the API key). */
	secrets: readonly string[];
	/** The request's URL, to read a relative Location against. */
	url: string;
	/** The request's retry class (retry.ts), which says whether it is charged per call. */
	retry: RetryClass;
}

interface Envelope {
	code: string;
	serviceMessage: string;
	details: unknown;
	/** Whether the body carried the service's error envelope (a gateway's page does not). */
	fromService: boolean;
}

function envelopeOf(response: TransportResponse): Envelope {
	try {
		const parsed = errorEnvelopeSchema.safeParse(JSON.parse(response.body));
		if (parsed.success) {
			const { code, message, details } = parsed.data.error;
			return { code, serviceMessage: message, details, fromService: true };
		}
	} catch {
		// A proxy's HTML page, say: keep the status-derived code.
	}
	return {
		code: `http_${response.status}`,
		serviceMessage: '',
		details: undefined,
		fromService: false,
	};
}

type Build = (
	base: ErrorInit,
	envelope: Envelope,
	response: TransportResponse,
	context: ResponseErrorContext,
) => DecisionServiceError;

function quotaExceeded(
	base: ErrorInit,
	envelope: Envelope,
	response: TransportResponse,
	context: ResponseErrorContext,
): QuotaExceededError {
	const quota = quotaExceededDetailsSchema.safeParse(envelope.details);
	const retryAfterSeconds = quota.success
		? quota.data.retry_after
		: headerNumber(response.headers, RATE_LIMIT_HEADERS.retryAfter);
	const resetsAt =
		retryAfterSeconds !== undefined ? new Date(context.now + retryAfterSeconds * 1000) : undefined;
	const usage = quota.success
		? `${quota.data.used} of ${quota.data.quota} decisions used this month. `
		: '';
	const reset = resetsAt ? `It resets on ${resetsAt.toISOString().slice(0, 10)} (UTC). ` : '';
	const upgrade = quota.success ? `Upgrade: ${quota.data.upgrade_url}. ` : '';
	return new QuotaExceededError({
		...base,
		used: quota.success ? quota.data.used : undefined,
		quota: quota.success ? quota.data.quota : undefined,
		upgradeUrl: quota.success ? quota.data.upgrade_url : undefined,
		retryAfterSeconds,
		resetsAt,
		message: scrubSecrets(
			`Monthly quota of the Decision Service reached: ${usage}${reset}${upgrade}Nothing was charged for this request.`.trim(),
			context.secrets,
		),
	});
}

/** Retry-After within its bounds (rate-headers.ts), else the body's retry_after within the same bounds. */
function retryAfterSecondsOf(
	response: TransportResponse,
	fromBody: number | undefined,
	now: number,
): number | undefined {
	const fromHeader = retryAfterMs(response.headers, now);
	if (fromHeader !== undefined) return fromHeader / 1000;
	if (fromBody === undefined || !Number.isFinite(fromBody) || fromBody < 0) return undefined;
	return Math.min(Math.max(fromBody, RATE_WAIT_MIN_MS / 1000), RATE_WINDOW_MAX_MS / 1000);
}

function rateLimited(
	base: ErrorInit,
	envelope: Envelope,
	response: TransportResponse,
	context: ResponseErrorContext,
): RateLimitedError {
	const rate = rateLimitedDetailsSchema.safeParse(envelope.details);
	return new RateLimitedError({
		...base,
		code: 'rate_limited',
		limit: rate.success
			? rate.data.limit
			: headerNumber(response.headers, RATE_LIMIT_HEADERS.limit),
		retryAfterSeconds: retryAfterSecondsOf(
			response,
			rate.success ? rate.data.retry_after : undefined,
			context.now,
		),
		waitedMs: context.rateWaitedMs,
	});
}

/** The message of a refused request, listing each problem by field. */
export function refusalMessage(
	label: string,
	problems: readonly ErrorDetail[],
	fallback: string,
): string {
	const listed = problems.map((problem) => `${problem.field} ${problem.message}`).join('; ');
	return `${label} was refused: ${listed || fallback}`;
}

function invalidRequest(
	base: ErrorInit,
	envelope: Envelope,
	_response: TransportResponse,
	context: ResponseErrorContext,
): InvalidRequestError {
	const problems = Array.isArray(envelope.details) ? (envelope.details as ErrorDetail[]) : [];
	return new InvalidRequestError({
		...base,
		problems,
		message: scrubSecrets(
			refusalMessage(context.label, problems, envelope.serviceMessage || 'invalid request'),
			context.secrets,
		),
	});
}

function redirect(response: TransportResponse, context: ResponseErrorContext): RedirectError {
	let location: string | undefined;
	try {
		location = new URL(response.headers.location ?? '', context.url).origin;
	} catch {
		location = undefined;
	}
	const target = response.headers.location ? (location ?? 'an unreadable location') : 'nowhere';
	return new RedirectError({
		status: response.status,
		code: 'redirect',
		location,
		message: scrubSecrets(
			`${context.label} was answered with a redirect (${response.status}) to ${target}. The Decision Service API has no redirects, so it was not followed: neither the key nor the input was sent there.`,
			context.secrets,
		),
	});
}

/** By error code first (the service's own words), then by status. */
const BY_CODE: Record<string, Build> = {
	quota_exceeded: quotaExceeded,
	generation_unavailable: (base) => new GenerationUnavailableError(base),
	generation_failed: (base) => new GenerationFailedError(base),
};
const BY_STATUS: Record<number, Build> = {
	400: invalidRequest,
	401: (base, envelope, _response, context) =>
		new UnauthorizedError({
			...base,
			message: scrubSecrets(
				`The Decision Service refused the API key (401 ${envelope.code}).`,
				context.secrets,
			),
		}),
	404: (base) => new NotFoundError(base),
	409: (base) => new DecisionNotLiveError(base),
	413: (base) => new PayloadTooLargeError(base),
	429: rateLimited,
};

/** The error an HTTP answer other than 2xx stands for. */
export function errorFromResponse(
	response: TransportResponse,
	context: ResponseErrorContext,
): DecisionServiceError {
	const envelope = envelopeOf(response);
	const { status } = response;
	const said = envelope.serviceMessage ? `: ${envelope.serviceMessage}` : '';
	if (status >= 300 && status < 400) return redirect(response, context);
	const base: ErrorInit = {
		status,
		code: envelope.code,
		details: envelope.details,
		answeredByService: envelope.fromService,
		mayHaveBeenCharged: mayHaveBeenCharged(context.retry, {
			kind: 'error-answer',
			status,
			fromService: envelope.fromService,
		}),
		message: scrubSecrets(
			!envelope.fromService && status === 404
				? // Not the API's own 404 (no error envelope): the Base URL points elsewhere.
					`${context.label} failed (404): no Decision Service API answers at this address. Check the Base URL: the API's address, ending with its version, /v1.`
				: `${context.label} failed (${status} ${envelope.code})${said}`,
			context.secrets,
		),
	};
	// The code is the service's word: `constructor` is a code like any other, not Object's.
	const build =
		(ownValue(BY_CODE, envelope.code) as Build | undefined) ??
		BY_STATUS[status] ??
		((init: ErrorInit) => (status >= 500 ? new ServerError(init) : new DecisionServiceError(init)));
	return build(base, envelope, response, context);
}
