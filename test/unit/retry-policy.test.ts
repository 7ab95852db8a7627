/** The retry table (src/client/retry.ts) and the untrusted rate-limit headers (rate-headers.ts). */
import {
	DecisionServiceError,
	GenerationFailedError,
	ServerError,
	TransportError,
	classifyTransportCode,
} from '../../src/client';
import {
	mayHaveBeenCharged,
	mayRetryErrorAnswer,
	mayRetryTransportFailure,
	type ChargeOutcome,
	type RetryClass,
} from '../../src/client/retry';
import { rateLimitWaitMs, rateWindowOf, retryAfterMs } from '../../src/client/rate-headers';

const answered = (status: number, answeredByService: boolean, code = 'x') =>
	new ServerError({ status, code, message: 'm', answeredByService });

describe('retry table', () => {
	test.each<[string, DecisionServiceError, Record<RetryClass, boolean>]>([
		['503 with the envelope', answered(503, true), { metered: true, once: false, safe: true }],
		['500 with the envelope', answered(500, true), { metered: true, once: false, safe: false }],
		['502 with the envelope', answered(502, true), { metered: true, once: false, safe: true }],
		['503 from a gateway', answered(503, false), { metered: true, once: false, safe: true }],
		[
			'502 from a gateway: maybe charged',
			answered(502, false),
			{ metered: false, once: false, safe: true },
		],
		[
			'504 from a gateway: maybe charged',
			answered(504, false),
			{ metered: false, once: false, safe: true },
		],
		[
			'500 from a gateway: maybe charged',
			answered(500, false),
			{ metered: false, once: false, safe: false },
		],
		[
			'generation_failed is final',
			new GenerationFailedError({
				status: 502,
				code: 'generation_failed',
				message: 'm',
				answeredByService: true,
			}),
			{ metered: false, once: false, safe: false },
		],
		[
			'a 4xx is final',
			new DecisionServiceError({
				status: 409,
				code: 'decision_not_live',
				message: 'm',
				answeredByService: true,
			}),
			{ metered: false, once: false, safe: false },
		],
	])('%s', (_name, error, expected) => {
		for (const retry of ['metered', 'once', 'safe'] as const) {
			expect([retry, mayRetryErrorAnswer(retry, error)]).toEqual([retry, expected[retry]]);
		}
	});

	test.each<[string, TransportError, Record<RetryClass, boolean>]>([
		[
			'refused: never sent',
			new TransportError('connect', 'm', 'ECONNREFUSED'),
			{ metered: true, once: true, safe: true },
		],
		[
			'reset after sending',
			new TransportError('reset', 'm', 'ECONNRESET'),
			{ metered: false, once: false, safe: true },
		],
		['timeout', new TransportError('timeout', 'm'), { metered: false, once: false, safe: true }],
		[
			'aborted (Stop)',
			new TransportError('aborted', 'm'),
			{ metered: false, once: false, safe: false },
		],
	])('%s', (_name, failure, expected) => {
		for (const retry of ['metered', 'once', 'safe'] as const) {
			expect([retry, mayRetryTransportFailure(retry, failure)]).toEqual([retry, expected[retry]]);
		}
	});

	it('TLS and certificate failures happen before anything is sent', () => {
		for (const code of [
			'CERT_HAS_EXPIRED',
			'EPROTO',
			'ERR_TLS_CERT_ALTNAME_INVALID',
			'ERR_SSL_WRONG_VERSION_NUMBER',
			'DEPTH_ZERO_SELF_SIGNED_CERT',
		]) {
			expect([code, classifyTransportCode(code)]).toEqual([code, 'connect']);
		}
		expect(classifyTransportCode('ECONNRESET')).toBe('reset');
		expect(classifyTransportCode('HPE_INVALID_CONSTANT')).toBe('reset');
	});
});

describe('rate-limit headers are untrusted', () => {
	const now = Date.UTC(2026, 10, 22, 12, 0, 0);
	test.each<[string, string | undefined, number | undefined]>([
		['seconds', '7', 7_000],
		['decimal seconds', '2.5', 2_500],
		['zero: the minimum 1 s', '0', 1_000],
		['negative: ignored', '-5', undefined],
		['huge: one window', '86400', 60_000],
		['garbage: ignored', 'soon', undefined],
		['empty: ignored', '', undefined],
		['absent', undefined, undefined],
		['an HTTP date 30 s ahead', new Date(now + 30_000).toUTCString(), 30_000],
		['an HTTP date in the past: 1 s', new Date(now - 30_000).toUTCString(), 1_000],
		['an HTTP date a day ahead: one window', new Date(now + 86_400_000).toUTCString(), 60_000],
	])('Retry-After %s', (_name, value, expected) => {
		expect(retryAfterMs(value === undefined ? {} : { 'retry-after': value }, now)).toBe(expected);
	});

	test.each<[string, Record<string, string>, ReturnType<typeof rateWindowOf>]>([
		[
			'sane',
			{ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '40' },
			{ limit: 30, remaining: 12, resetSeconds: 40 },
		],
		[
			'garbage everywhere',
			{ 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': 'NaN', 'x-ratelimit-reset': 'later' },
			{ limit: undefined, remaining: undefined, resetSeconds: undefined },
		],
		[
			'negative',
			{ 'x-ratelimit-limit': '-1', 'x-ratelimit-remaining': '-3', 'x-ratelimit-reset': '-10' },
			{ limit: undefined, remaining: undefined, resetSeconds: undefined },
		],
		[
			'remaining above the limit',
			{ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '500' },
			{ limit: 30, remaining: 30, resetSeconds: undefined },
		],
		[
			'a reset of a day: one window',
			{ 'x-ratelimit-reset': '86400' },
			{ limit: undefined, remaining: undefined, resetSeconds: 60 },
		],
		[
			'a reset given as epoch seconds',
			{ 'x-ratelimit-reset': String(now / 1000 + 20) },
			{ limit: undefined, remaining: undefined, resetSeconds: 20 },
		],
		[
			'a zero limit is ignored',
			{ 'x-ratelimit-limit': '0' },
			{ limit: undefined, remaining: undefined, resetSeconds: undefined },
		],
	])('X-RateLimit-* %s', (_name, headers, expected) => {
		expect(rateWindowOf(headers, now)).toEqual(expected);
	});

	it('repeated 429s wait longer each time, never beyond one window', () => {
		expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => rateLimitWaitMs(1_000, n))).toEqual([
			1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000,
		]);
		expect(rateLimitWaitMs(undefined, 1)).toBe(1_000);
		expect(rateLimitWaitMs(30_000, 1)).toBe(30_000);
		expect(rateLimitWaitMs(10 ** 9, 1)).toBe(60_000);
	});
});

describe('mayHaveBeenCharged: the one charging rule beside the retry table', () => {
	test.each<[string, ChargeOutcome, boolean]>([
		['a 2xx answer', { kind: 'answered' }, true],
		['no answer, sent (reset, timeout)', { kind: 'no-answer', sent: true }, true],
		['no answer, never sent (refused, DNS, TLS)', { kind: 'no-answer', sent: false }, false],
		['the service’s own 500', { kind: 'error-answer', status: 500, fromService: true }, false],
		['a gateway’s 502', { kind: 'error-answer', status: 502, fromService: false }, true],
		['a gateway’s 503', { kind: 'error-answer', status: 503, fromService: false }, false],
		['a 429', { kind: 'error-answer', status: 429, fromService: true }, false],
		['a gateway’s 404', { kind: 'error-answer', status: 404, fromService: false }, false],
	])('a decide with %s: %s', (_name, outcome, charged) => {
		expect(mayHaveBeenCharged('metered', outcome)).toBe(charged);
		for (const retry of ['once', 'safe'] as const) {
			expect(mayHaveBeenCharged(retry, outcome)).toBe(false);
		}
	});
});
