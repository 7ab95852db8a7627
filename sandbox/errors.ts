import type { ErrorDetail, ErrorEnvelope } from '../src/contract';

/**
 * Every error code the sandbox answers with, and its HTTP status: the Errors table of docs/api.md
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

/** An answer of a handler: status, JSON body and extra headers. */
export interface Result {
	status: number;
	body: unknown;
	headers?: Record<string, string>;
}

/** An error answer in the API's envelope; the status comes from ERROR_STATUS unless given. */
export class ApiError extends Error {
	readonly status: number;

	constructor(
		readonly code: ErrorCode | string,
		message: string,
		readonly details?: unknown,
		readonly headers: Record<string, string> = {},
		status?: number,
	) {
		super(message);
		this.status = status ?? (ERROR_STATUS as Record<string, number>)[code] ?? 500;
	}

	toResult(): Result {
		const envelope: ErrorEnvelope = { error: { code: this.code, message: this.message } };
		if (this.details !== undefined) envelope.error.details = this.details;
		return { status: this.status, body: envelope, headers: this.headers };
	}
}

export function invalidRequest(details: ErrorDetail[], message?: string): ApiError {
	const summary = details
		.slice(0, 3)
		.map((detail) => `${detail.field}: ${detail.message}`)
		.join('; ');
	return new ApiError(
		'invalid_request',
		message ?? `The request is invalid (${summary}${details.length > 3 ? '; …' : ''}).`,
		details,
	);
}
