/**
 * When a failed request may be sent again, from the API's charging rule (docs/api.md, "Monthly
 * quota"): one decide request is one unit whatever its outcome, and error responses are not
 * charged. So an error *answer* of the service may be retried for free; a *missing* answer (reset
 * after sending, timeout) or a gateway's ambiguous answer may have been charged and is never resent.
 *
 * | failure                                  | metered (decide) | once (feedback, create without slug) | safe (reads, create with slug) |
 * |------------------------------------------|------------------|--------------------------------------|--------------------------------|
 * | not sent: refused, DNS, TLS              | retry            | retry                                | retry                          |
 * | sent, no answer: reset, timeout          | fail (maybe charged) | fail                             | retry                          |
 * | 5xx with the service's error envelope    | retry            | fail                                 | retry if 502/503/504           |
 * | 503 without envelope                     | retry            | fail                                 | retry                          |
 * | 500/502/504 without envelope (a gateway) | fail (maybe charged) | fail                             | retry if 502/504               |
 * | generation_failed / _unavailable         | fail             | fail                                 | fail                           |
 * | 429 rate_limited                         | wait, then retry (rate-headers.ts), all classes                                   |
 * | 429 quota_exceeded, other 4xx, 3xx       | fail, all classes                                                                 |
 *
 * "May have been charged" is decided here too (`mayHaveBeenCharged` below), from the same rule:
 * the client's errors carry its result, and the node reads it on a failed item through
 * `mayHaveBeenCharged(error)` in nodes/DecisionService/errors.ts.
 */
import type { DecisionServiceError } from './errors';
import type { TransportError } from './transport';

/**
 * `metered`: charged per request (decide); `once`: must not happen twice and an error answer does
 * not prove it did not (feedback, a create without a slug or name); `safe`: idempotent (reads,
 * a create with a slug or name).
 */
export type RetryClass = 'metered' | 'once' | 'safe';

/** What became of a request, as far as charging goes. */
export type ChargeOutcome =
	/** A 2xx answer: the service ran it (a decide answered 2xx was charged, readable or not). */
	| { kind: 'answered' }
	/** An answer other than 2xx; `fromService`: it carried the service's error envelope. */
	| { kind: 'error-answer'; status: number; fromService: boolean }
	/** No answer; `sent`: the request may have left (reset after sending, timeout). */
	| { kind: 'no-answer'; sent: boolean };

/**
 * Whether a request may have been charged: the one rule. Only `metered` requests (decide) are
 * charged; the service's own error answers are not (nor a 503, which says it did not run), so what
 * may have been charged is a 2xx, a gateway's 5xx other than 503, or no answer after sending.
 */
export function mayHaveBeenCharged(retry: RetryClass, outcome: ChargeOutcome): boolean {
	if (retry !== 'metered') return false;
	if (outcome.kind === 'answered') return true;
	if (outcome.kind === 'no-answer') return outcome.sent;
	return !outcome.fromService && outcome.status >= 500 && outcome.status !== 503;
}

const GATEWAY_RETRY_STATUSES = new Set([502, 503, 504]);
/** Deliberate answers of the service with a 5xx status: repeating the request will not help. */
const FINAL_SERVER_CODES = new Set(['generation_unavailable', 'generation_failed']);

/** Whether a request that failed without an answer may be sent again. */
export function mayRetryTransportFailure(retry: RetryClass, failure: TransportError): boolean {
	if (failure.kind === 'aborted') return false;
	if (failure.kind === 'connect') return true;
	return retry === 'safe';
}

/** Whether a request answered with an error (other than a rate limit) may be sent again. */
export function mayRetryErrorAnswer(retry: RetryClass, error: DecisionServiceError): boolean {
	const status = error.status;
	if (status === undefined || status < 500 || FINAL_SERVER_CODES.has(error.code)) return false;
	if (retry === 'safe') return GATEWAY_RETRY_STATUSES.has(status);
	if (retry === 'metered') return error.answeredByService || status === 503;
	return false;
}

/** Exponential backoff with jitter (50-100 % of the step), so parallel retries spread out. */
export function backoffMs(retry: number, baseDelayMs: number, random: () => number): number {
	const step = Math.min(baseDelayMs * 2 ** retry, 8_000);
	return Math.round(step * (0.5 + random() * 0.5));
}
