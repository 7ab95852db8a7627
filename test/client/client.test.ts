/**
 * The typed client against the sandbox over real loopback HTTP: every operation, every error
 * class, and the retry discipline (nothing lost, nothing charged twice).
 */
import { createServer } from 'node:net';
import { createUndiciTransport, nodeSleep } from '../../harness/undici';
import {
	DecisionClient,
	DecisionNotLiveError,
	DecisionServiceError,
	GenerationFailedError,
	GenerationUnavailableError,
	InvalidRequestError,
	NetworkError,
	NotFoundError,
	PayloadTooLargeError,
	QuotaExceededError,
	RateLimitedError,
	ResponseFormatError,
	TimeoutError,
	UnauthorizedError,
	type Transport,
} from '../../src/client';
import { DEMO_KEYS, rawRequest, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { runSchema } from '../../src/contract';

let sb: TestSandbox;
/** Every error this file provokes, to check at the end that none carries a key. */
const seenErrors: unknown[] = [];

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

async function expectError<E extends DecisionServiceError>(
	promise: Promise<unknown>,
	type: new (...args: never[]) => E,
): Promise<E> {
	const error = await promise.then(
		() => undefined,
		(thrown: unknown) => thrown,
	);
	seenErrors.push(error);
	expect(error).toBeInstanceOf(type);
	return error as E;
}

/** The real undici transport, counting how many requests went out. */
function countingClient(
	key: string,
	options: Partial<ConstructorParameters<typeof DecisionClient>[0]> = {},
	baseUrl = sb.baseUrl,
) {
	const undici = createUndiciTransport({ apiKey: key });
	const calls: string[] = [];
	const transport: Transport = async (request) => {
		calls.push(`${request.method} ${new URL(request.url).pathname}`);
		return undici(request);
	};
	const client = new DecisionClient({
		baseUrl,
		transport,
		sleep: nodeSleep,
		rateGateKey: `${baseUrl}|${key}|${Math.random()}`,
		secrets: [key],
		retryBaseDelayMs: 20,
		...options,
	});
	return { client, calls, close: () => undici.close() };
}

const ticket = {
	subject: 'Charged twice',
	body: 'I was charged twice on my invoice this month, please refund the payment.',
};

describe('operations', () => {
	it('lists and gets decisions with their context fields', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		const decisions = await client.listDecisions();
		expect(decisions.map((d) => d.slug)).toEqual(
			expect.arrayContaining(['content-labels', 'lead-scoring', 'ticket-routing']),
		);
		const routing = await client.getDecision('ticket-routing');
		expect(routing.type).toBe('route');
		expect(routing.options).toEqual(expect.arrayContaining(['billing', 'technical', 'sales']));
		const subject = routing.context.fields.find((field) => field.name === 'subject');
		expect(subject).toMatchObject({ type: 'string', required: true });
		expect(routing.context.fields.find((field) => field.name === 'customer_email')?.pii).toBe(true);
	});

	it('lists templates in English by default and in French on request, all three types', async () => {
		const client = sb.client(DEMO_KEYS.free);
		const english = await client.listTemplates();
		const french = await client.listTemplates('fr');
		expect(english.locale).toBe('en');
		expect(french.locale).toBe('fr');
		expect(english.templates.length).toBeGreaterThanOrEqual(6);
		expect(new Set(english.templates.map((t) => t.type))).toEqual(
			new Set(['route', 'score', 'classify']),
		);
		expect(french.templates.map((t) => t.key).sort()).toEqual(
			english.templates.map((t) => t.key).sort(),
		);
		expect(french.templates[0].name).not.toBe(
			english.templates.find((t) => t.key === french.templates[0].key)?.name,
		);
	});

	it('decides on all three types with answers consistent with the probabilities', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		const route = await client.decide('ticket-routing', ticket);
		// Every answer of the sandbox conforms to the run the service promises.
		expect(runSchema.safeParse(route).success).toBe(true);
		expect(route.choice).toBe('billing');
		const best = Object.entries(route.probabilities ?? {}).sort((a, b) => b[1] - a[1])[0][0];
		expect(route.choice).toBe(best);

		const score = await client.decide('lead-scoring', {
			message: 'We are ready to buy 500 seats this week, send the contract',
			role: 'CTO',
			company: 'Acme',
			employees: 2000,
		});
		expect(score.score).toBeGreaterThanOrEqual(0);
		expect(score.score).toBeLessThanOrEqual(100);
		const levels = Object.keys(score.legend ?? {}).length;
		expect(score.score).toBeCloseTo(((score.raw_score ?? 0) / (levels - 1)) * 100, 0);

		const labels = await client.decide('content-labels', {
			text: 'Buy cheap pills now!!! Limited offer, click here to win a prize',
		});
		const decision = await client.getDecision('content-labels');
		expect(Array.isArray(labels.labels)).toBe(true);
		for (const label of decision.labels ?? []) {
			expect(labels.probabilities?.[label]).toBeDefined();
		}
	});

	it('creates decisions in all three shapes, idempotently on the slug', async () => {
		const client = sb.client(DEMO_KEYS.starter);
		const fromTemplate = await client.createDecision({
			template: (await client.listTemplates()).templates[0].key,
			name: 'From Template',
		});
		expect(fromTemplate).toMatchObject({
			created: true,
			status: 'live',
			live_version: 1,
			slug: 'from-template',
		});

		await sb.control('POST', '/config', { drafter: true });
		const drafted = await client.createDecision({
			describe: 'Route incoming emails to billing, technical or sales',
			name: 'Drafted',
		});
		expect(drafted).toMatchObject({ created: true, type: 'route' });
		expect(drafted.options).toEqual(expect.arrayContaining(['billing', 'technical', 'sales']));

		const definition = {
			name: 'Refund Requests',
			type: 'route' as const,
			instructions: 'Should this refund be approved?',
			options: 'Approve, Reject, Escalate To Manager',
		};
		const first = await client.createDecision(definition);
		expect(first).toMatchObject({
			created: true,
			slug: 'refund-requests',
			options: ['approve', 'reject', 'escalate-to-manager'],
		});
		const again = await client.createDecision({ ...definition, options: 'yes, no' });
		expect(again).toMatchObject({
			created: false,
			slug: 'refund-requests',
			options: ['approve', 'reject', 'escalate-to-manager'],
		});
	});

	it('sends feedback on a real run', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		const run = await client.decide('ticket-routing', ticket);
		const record = await client.sendFeedback(run.run_id, {
			feedback: 'correct',
			note: 'checked by hand',
		});
		expect(record).toEqual({ run_id: run.run_id, feedback: 'correct', note: 'checked by hand' });
	});
});

describe('errors: one class per case, with the service code', () => {
	it('401 unauthorized, without the key in the message', async () => {
		const key = 'dsk_test_not_a_real_key_123';
		const client = sb.client(key);
		const error = await expectError(client.listDecisions(), UnauthorizedError);
		expect(error).toMatchObject({ status: 401, code: 'unauthorized' });
		expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(key);
		await expectError(sb.client(DEMO_KEYS.revoked).listDecisions(), UnauthorizedError);
	});

	it('404 decision_not_found, version_not_found, template_not_found, run_not_found', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		expect((await expectError(client.getDecision('no-such-decision'), NotFoundError)).code).toBe(
			'decision_not_found',
		);
		expect(
			(await expectError(client.decide('ticket-routing', ticket, { version: 99 }), NotFoundError))
				.code,
		).toBe('version_not_found');
		expect(
			(await expectError(client.createDecision({ template: 'no-such-template' }), NotFoundError))
				.code,
		).toBe('template_not_found');
		expect(
			(
				await expectError(
					client.sendFeedback('run_missing', { feedback: 'correct' }),
					NotFoundError,
				)
			).code,
		).toBe('run_not_found');
	});

	it('409 decision_not_live for a draft', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		await client.createDecision({
			name: 'Draft Only',
			type: 'route',
			instructions: 'Which?',
			options: ['a', 'b'],
			publish: false,
		});
		const error = await expectError(client.decide('draft-only', 'some text'), DecisionNotLiveError);
		expect(error).toMatchObject({ status: 409, code: 'decision_not_live' });
	});

	it('400 invalid_request names the input field, and is not charged', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		const before = await sb.usage(DEMO_KEYS.pro);
		const error = await expectError(
			client.decide('ticket-routing', { body: 'no subject here' }),
			InvalidRequestError,
		);
		expect(error.status).toBe(400);
		expect(error.problems.map((problem) => problem.field)).toContain('input.subject');
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before.used);
	});

	it('a create request breaking the bounds is refused locally, naming the field', async () => {
		const { client, calls, close } = countingClient(DEMO_KEYS.pro);
		const error = await expectError(
			client.createDecision({
				name: 'x'.repeat(121),
				type: 'route',
				instructions: 'q',
				options: 'a, b',
			}),
			InvalidRequestError,
		);
		expect(error.problems[0].field).toBe('name');
		expect(calls).toEqual([]);
		await close();
	});

	it('400 invalid_json and the error envelope, as the wire shows them', async () => {
		const response = await rawRequest(sb.baseUrl, 'POST', '/decide/ticket-routing', {
			key: DEMO_KEYS.pro,
			body: '{"input": ',
		});
		expect(response.status).toBe(400);
		expect(response.json).toEqual({
			error: expect.objectContaining({ code: 'invalid_json', message: expect.any(String) }),
		});
	});

	it('413 payload_too_large over 1 MiB', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		const error = await expectError(
			client.decide('ticket-routing', { subject: 'big', body: 'x'.repeat(1024 * 1024 + 10) }),
			PayloadTooLargeError,
		);
		expect(error).toMatchObject({ status: 413, code: 'payload_too_large' });
	});

	it('503 generation_unavailable, then 422 generation_failed with a drafter', async () => {
		const client = sb.client(DEMO_KEYS.pro);
		const unavailable = await expectError(
			client.createDecision({ describe: 'Route tickets to billing or sales' }),
			GenerationUnavailableError,
		);
		expect(unavailable).toMatchObject({ status: 503, code: 'generation_unavailable' });
		await sb.control('POST', '/config', { drafter: true });
		const failed = await expectError(
			client.createDecision({ describe: 'Do something useful', name: 'Vague' }),
			GenerationFailedError,
		);
		expect(failed).toMatchObject({ status: 422, code: 'generation_failed' });
	});

	it('429 quota_exceeded fails at once with used, quota, reset date and upgrade link', async () => {
		const { client, calls, close } = countingClient(DEMO_KEYS.free);
		await sb.control('POST', '/usage', { key: DEMO_KEYS.free, used: 100 });
		const error = await expectError(client.decide('ticket-routing', ticket), QuotaExceededError);
		expect(error).toMatchObject({ status: 429, code: 'quota_exceeded', used: 100, quota: 100 });
		expect(error.upgradeUrl).toMatch(/^https?:\/\//);
		const now = new Date();
		const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
		expect(error.resetsAt?.toISOString().slice(0, 10)).toBe(nextMonth.toISOString().slice(0, 10));
		expect(error.message).toContain(nextMonth.toISOString().slice(0, 10));
		expect(calls).toHaveLength(1);
		await close();
	});

	it('a 2xx body that is not JSON is a ResponseFormatError', async () => {
		await sb.control('POST', '/faults', {
			rules: [{ method: 'GET', path: '^/v1/decisions$', malformed: true, times: 1 }],
		});
		const error = await expectError(sb.client(DEMO_KEYS.pro).listDecisions(), ResponseFormatError);
		expect(error.message).toContain('not JSON');
	});
});

describe('retry discipline', () => {
	it('waits out rate_limited and succeeds, charging once', async () => {
		await sb.control('POST', '/clock', { rate_window_ms: 2_000 });
		// Spend the whole Free budget of this window from outside the client.
		for (let index = 0; index < 30; index++) {
			const response = await rawRequest(sb.baseUrl, 'POST', '/decide/content-labels', {
				key: DEMO_KEYS.free,
				body: JSON.stringify({ input: { text: `hello ${index}` } }),
			});
			if (response.status !== 200) break;
		}
		const before = await sb.usage(DEMO_KEYS.free);
		const { client, calls, close } = countingClient(DEMO_KEYS.free);
		const run = await client.decide('ticket-routing', ticket);
		expect(run.choice).toBe('billing');
		expect(calls.length).toBeGreaterThanOrEqual(2);
		expect((await sb.usage(DEMO_KEYS.free)).used).toBe(before.used + 1);
		await close();
	});

	it('gives up on a rate limit beyond the wait budget with RateLimitedError', async () => {
		await sb.control('POST', '/clock', { rate_window_ms: 60_000 });
		for (let index = 0; index < 30; index++) {
			await rawRequest(sb.baseUrl, 'POST', '/decide/content-labels', {
				key: DEMO_KEYS.free,
				body: JSON.stringify({ input: { text: `hi ${index}` } }),
			});
		}
		const { client, calls, close } = countingClient(DEMO_KEYS.free, { maxRateLimitWaitMs: 500 });
		const error = await expectError(client.decide('ticket-routing', ticket), RateLimitedError);
		expect(error.code).toBe('rate_limited');
		expect(error.message).toMatch(/waited/);
		// Reads are not rate limited: the spent window holds decides, never the decision list.
		expect((await client.listDecisions()).length).toBeGreaterThan(0);
		expect(calls.filter((call) => call.startsWith('GET '))).toHaveLength(1);
		await close();
	});

	it('does not resend a decide whose connection dropped after the server ran it', async () => {
		await sb.control('POST', '/faults', {
			seed: 7,
			rules: [{ method: 'POST', path: '^/v1/decide/', reset: 'after', times: 1 }],
		});
		const before = await sb.usage(DEMO_KEYS.pro);
		const { client, calls, close } = countingClient(DEMO_KEYS.pro);
		const error = await expectError(client.decide('ticket-routing', ticket), NetworkError);
		expect(error.mayHaveReachedServer).toBe(true);
		expect(calls).toHaveLength(1);
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before.used + 1);
		await close();
	});

	it('retries a create after a 503 and creates it once', async () => {
		await sb.control('POST', '/faults', {
			seed: 7,
			rules: [{ method: 'POST', path: '^/v1/decisions$', status: 503, times: 1 }],
		});
		const { client, calls, close } = countingClient(DEMO_KEYS.pro);
		const created = await client.createDecision({
			name: 'After Outage',
			type: 'classify',
			instructions: 'Which labels?',
			labels: ['urgent'],
		});
		expect(created).toMatchObject({ created: true, slug: 'after-outage' });
		expect(calls).toEqual(['POST /v1/decisions', 'POST /v1/decisions']);
		const list = await client.listDecisions();
		expect(list.filter((decision) => decision.slug === 'after-outage')).toHaveLength(1);
		await close();
	});

	it('retries reads after a dropped connection, and a decide on an error answer (not charged)', async () => {
		await sb.control('POST', '/faults', {
			seed: 7,
			rules: [{ method: 'GET', path: '^/v1/decisions$', reset: 'before', times: 1 }],
		});
		const read = countingClient(DEMO_KEYS.pro);
		expect((await read.client.listDecisions()).length).toBeGreaterThan(0);
		expect(read.calls).toHaveLength(2);
		await read.close();

		// The service's own error answers are not charged (docs/api.md): a retry is free.
		for (const status of [503, 500]) {
			await sb.control('POST', '/faults', {
				seed: 7,
				rules: [{ method: 'POST', path: '^/v1/decide/', status, times: 1 }],
			});
			const before = (await sb.usage(DEMO_KEYS.pro)).used;
			const metered = countingClient(DEMO_KEYS.pro);
			const answer = await metered.client.decide('ticket-routing', ticket);
			expect(answer.choice).toBe('billing');
			expect(metered.calls).toHaveLength(2);
			expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before + 1);
			await metered.close();
		}
	});

	it('retries a decide that provably never reached a server (connection refused)', async () => {
		const port = await new Promise<number>((resolve) => {
			const probe = createServer().listen(0, '127.0.0.1', () => {
				const { port: free } = probe.address() as { port: number };
				probe.close(() => resolve(free));
			});
		});
		const { client, calls, close } = countingClient(
			DEMO_KEYS.pro,
			{ maxRetries: 2 },
			`http://127.0.0.1:${port}/v1`,
		);
		const error = await expectError(client.decide('ticket-routing', ticket), NetworkError);
		expect(error.mayHaveReachedServer).toBe(false);
		// In words a user can act on, with where it looked (never the path or the key).
		expect(error.message).toBe(
			`decide on "ticket-routing" failed: nothing answers at 127.0.0.1:${port} after 3 attempts (connection refused). Check the host and port of the Base URL, and that the service runs there.`,
		);
		expect(calls).toHaveLength(3);
		await close();
	});

	it('times out a slow decide and does not resend it', async () => {
		await sb.control('POST', '/faults', {
			seed: 7,
			rules: [{ method: 'POST', path: '^/v1/decide/', latency_ms: 1_500, times: 1 }],
		});
		const { client, calls, close } = countingClient(DEMO_KEYS.pro, { timeoutMs: 300 });
		const error = await expectError(client.decide('ticket-routing', ticket), TimeoutError);
		expect(error.timeoutMs).toBe(300);
		expect(calls).toHaveLength(1);
		await close();
	});
});

afterAll(() => {
	const text = seenErrors
		.map((error) =>
			error instanceof Error ? `${error.message} ${JSON.stringify(error)}` : String(error),
		)
		.join('\n');
	expect(seenErrors.length).toBeGreaterThan(10);
	for (const key of Object.values(DEMO_KEYS)) expect(text).not.toContain(key);
});
