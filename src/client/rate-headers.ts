/**
 * The rate-limit headers are untrusted input (a gateway, a rollout or a bug can send anything):
 * each is read into sane bounds here, and every other file uses these readings only.
 *
 * | header                | garbage, empty | negative | zero           | huge                       |
 * |-----------------------|----------------|----------|----------------|----------------------------|
 * | Retry-After (seconds) | ignored        | ignored  | the minimum 1 s | 60 s (one rate window)     |
 * | Retry-After (date)    | ignored        | past: 1 s |                | 60 s                       |
 * | X-RateLimit-Reset     | ignored        | ignored  | 0 (new window) | epoch seconds are read as a |
 * |                       |                |          |                | time; anything else 60 s    |
 * | X-RateLimit-Remaining | ignored        | ignored  | 0              | capped at the limit        |
 * | X-RateLimit-Limit     | ignored        | ignored  | ignored        | capped at 100 000          |
 *
 * Repeated 429s wait longer each time (1, 2, 4 … s, at most 60 s) whatever Retry-After says,
 * so a bad header can neither block a key beyond one window nor make a request storm.
 */
import { RATE_LIMIT_HEADERS } from '../contract';

/** What one response told us of the key's rate window, as `rateWindowOf` reads it. */
export interface RateWindowInfo {
	limit?: number;
	remaining?: number;
	/** Seconds until the window resets (the service rounds up). */
	resetSeconds?: number;
}

/** The API's rate window is a minute: no wait is longer. */
export const RATE_WINDOW_MAX_MS = 60_000;
export const RATE_WAIT_MIN_MS = 1_000;
const LIMIT_MAX = 100_000;
/** Values above this are epoch seconds, not a duration (2001-09-09). */
const EPOCH_SECONDS_FROM = 1_000_000_000;

/** A non-negative finite number, or undefined for anything else (text, NaN, negative, empty). */
function nonNegativeNumber(raw: string | undefined): number | undefined {
	if (raw === undefined) return undefined;
	const text = raw.trim();
	if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
	const value = Number(text);
	return Number.isFinite(value) ? value : undefined;
}

function clamp(value: number, min: number, max: number): number {
	return Math.min(max, Math.max(min, value));
}

/** Retry-After in milliseconds within [1 s, 60 s], from seconds or an HTTP date; undefined if unreadable. */
export function retryAfterMs(headers: Record<string, string>, now: number): number | undefined {
	const raw = headers[RATE_LIMIT_HEADERS.retryAfter];
	const seconds = nonNegativeNumber(raw);
	if (seconds !== undefined) return clamp(seconds * 1000, RATE_WAIT_MIN_MS, RATE_WINDOW_MAX_MS);
	if (raw === undefined || !/[a-z]/i.test(raw)) return undefined;
	const date = Date.parse(raw);
	if (!Number.isFinite(date)) return undefined;
	return clamp(date - now, RATE_WAIT_MIN_MS, RATE_WINDOW_MAX_MS);
}

/** What a response says of the key's window, each figure within its bounds (see the table above). */
export function rateWindowOf(headers: Record<string, string>, now: number): RateWindowInfo {
	const rawLimit = nonNegativeNumber(headers[RATE_LIMIT_HEADERS.limit]);
	const limit =
		rawLimit !== undefined && rawLimit >= 1 ? Math.min(Math.floor(rawLimit), LIMIT_MAX) : undefined;
	const rawRemaining = nonNegativeNumber(headers[RATE_LIMIT_HEADERS.remaining]);
	const remaining =
		rawRemaining === undefined ? undefined : Math.min(Math.floor(rawRemaining), limit ?? LIMIT_MAX);
	let resetSeconds = nonNegativeNumber(headers[RATE_LIMIT_HEADERS.reset]);
	if (resetSeconds !== undefined && resetSeconds >= EPOCH_SECONDS_FROM) {
		resetSeconds = Math.max(0, resetSeconds - now / 1000);
	}
	if (resetSeconds !== undefined) resetSeconds = Math.min(resetSeconds, RATE_WINDOW_MAX_MS / 1000);
	return { limit, remaining, resetSeconds };
}

/**
 * How long to hold the key after the n-th 429 in a row (n from 1): what the service asked, but never
 * less than 1, 2, 4 … s for repeated 429s, and never more than one window.
 */
export function rateLimitWaitMs(askedMs: number | undefined, consecutive429s: number): number {
	const floor = RATE_WAIT_MIN_MS * 2 ** Math.max(0, consecutive429s - 1);
	return clamp(Math.max(askedMs ?? RATE_WAIT_MIN_MS, floor), RATE_WAIT_MIN_MS, RATE_WINDOW_MAX_MS);
}
