import {
	ERROR_STATUS,
	type ErrorCode,
	type ErrorDetail,
	type ErrorEnvelope,
} from '../src/contract';

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
