/** One factory from an HTTP answer to an error class; the node's hints by class. */
import {
	AbortedError,
	DecisionNotLiveError,
	DecisionServiceError,
	GenerationFailedError,
	GenerationUnavailableError,
	InvalidRequestError,
	LocalValidationError,
	NetworkError,
	NotFoundError,
	PayloadTooLargeError,
	QuotaExceededError,
	RateLimitedError,
	RedirectError,
	ResponseFormatError,
	ServerError,
	TimeoutError,
	UnauthorizedError,
	errorFromResponse,
} from '../../src/client';
import { hintFor } from '../../nodes/DecisionService/errors';
import { parseAnswer } from '../../src/client/parse';
import { decisionListSchema, runAnswerSchema } from '../../src/contract';

const KEY = 'dsk_live_secret_key_1234';
const context = {
	label: 'decide on "ticket-routing"',
	now: Date.UTC(2026, 10, 22),
	rateWaitedMs: 0,
	secrets: [KEY],
	url: 'https://api.example.com/v1/decide/ticket-routing',
	retry: 'metered' as const,
};

function envelope(code: string, message = 'said the service', details?: unknown): string {
	return JSON.stringify({
		error: { code, message, ...(details === undefined ? {} : { details }) },
	});
}

function answer(status: number, body: string, headers: Record<string, string> = {}) {
	return errorFromResponse({ status, headers, body }, context);
}

type ErrorClass = abstract new (...args: never[]) => DecisionServiceError;

describe('errorFromResponse', () => {
	test.each<[string, number, string, Record<string, string>, ErrorClass, string]>([
		[
			'400 invalid_request',
			400,
			envelope('invalid_request', 'bad', [{ field: 'input.subject', message: 'is required' }]),
			{},
			InvalidRequestError,
			'invalid_request',
		],
		['400 invalid_json', 400, envelope('invalid_json'), {}, InvalidRequestError, 'invalid_json'],
		['401 unauthorized', 401, envelope('unauthorized'), {}, UnauthorizedError, 'unauthorized'],
		[
			'404 decision_not_found',
			404,
			envelope('decision_not_found'),
			{},
			NotFoundError,
			'decision_not_found',
		],
		[
			'409 decision_not_live',
			409,
			envelope('decision_not_live'),
			{},
			DecisionNotLiveError,
			'decision_not_live',
		],
		[
			'413 payload_too_large',
			413,
			envelope('payload_too_large'),
			{},
			PayloadTooLargeError,
			'payload_too_large',
		],
		[
			'422 generation_failed',
			422,
			envelope('generation_failed'),
			{},
			GenerationFailedError,
			'generation_failed',
		],
		[
			'502 generation_failed',
			502,
			envelope('generation_failed'),
			{},
			GenerationFailedError,
			'generation_failed',
		],
		[
			'503 generation_unavailable',
			503,
			envelope('generation_unavailable'),
			{},
			GenerationUnavailableError,
			'generation_unavailable',
		],
		[
			'429 quota_exceeded',
			429,
			envelope('quota_exceeded', 'quota', {
				used: 100,
				quota: 100,
				retry_after: 3600,
				upgrade_url: 'https://up',
			}),
			{},
			QuotaExceededError,
			'quota_exceeded',
		],
		[
			'429 rate_limited',
			429,
			envelope('rate_limited', 'slow down', { limit: 30, retry_after: 12 }),
			{ 'retry-after': '7' },
			RateLimitedError,
			'rate_limited',
		],
		[
			'429 without envelope is a rate limit',
			429,
			'Too Many Requests',
			{ 'retry-after': '3' },
			RateLimitedError,
			'rate_limited',
		],
		['500 with envelope', 500, envelope('internal_error'), {}, ServerError, 'internal_error'],
		['502 gateway page', 502, '<html>Bad Gateway</html>', {}, ServerError, 'http_502'],
		['503 empty body', 503, '', {}, ServerError, 'http_503'],
		['418 anything else', 418, 'teapot', {}, DecisionServiceError, 'http_418'],
	])('%s', (_name, status, body, headers, errorClass, code) => {
		const error = answer(status, body, headers);
		expect(error).toBeInstanceOf(errorClass);
		expect(error.constructor).toBe(errorClass);
		expect(error).toMatchObject({ status, code });
		expect(error.message).toMatch(/ticket-routing|Decision Service/);
	});

	it('a 3xx is a RedirectError naming the origin it pointed at, never the path or the key', () => {
		const error = answer(307, '', { location: 'https://elsewhere.example.net/steal?key=1' });
		expect(error).toBeInstanceOf(RedirectError);
		expect(error).toMatchObject({
			status: 307,
			code: 'redirect',
			location: 'https://elsewhere.example.net',
		});
		expect(error.message).toContain('redirect (307) to https://elsewhere.example.net.');
		expect(error.message).toContain('not followed');
		expect(error.mayHaveBeenCharged).toBe(false);
		const relative = answer(302, '', { location: '/v1/other' }) as RedirectError;
		expect(relative.location).toBe('https://api.example.com');
		expect(answer(301, '').message).toContain('to nowhere');
	});

	it("a decide answered 502/504/500 by a gateway may have been charged; the service's own errors not", () => {
		expect(answer(502, '<html>Bad Gateway</html>').mayHaveBeenCharged).toBe(true);
		expect(answer(504, '').mayHaveBeenCharged).toBe(true);
		expect(answer(503, '').mayHaveBeenCharged).toBe(false);
		expect(answer(500, envelope('internal_error')).mayHaveBeenCharged).toBe(false);
		expect(answer(500, envelope('internal_error')).answeredByService).toBe(true);
	});

	it('a 400 lists each problem by field', () => {
		const error = answer(
			400,
			envelope('invalid_request', 'bad', [{ field: 'input.subject', message: 'is required' }]),
		);
		expect((error as InvalidRequestError).problems).toEqual([
			{ field: 'input.subject', message: 'is required' },
		]);
		expect(error.message).toBe('decide on "ticket-routing" was refused: input.subject is required');
	});

	it('quota: used, quota, the reset date and the upgrade link', () => {
		const error = answer(
			429,
			envelope('quota_exceeded', 'q', {
				used: 100,
				quota: 100,
				retry_after: 86_400,
				upgrade_url: 'https://up',
			}),
		) as QuotaExceededError;
		expect(error).toMatchObject({
			used: 100,
			quota: 100,
			upgradeUrl: 'https://up',
			retryAfterSeconds: 86_400,
		});
		expect(error.resetsAt?.toISOString().slice(0, 10)).toBe('2026-11-23');
		expect(error.message).toContain('2026-11-23');
		expect(error.message).toContain('Nothing was charged');
	});

	it('rate limit: Retry-After header first, then the body', () => {
		expect(
			answer(429, envelope('rate_limited', 'r', { limit: 30, retry_after: 12 }), {
				'retry-after': '7',
			}),
		).toMatchObject({ retryAfterSeconds: 7, limit: 30 });
		expect(
			answer(429, envelope('rate_limited', 'r', { limit: 30, retry_after: 12 })),
		).toMatchObject({ retryAfterSeconds: 12 });
	});

	it('never carries the key, even when the service echoes it', () => {
		const error = answer(401, envelope('unauthorized', `key ${KEY} is revoked`));
		const server = answer(500, envelope('internal_error', `failed for ${KEY}`));
		expect(`${error.message}${JSON.stringify(error)}${server.message}`).not.toContain(KEY);
	});

	it('speaks of the service only, never of n8n or its editor', () => {
		const errors = [
			answer(400, envelope('invalid_request')),
			answer(401, envelope('unauthorized')),
			answer(404, envelope('decision_not_found')),
			answer(409, envelope('decision_not_live')),
			answer(429, envelope('rate_limited')),
			answer(
				429,
				envelope('quota_exceeded', 'q', {
					used: 1,
					quota: 1,
					retry_after: 1,
					upgrade_url: 'https://up',
				}),
			),
			answer(503, ''),
		];
		for (const error of errors) {
			expect(error.message).not.toMatch(/n8n|credential|option|"Version"|Max Wait|node/i);
		}
	});
});

describe('parseAnswer: a 2xx that is not the answer', () => {
	const response = (body: string) => ({ status: 200, headers: {}, body });
	const secrets = [KEY];
	// A decide (metered: a 2xx was charged) and a read.
	const parse = (body: string, metered: boolean): unknown =>
		metered
			? parseAnswer(response(body), runAnswerSchema, {
					label: 'decide on "ticket-routing"',
					secrets,
					mayHaveBeenCharged: true,
					changesState: false,
				})
			: parseAnswer(response(body), decisionListSchema, {
					label: 'list decisions',
					secrets,
					mayHaveBeenCharged: false,
					changesState: false,
				});
	const thrown = (run: () => unknown): ResponseFormatError => {
		try {
			run();
		} catch (error) {
			expect(error).toBeInstanceOf(ResponseFormatError);
			return error as ResponseFormatError;
		}
		throw new Error('no error');
	};

	it("an error envelope with 200 shows the service's code and message, never the key", () => {
		for (const metered of [true, false]) {
			const error = thrown(() =>
				parse(envelope('internal_error', `Database unavailable for ${KEY}.`), metered),
			);
			expect(error.message).toMatch(
				/with status 200 but an error instead of the answer \(internal_error\): Database unavailable for /,
			);
			expect(error.message).not.toContain(KEY);
			expect(error.mayHaveBeenCharged).toBe(metered);
		}
	});

	it('another wrong shape names the field', () => {
		expect(thrown(() => parse('{"decisions":{}}', false)).message).toMatch(
			/Unexpected answer to list decisions: field "decisions"/,
		);
		expect(thrown(() => parse('<html>', true)).message).toMatch(/not JSON/);
	});

	it('a create answered 2xx with a broken body says it was carried out, a read does not', () => {
		const create = thrown(() =>
			parseAnswer(response('<html>'), decisionListSchema, {
				label: 'create decision',
				secrets,
				mayHaveBeenCharged: false,
				changesState: true,
			}),
		);
		expect(create.message).toMatch(/not JSON\. The status says it was carried out: check before/);
		expect(thrown(() => parse('<html>', false)).message).not.toMatch(/carried out/);
	});
});

describe('the node’s hints, by class', () => {
	const init = { code: 'x', message: 'm' };
	test.each<[string, DecisionServiceError, RegExp]>([
		[
			'local refusal: nothing sent',
			new LocalValidationError({ ...init, problems: [] }),
			/No request was sent/,
		],
		['service refusal', new InvalidRequestError({ ...init, problems: [] }), /Fix the fields/],
		[
			'quota: the upgrade link',
			new QuotaExceededError({ ...init, upgradeUrl: 'https://up' }),
			/upgrade the plan: https:\/\/up/,
		],
		[
			'rate limit: the option to raise',
			new RateLimitedError({ ...init, waitedMs: 0 }),
			/Max Wait on Rate Limit/,
		],
		['unauthorized: the credential', new UnauthorizedError(init), /API key in the credential/],
		['not live: the Version option', new DecisionNotLiveError(init), /"Version"/],
		['not JSON: the base URL', new ResponseFormatError(init), /Base URL/],
		[
			'unexpected shape: update',
			new ResponseFormatError({ ...init, details: [] }),
			/update the package/,
		],
		[
			'timeout after sending: may have run',
			new TimeoutError({ ...init, timeoutMs: 1, mayHaveBeenCharged: true }),
			/may have run \(and charged\)/,
		],
		[
			'network before sending: base URL',
			new NetworkError({ ...init, mayHaveReachedServer: false }),
			/Check the base URL/,
		],
		[
			'network after sending: may have run',
			new NetworkError({ ...init, mayHaveReachedServer: true, mayHaveBeenCharged: true }),
			/may have run/,
		],
		['stopped', new AbortedError(init), /stopped/],
		[
			'a decision not found: the slug, nothing about runs',
			new NotFoundError({ ...init, code: 'decision_not_found' }),
			/^Check the slug of the decision[^]*list\.$/,
		],
		[
			'a run not found: the retention period',
			new NotFoundError({ ...init, code: 'run_not_found' }),
			/retention period/,
		],
		[
			'a not-found code named like a JavaScript property: the plain hint',
			new NotFoundError({ ...init, code: 'constructor' }),
			/^Check the slug or ID\.$/,
		],
	])('%s', (_name, error, hint) => {
		expect(hintFor(error)).toMatch(hint);
	});

	it('a local refusal is still an InvalidRequestError, told apart by its class', () => {
		const local = new LocalValidationError({ ...init, problems: [] });
		expect(local).toBeInstanceOf(InvalidRequestError);
		expect(hintFor(local)).not.toBe(hintFor(new InvalidRequestError({ ...init, problems: [] })));
	});
});
