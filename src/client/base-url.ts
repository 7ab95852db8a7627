/**
 * The base URL of the API as a user typed it, checked: it must be http(s), end with the API
 * version `/v1`, and use https unless the host is this machine (the key travels in every request).
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** A neutral example of the API's address. */
export const EXAMPLE_BASE_URL = 'https://api.example.com/v1';
/** The local sandbox's address by default (docs/sandbox.md; sandbox/server.ts DEFAULT_PORT). */
export const SANDBOX_BASE_URL = 'http://127.0.0.1:8787/v1';

/** The URL without trailing slashes and surrounding spaces, or a sentence saying what is wrong. */
export function checkBaseUrl(
	raw: unknown,
): { ok: true; baseUrl: string } | { ok: false; problem: string } {
	const text = typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return {
			ok: false,
			problem: `Base URL "${text}" is not a URL; it looks like ${EXAMPLE_BASE_URL}.`,
		};
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { ok: false, problem: `Base URL must start with https:// (got ${url.protocol}).` };
	}
	if (!/\/v1$/.test(url.pathname)) {
		// Not `${url.origin}/v1`: for an address that is not the API (n8n's own, a web page) that
		// would be another address that is not the API either. The path is not repeated: a pasted
		// key may be in it.
		const typed = `${url.origin}${url.pathname === '/' ? '' : '/…'}`;
		return {
			ok: false,
			problem: `Base URL must end with the API version /v1: ${typed} is not the Decision Service API's address. It looks like ${EXAMPLE_BASE_URL} (the local sandbox, npm start: ${SANDBOX_BASE_URL}).`,
		};
	}
	if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
		return {
			ok: false,
			problem: `Base URL must use https:// (the API key travels with every request); plain http is only for this machine (localhost, 127.0.0.1).`,
		};
	}
	if (url.username || url.password || url.search || url.hash) {
		return {
			ok: false,
			problem: 'Base URL must not carry a user name, a password, a query or a fragment.',
		};
	}
	return { ok: true, baseUrl: text };
}
