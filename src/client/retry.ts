/**
 * When a failed request may be sent again. The rule comes from the API's charging rule: a decide
 * is one unit whatever its outcome, so a request that may have reached the service is only repeated
 * when repeating it cannot charge twice.
 */
import type { DecisionServiceError } from './errors';
import type { TransportError } from './transport';

/**
 * How a request may be repeated after a failure that might have reached the server:
 * `safe` (reads, and creates that are idempotent on their slug) or `metered` (decide, feedback:
 * only when the request provably never reached the server, so nothing is charged twice).
 */
export type RetryClass = 'safe' | 'metered';

const RETRYABLE_STATUSES = new Set([502, 503, 504]);
/** Deliberate answers of the service with a 5xx status: repeating the request will not help. */
const FINAL_SERVER_CODES = new Set(['generation_unavailable', 'generation_failed']);

/** Whether a request that failed without an answer may be sent again. */
export function mayRetryTransportFailure(retry: RetryClass, failure: TransportError): boolean {
	if (failure.kind === 'aborted') return false;
	const mayHaveReachedServer = failure.kind !== 'connect';
	return !mayHaveReachedServer || retry === 'safe';
}

/** Whether a request answered with an error (other than a rate limit) may be sent again. */
export function mayRetryErrorAnswer(retry: RetryClass, error: DecisionServiceError): boolean {
	return (
		error.status !== undefined &&
		RETRYABLE_STATUSES.has(error.status) &&
		!FINAL_SERVER_CODES.has(error.code) &&
		retry === 'safe'
	);
}

/** Exponential backoff with jitter (50-100 % of the step), so parallel retries spread out. */
export function backoffMs(retry: number, baseDelayMs: number, random: () => number): number {
	const step = Math.min(baseDelayMs * 2 ** retry, 8_000);
	return Math.round(step * (0.5 + random() * 0.5));
}
