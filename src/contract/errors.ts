/**
 * Every error code the service answers with, and its HTTP status: the Errors table of docs/api.md
 * plus our choices where it is silent (README, "Where the API text is silent").
 */
export const ERROR_STATUS = {
	invalid_json: 400,
	invalid_request: 400,
	unauthorized: 401,
	decision_not_found: 404,
	template_not_found: 404,
	version_not_found: 404,
	run_not_found: 404,
	not_found: 404,
	decision_not_live: 409,
	payload_too_large: 413,
	generation_failed: 422,
	quota_exceeded: 429,
	rate_limited: 429,
	generation_unavailable: 503,
	// Not answered by the service's own handlers: what a gateway in front of it may send,
	// produced by the sandbox's fault injection.
	internal_error: 500,
	bad_gateway: 502,
	service_unavailable: 503,
	gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Response headers of the per-key rate limit (lower-case, as HTTP libraries hand them over). */
export const RATE_LIMIT_HEADERS = {
	limit: 'x-ratelimit-limit',
	remaining: 'x-ratelimit-remaining',
	reset: 'x-ratelimit-reset',
	retryAfter: 'retry-after',
} as const;
