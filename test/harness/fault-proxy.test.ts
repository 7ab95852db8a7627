/**
 * The fault proxy against the real sandbox: each fault does what it says, the sandbox sees (and
 * charges) exactly what was forwarded, and the counters add up.
 */
import {
	DECIDE_ROUTE,
	digestOf,
	startFaultProxy,
	sumOf,
	type FaultProxy,
	type FaultRule,
} from '../../harness/fault-proxy';
import { DEMO_KEYS, rawRequest, startTestSandbox, type TestSandbox } from '../../harness/sandbox';

const KEY = DEMO_KEYS.pro;
const TICKET = { input: { subject: 'Invoice', body: 'I was charged twice on my invoice' } };
const DECIDE = '/decide/ticket-routing';

let sb: TestSandbox;
let proxy: FaultProxy;

interface Answer {
	status: number;
	headers: Record<string, string>;
	text: string;
	json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
}

/** One request, no redirect followed; `timeoutMs` aborts it (a client that gives up). */
async function call(
	url: string,
	options: {
		method?: 'GET' | 'POST';
		body?: unknown;
		key?: string | null;
		timeoutMs?: number;
	} = {},
): Promise<Answer> {
	const body = options.body === undefined ? undefined : JSON.stringify(options.body);
	const key = options.key === undefined ? KEY : options.key;
	const method = options.method ?? (body === undefined ? 'GET' : 'POST');
	// undici's request follows no redirect: what the proxy answered is what the test sees.
	const answer = await rawRequest(url, method, '', {
		key: key ?? undefined,
		body,
		timeoutMs: options.timeoutMs ?? 20_000,
	});
	return answer as Answer;
}

const decide = (options: { base?: string; timeoutMs?: number } = {}) =>
	call(`${options.base ?? proxy.baseUrl}${DECIDE}`, { body: TICKET, timeoutMs: options.timeoutMs });

const used = async (): Promise<number> => (await sb.usage(KEY)).used;
const storedRuns = (): number =>
	sb.sandbox.store.snapshot().accounts.reduce((sum, account) => sum + account.runs.length, 0);

/** The proxy settled everything, then: requests received, forwarded, charged, lost. */
async function figures(scope = '') {
	await proxy.idle();
	const counters = proxy.counters(scope);
	return {
		received: sumOf(counters.received, DECIDE_ROUTE),
		forwarded: sumOf(counters.forwarded, DECIDE_ROUTE),
		charged: sumOf(counters.upstreamOk, DECIDE_ROUTE),
		lost: sumOf(counters.lostAfterAnswer, DECIDE_ROUTE),
		altered: sumOf(counters.altered, DECIDE_ROUTE),
	};
}

function script(...rules: FaultRule[]): void {
	proxy.script({ seed: 7, rules });
}

beforeAll(async () => {
	sb = await startTestSandbox();
	proxy = await startFaultProxy({ target: sb.sandbox.origin });
});

afterAll(async () => {
	await proxy?.close();
	await sb?.close();
});

beforeEach(async () => {
	await sb.control('POST', '/reset');
	proxy.reset();
});

describe('without faults', () => {
	it('forwards every request and answer as they are', async () => {
		const answer = await decide();
		expect(answer.status).toBe(200);
		expect(answer.json.choice).toBe('billing');
		expect(answer.headers['x-ratelimit-limit']).toBe('120');
		expect((await call(`${proxy.baseUrl}/decisions`)).json.decisions).toHaveLength(3);
		expect(await figures()).toEqual({ received: 1, forwarded: 1, charged: 1, lost: 0, altered: 0 });
		expect(proxy.counters().received).toEqual({
			'POST /v1/decide/ticket-routing': 1,
			'GET /v1/decisions': 1,
		});
		expect(proxy.exchanges().map((exchange) => exchange.outcome)).toEqual(['answered', 'answered']);
		expect(await used()).toBe(1);
	});

	it('passes the sandbox own errors through (a 401 is not charged)', async () => {
		const answer = await call(`${proxy.baseUrl}${DECIDE}`, { body: TICKET, key: 'dsk_test_nope' });
		expect(answer.status).toBe(401);
		expect(await figures()).toMatchObject({ received: 1, forwarded: 1, charged: 0 });
	});
});

describe('selection: per path and method, per request index, seeded', () => {
	const unavailable = { kind: 'error', status: 503, body: 'envelope' } as const;

	it('the 2nd, 5th and 8th POST /v1/decide/*; other routes do not count', async () => {
		script({ method: 'POST', path: /^\/v1\/decide\//, nth: [2, 5, 8], fault: unavailable });
		const statuses: number[] = [];
		for (let index = 0; index < 9; index += 1) {
			statuses.push((await decide()).status);
			expect((await call(`${proxy.baseUrl}/decisions`)).status).toBe(200);
		}
		expect(statuses).toEqual([200, 503, 200, 200, 503, 200, 200, 503, 200]);
		expect(await figures()).toMatchObject({ received: 9, forwarded: 6, charged: 6 });
		expect(proxy.counters().faults).toEqual({ error: 3 });
		expect(await used()).toBe(6);
	});

	it('every 3rd, at most twice', async () => {
		script({ path: '^/v1/decide/', every: 3, times: 2, fault: unavailable });
		const statuses: number[] = [];
		for (let index = 0; index < 10; index += 1) statuses.push((await decide()).status);
		expect(statuses).toEqual([200, 200, 503, 200, 200, 503, 200, 200, 200, 200]);
	});

	it('a probability draws from a seeded PRNG: the same seed fails the same requests', async () => {
		const pattern = async (seed: number): Promise<number[]> => {
			proxy.reset();
			proxy.script({
				seed,
				rules: [{ path: '^/v1/decide/', probability: 0.5, fault: unavailable }],
			});
			const statuses: number[] = [];
			for (let index = 0; index < 12; index += 1) statuses.push((await decide()).status);
			return statuses;
		};
		const first = await pattern(42);
		expect(first).toContain(503);
		expect(first).toContain(200);
		expect(await pattern(42)).toEqual(first);
	});

	it('a time window counts from the scope first request', async () => {
		script(
			{ path: '^/v1/decide/', duringMs: [0, 600_000], times: 2, fault: unavailable },
			{ path: '^/v1/decide/', duringMs: [600_000, Infinity], fault: unavailable },
		);
		const statuses: number[] = [];
		for (let index = 0; index < 3; index += 1) statuses.push((await decide()).status);
		expect(statuses).toEqual([503, 503, 200]);
	});

	it('the first rule that fires applies; a later rule still counts the request', async () => {
		script(
			{ path: '^/v1/decide/', nth: [1], fault: unavailable },
			{ path: '^/v1/decide/', nth: [1, 2], fault: { kind: 'error', status: 500, body: 'empty' } },
		);
		expect([(await decide()).status, (await decide()).status, (await decide()).status]).toEqual([
			503, 500, 200,
		]);
	});

	it('scopes: /m/<scope>/v1 has its own script, indexes and counters', async () => {
		proxy.script([{ path: '^/v1/decide/', nth: [1], fault: unavailable }], 'a');
		expect(proxy.baseUrlFor('a')).toBe(`${proxy.origin}/m/a/v1`);
		expect((await decide({ base: proxy.baseUrlFor('a') })).status).toBe(503);
		expect((await decide({ base: proxy.baseUrlFor('b') })).status).toBe(200);
		expect((await decide()).status).toBe(200);
		expect(await figures('a')).toMatchObject({ received: 1, forwarded: 0 });
		expect(await figures('b')).toMatchObject({ received: 1, forwarded: 1, charged: 1 });
		expect(await figures()).toMatchObject({ received: 1, forwarded: 1, charged: 1 });
		expect(() => proxy.baseUrlFor('no/slash')).toThrow(/scope/);
	});
});

describe('resets and hangs', () => {
	it('reset before forwarding: the client gets a reset, the sandbox never sees the request', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'reset', stage: 'before' } });
		await expect(decide()).rejects.toThrow();
		expect(await figures()).toEqual({ received: 1, forwarded: 0, charged: 0, lost: 0, altered: 0 });
		expect(proxy.exchanges()[0].outcome).toBe('dropped');
		expect(await used()).toBe(0);
		expect(storedRuns()).toBe(0);
	});

	it('reset after the sandbox answered: charged and stored, but no answer reached the client', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'reset', stage: 'after' } });
		await expect(decide()).rejects.toThrow();
		expect(await figures()).toEqual({ received: 1, forwarded: 1, charged: 1, lost: 1, altered: 0 });
		expect(proxy.exchanges()[0]).toMatchObject({ outcome: 'lost', upstreamStatus: 200 });
		expect(proxy.exchanges()[0].sentStatus).toBeUndefined();
		expect(await used()).toBe(1);
		expect(storedRuns()).toBe(1);
	});

	it('hang before forwarding: the client times out, nothing charged', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'hang', stage: 'before' } });
		await expect(decide({ timeoutMs: 300 })).rejects.toThrow();
		expect(await figures()).toMatchObject({ received: 1, forwarded: 0, charged: 0, lost: 0 });
		expect(proxy.exchanges()[0].outcome).toBe('dropped');
		expect(await used()).toBe(0);
	});

	it('hang after the sandbox answered: the client times out, the decide was charged', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'hang', stage: 'after' } });
		await expect(decide({ timeoutMs: 300 })).rejects.toThrow();
		expect(await figures()).toMatchObject({ received: 1, forwarded: 1, charged: 1, lost: 1 });
		expect(await used()).toBe(1);
	});

	it('a slow answer arrives; one slower than the client waits is lost after charging', async () => {
		script(
			{ path: '^/v1/decide/', nth: [1], fault: { kind: 'delay', ms: 50 } },
			{ path: '^/v1/decide/', nth: [2], fault: { kind: 'delay', ms: 30_000 } },
		);
		expect((await decide()).status).toBe(200);
		await expect(decide({ timeoutMs: 300 })).rejects.toThrow();
		expect(await figures()).toMatchObject({ received: 2, forwarded: 2, charged: 2, lost: 1 });
		expect(proxy.exchanges().map((exchange) => exchange.outcome)).toEqual(['answered', 'lost']);
		expect(await used()).toBe(2);
	});

	it('a delay before forwarding: the sandbox gets the request late, the client its answer', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'delay', ms: 50, stage: 'before' } });
		expect((await decide()).status).toBe(200);
		expect(await figures()).toMatchObject({ forwarded: 1, charged: 1, lost: 0 });
	});
});

describe('redirects', () => {
	it.each([301, 302, 307, 308] as const)(
		'%d to another origin: the canary records a client that follows with the key and the body',
		async (status) => {
			script({ path: '^/v1/decide/', nth: [1], fault: { kind: 'redirect', status, to: 'canary' } });
			const answer = await decide();
			expect(answer.status).toBe(status);
			expect(answer.headers.location).toBe(`${proxy.canary.origin}/v1${DECIDE}`);
			// A careless client follows it with the same request.
			const followed = await call(answer.headers.location, { body: TICKET });
			expect(followed.status).toBe(200);
			expect(followed.json).toMatchObject({ decision: 'ticket-routing', status: 'ok' });
			expect(followed.json.run_id).toMatch(/^run_canary/);

			const { canaryHits } = proxy.counters();
			expect(canaryHits).toEqual([
				{
					method: 'POST',
					url: `/v1${DECIDE}`,
					authorization: true,
					authorizationDigest: digestOf(`Bearer ${KEY}`),
					body: true,
					bodyBytes: JSON.stringify(TICKET).length,
					bodyDigest: digestOf(JSON.stringify(TICKET)),
				},
			]);
			expect(JSON.stringify(canaryHits)).not.toContain(KEY);
			expect(await figures()).toMatchObject({ received: 1, forwarded: 0, charged: 0 });
			expect(await used()).toBe(0);
		},
	);

	it('a request that reaches the canary without key or body is recorded as such', async () => {
		await call(`${proxy.canary.origin}/m/x/v1/decisions`, { key: null });
		expect(proxy.counters('x').canaryHits).toEqual([
			{ method: 'GET', url: '/m/x/v1/decisions', authorization: false, body: false, bodyBytes: 0 },
		]);
		expect(proxy.counters().canaryHits).toEqual([]);
	});

	it('a scope keeps its prefix in the canary location, so hits are counted per scope', async () => {
		proxy.script([{ fault: { kind: 'redirect', status: 307, to: 'canary' } }], 'run7');
		const answer = await decide({ base: proxy.baseUrlFor('run7') });
		expect(answer.headers.location).toBe(`${proxy.canary.origin}/m/run7/v1${DECIDE}`);
		await call(answer.headers.location, { body: TICKET });
		expect(proxy.counters('run7').canaryHits).toHaveLength(1);
		expect(proxy.counters().canaryHits).toHaveLength(0);
	});

	it('same origin: Location is the proxy itself, and following it reaches the sandbox', async () => {
		script({
			path: '^/v1/decide/',
			nth: [1],
			fault: { kind: 'redirect', status: 308, to: 'same-origin' },
		});
		const answer = await decide();
		expect(answer.status).toBe(308);
		expect(answer.headers.location).toBe(`${proxy.baseUrl}${DECIDE}`);
		expect((await call(answer.headers.location, { body: TICKET })).status).toBe(200);
		expect(await figures()).toMatchObject({ received: 2, forwarded: 1, charged: 1 });
		expect(proxy.counters().canaryHits).toEqual([]);
	});
});

describe('gateway and service errors (never forwarded)', () => {
	it.each([500, 502, 503, 504])('%d with the envelope, as HTML, and empty', async (status) => {
		script(
			{ path: '^/v1/decide/', nth: [1], fault: { kind: 'error', status, body: 'envelope' } },
			{ path: '^/v1/decide/', nth: [2], fault: { kind: 'error', status, body: 'html' } },
			{ path: '^/v1/decide/', nth: [3], fault: { kind: 'error', status, body: 'empty' } },
		);
		const envelope = await decide();
		expect(envelope.status).toBe(status);
		expect(envelope.headers['content-type']).toMatch(/^application\/json/);
		expect(envelope.json.error.code).toBe(
			{
				500: 'internal_error',
				502: 'bad_gateway',
				503: 'service_unavailable',
				504: 'gateway_timeout',
			}[status],
		);
		expect(typeof envelope.json.error.message).toBe('string');
		const html = await decide();
		expect(html.status).toBe(status);
		expect(html.headers['content-type']).toBe('text/html');
		expect(html.text).toContain(`<h1>${status} Gateway Error</h1>`);
		expect(html.json).toBeUndefined();
		const empty = await decide();
		expect(empty.status).toBe(status);
		expect(empty.text).toBe('');
		expect(await figures()).toMatchObject({ received: 3, forwarded: 0, charged: 0 });
		expect(await used()).toBe(0);
	});

	it('429 rate_limited carries the crafted headers exactly, and only those given', async () => {
		const httpDate = new Date(Date.now() + 120_000).toUTCString();
		const epoch = String(Math.floor(Date.now() / 1000) + 86_400);
		const cases: Array<{
			retryAfter?: string;
			limit?: string;
			remaining?: string;
			reset?: string;
		}> = [
			{ retryAfter: '0', remaining: '0', reset: '0', limit: '120' },
			{ retryAfter: '-5', reset: '-1' },
			{ retryAfter: '86400', reset: '86400' },
			{ retryAfter: 'soon', limit: 'lots', remaining: 'none', reset: 'later' },
			{ retryAfter: httpDate },
			{ reset: epoch, remaining: '0' },
			{},
		];
		script(
			...cases.map((headers, index) => ({
				path: '^/v1/decide/',
				nth: [index + 1],
				fault: { kind: 'rate-limited' as const, ...headers },
			})),
		);
		for (const headers of cases) {
			const answer = await decide();
			expect(answer.status).toBe(429);
			expect(answer.json.error.code).toBe('rate_limited');
			expect({
				retryAfter: answer.headers['retry-after'],
				limit: answer.headers['x-ratelimit-limit'],
				remaining: answer.headers['x-ratelimit-remaining'],
				reset: answer.headers['x-ratelimit-reset'],
			}).toEqual({
				retryAfter: headers.retryAfter,
				limit: headers.limit,
				remaining: headers.remaining,
				reset: headers.reset,
			});
		}
		expect(await figures()).toMatchObject({ received: cases.length, forwarded: 0 });
		expect(await used()).toBe(0);
	});

	it('429 quota_exceeded with the API details and Retry-After', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'quota-exceeded' } });
		const answer = await decide();
		expect(answer.status).toBe(429);
		expect(answer.json.error.code).toBe('quota_exceeded');
		expect(answer.json.error.details).toMatchObject({ used: 100, quota: 100 });
		expect(Number(answer.headers['retry-after'])).toBe(answer.json.error.details.retry_after);
		expect(await used()).toBe(0);
	});
});

describe('200 answers altered after the sandbox charged', () => {
	it.each([
		['an unknown engine', { engine: 'jev2' }],
		['an unknown confidence source', { confidence_source: 'x' }],
		['an unknown status', { status: 'escalated' }],
		['a choice the decision does not have', { choice: 'refunds' }],
		['a confidence out of range', { confidence: 1.7 }],
		['extra fields', { region: 'eu-west', debug: { trace: [1, 2] } }],
	])('%s', async (_case, set) => {
		script({ path: '^/v1/decide/', fault: { kind: 'patch', set } });
		const answer = await decide();
		expect(answer.status).toBe(200);
		expect(answer.json).toMatchObject(set);
		expect(answer.json.run_id).toMatch(/^run_/);
		expect(await figures()).toMatchObject({ forwarded: 1, charged: 1, altered: 1, lost: 0 });
		expect(await used()).toBe(1);
	});

	it('a score out of range on a score decision; a field removed', async () => {
		script({
			path: '^/v1/decide/',
			fault: { kind: 'patch', set: { score: 140 }, remove: ['legend'] },
		});
		const answer = await call(`${proxy.baseUrl}/decide/lead-scoring`, {
			body: { input: 'Budget approved: send the contract, we sign this week' },
		});
		expect(answer.json.score).toBe(140);
		expect(answer.json).not.toHaveProperty('legend');
		expect(answer.json.raw_score).toBeGreaterThan(2);
	});

	it('an error answer is not patched (only 2xx are)', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'patch', set: { engine: 'jev2' } } });
		const answer = await call(`${proxy.baseUrl}/decide/no-such-decision`, { body: TICKET });
		expect(answer.status).toBe(404);
		expect(answer.json).not.toHaveProperty('engine');
		expect(await figures()).toMatchObject({ forwarded: 1, charged: 0, altered: 0 });
	});

	it.each([
		['not-json', (answer: Answer) => expect(answer.json).toBeUndefined()],
		[
			'truncated',
			(answer: Answer) => {
				expect(answer.json).toBeUndefined();
				expect(answer.text.startsWith('{"run_id":"run_')).toBe(true);
			},
		],
		['error-envelope', (answer: Answer) => expect(answer.json.error.code).toBe('internal_error')],
		['empty', (answer: Answer) => expect(answer.text).toBe('')],
		[
			'json-array',
			(answer: Answer) => {
				expect(Array.isArray(answer.json)).toBe(true);
				expect(answer.json[0].run_id).toMatch(/^run_/);
			},
		],
	] as const)('replaced: %s, status 200, charged', async (body, check) => {
		script({ path: '^/v1/decide/', fault: { kind: 'replace', body } });
		const answer = await decide();
		expect(answer.status).toBe(200);
		check(answer);
		expect(await figures()).toMatchObject({ forwarded: 1, charged: 1, altered: 1, lost: 0 });
		expect(await used()).toBe(1);
	});

	it('cut: the body stops halfway and the connection closes; charged, the answer lost', async () => {
		script({ path: '^/v1/decide/', fault: { kind: 'replace', body: 'cut' } });
		await expect(decide()).rejects.toThrow();
		expect(await figures()).toMatchObject({ forwarded: 1, charged: 1, altered: 0, lost: 1 });
		expect(await used()).toBe(1);
	});
});

describe('counters over a mixed run', () => {
	it('received, forwarded, charged and lost add up with the sandbox usage', async () => {
		script(
			{ path: '^/v1/decide/', nth: [2], fault: { kind: 'reset', stage: 'before' } },
			{ path: '^/v1/decide/', nth: [3], fault: { kind: 'reset', stage: 'after' } },
			{ path: '^/v1/decide/', nth: [4], fault: { kind: 'error', status: 502, body: 'html' } },
			{ path: '^/v1/decide/', nth: [5], fault: { kind: 'patch', set: { engine: 'jev2' } } },
			{ path: '^/v1/decide/', nth: [6], fault: { kind: 'redirect', status: 302, to: 'canary' } },
		);
		const outcomes: string[] = [];
		for (let index = 0; index < 7; index += 1) {
			try {
				outcomes.push(String((await decide()).status));
			} catch {
				outcomes.push('error');
			}
		}
		expect(outcomes).toEqual(['200', 'error', 'error', '502', '200', '302', '200']);
		const result = await figures();
		expect(result).toEqual({ received: 7, forwarded: 4, charged: 4, lost: 1, altered: 1 });
		// Charged == answers the client got (200s from the sandbox, patched or not) + answers lost.
		expect(await used()).toBe(result.charged);
		expect(storedRuns()).toBe(result.charged);
		expect(proxy.counters().faults).toEqual({ reset: 2, error: 1, patch: 1, redirect: 1 });
		expect(proxy.exchanges().map((exchange) => exchange.outcome)).toEqual([
			'answered',
			'dropped',
			'lost',
			'injected',
			'altered',
			'injected',
			'answered',
		]);
	});
});
