/**
 * Every error the client throws, one class per case; `errorFromResponse` (beside this file) is the
 * one place where an HTTP answer becomes one of them. Messages are neutral (no n8n words: the node
 * adds its editor's hints, see nodes/DecisionService/errors.ts) and never carry the API key.
 */
import type { ErrorDetail } from '../contract';

export interface ErrorInit {
	message: string;
	status?: number;
	code: string;
	details?: unknown;
	/** True when the request reached the service and may have been counted against the quota. */
	mayHaveBeenCharged?: boolean;
	/** True when the body carried the service's own error envelope (a gateway's page does not). */
	answeredByService?: boolean;
}

/** Base of every error the client throws. Messages never carry the API key (see scrubSecrets). */
export class DecisionServiceError extends Error {
	readonly status?: number;
	readonly code: string;
	readonly details?: unknown;
	readonly mayHaveBeenCharged: boolean;
	readonly answeredByService: boolean;

	constructor(init: ErrorInit) {
		super(init.message);
		this.name = new.target.name;
		this.status = init.status;
		this.code = init.code;
		this.details = init.details;
		this.mayHaveBeenCharged = init.mayHaveBeenCharged ?? false;
		this.answeredByService = init.answeredByService ?? false;
	}
}

export class QuotaExceededError extends DecisionServiceError {
	readonly used?: number;
	readonly quota?: number;
	readonly retryAfterSeconds?: number;
	/** When the quota period ends (the first day of the next month, UTC). */
	readonly resetsAt?: Date;
	readonly upgradeUrl?: string;

	constructor(
		init: ErrorInit & {
			used?: number;
			quota?: number;
			retryAfterSeconds?: number;
			resetsAt?: Date;
			upgradeUrl?: string;
		},
	) {
		super(init);
		this.used = init.used;
		this.quota = init.quota;
		this.retryAfterSeconds = init.retryAfterSeconds;
		this.resetsAt = init.resetsAt;
		this.upgradeUrl = init.upgradeUrl;
	}
}

export class RateLimitedError extends DecisionServiceError {
	readonly limit?: number;
	readonly retryAfterSeconds?: number;
	/** How long the client already waited on this request before giving up. */
	readonly waitedMs: number;

	constructor(init: ErrorInit & { limit?: number; retryAfterSeconds?: number; waitedMs: number }) {
		super(init);
		this.limit = init.limit;
		this.retryAfterSeconds = init.retryAfterSeconds;
		this.waitedMs = init.waitedMs;
	}
}

export class UnauthorizedError extends DecisionServiceError {}
export class NotFoundError extends DecisionServiceError {}

/** 400 from the service. `problems` names each field. */
export class InvalidRequestError extends DecisionServiceError {
	readonly problems: ErrorDetail[];

	constructor(init: ErrorInit & { problems: ErrorDetail[] }) {
		super(init);
		this.problems = init.problems;
	}
}

/** A request the client refused to send: nothing left the process, nothing was charged. */
export class LocalValidationError extends InvalidRequestError {}

export class DecisionNotLiveError extends DecisionServiceError {}
export class PayloadTooLargeError extends DecisionServiceError {}
/** 422 or 502 `generation_failed`: the LLM could not draft a definition. */
export class GenerationFailedError extends DecisionServiceError {}
/** 503 `generation_unavailable`: drafting from a description is not configured on this environment. */
export class GenerationUnavailableError extends DecisionServiceError {}
/** Any other 5xx. */
export class ServerError extends DecisionServiceError {}
/** A 2xx body that is not what the contract says (names the field). */
export class ResponseFormatError extends DecisionServiceError {}

export class NetworkError extends DecisionServiceError {
	/** False when the request provably never reached the server. */
	readonly mayHaveReachedServer: boolean;

	constructor(init: ErrorInit & { mayHaveReachedServer: boolean }) {
		super(init);
		this.mayHaveReachedServer = init.mayHaveReachedServer;
	}
}

export class TimeoutError extends DecisionServiceError {
	readonly timeoutMs: number;

	constructor(init: ErrorInit & { timeoutMs: number }) {
		super(init);
		this.timeoutMs = init.timeoutMs;
	}
}

/**
 * A 3xx answer. The API has no redirects, and following one would send the key and the input to
 * another origin, so none is followed; `location` is the origin it pointed at.
 */
export class RedirectError extends DecisionServiceError {
	readonly location?: string;

	constructor(init: ErrorInit & { location?: string }) {
		super(init);
		this.location = init.location;
	}
}

/** The caller's signal aborted the call (a Stop, say). */
export class AbortedError extends DecisionServiceError {}

/** Replaces every occurrence of each secret in a text. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
	let scrubbed = text;
	for (const secret of secrets) {
		if (secret.length >= 4) scrubbed = scrubbed.split(secret).join('[redacted]');
	}
	return scrubbed;
}
