/**
 * What the client needs from the outside world. The n8n node builds these on n8n's helpers,
 * tests and scripts on undici; the client itself imports neither.
 */
export type HttpMethod = 'GET' | 'POST';

export interface TransportRequest {
	method: HttpMethod;
	/** Absolute URL. */
	url: string;
	headers: Record<string, string>;
	/** JSON text, already serialised. */
	body?: string;
	/** The transport fails with a TransportError of kind `timeout` after this long. */
	timeoutMs: number;
	signal?: AbortSignal;
}

export interface TransportResponse {
	status: number;
	/** Header names lower-case. */
	headers: Record<string, string>;
	body: string;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/** Response headers as a transport returns them: names lower-case, repeated values joined. */
export function flattenHeaders(
	raw: Record<string, string | string[] | number | undefined>,
): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(raw)) {
		if (value !== undefined)
			headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return headers;
}

/** Waits `ms`, rejecting early when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * How a request failed without an HTTP answer. The distinction matters for metered calls:
 * `connect` means the request provably never reached the server (refused, DNS), so even a decide
 * may be sent again; after `reset` or `timeout` the server may have run it.
 */
export type TransportFailure = 'connect' | 'reset' | 'timeout' | 'aborted';

export class TransportError extends Error {
	readonly kind: TransportFailure;
	/** A system code such as ECONNREFUSED, when one is known. */
	readonly code?: string;

	constructor(kind: TransportFailure, message: string, code?: string) {
		super(message);
		this.name = 'TransportError';
		this.kind = kind;
		this.code = code;
	}
}

/**
 * System error codes meaning the request was never sent: no connection, or a TLS handshake that
 * failed (certificates, protocol versions), so not a byte of the request left.
 */
const NEVER_CONNECTED_CODES = new Set([
	'EPROTO',
	'CERT_HAS_EXPIRED',
	'CERT_NOT_YET_VALID',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
	'ERR_TLS_CERT_ALTNAME_INVALID',
	'ERR_SSL_WRONG_VERSION_NUMBER',
	'ERR_INVALID_URL',
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set([
	'ETIMEDOUT',
	'ECONNABORTED',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
]);

/** Classifies a low-level error code (Node, undici or axios) as a transport failure. */
export function classifyTransportCode(code: string | undefined): TransportFailure {
	if (code && (NEVER_CONNECTED_CODES.has(code) || /^ERR_(SSL|TLS)_/.test(code))) return 'connect';
	if (code && TIMEOUT_CODES.has(code)) return 'timeout';
	if (code === 'ABORT_ERR' || code === 'ERR_CANCELED') return 'aborted';
	return 'reset';
}
