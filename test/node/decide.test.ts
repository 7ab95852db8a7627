/**
 * Decide through n8n-core's engine against the sandbox: routing for every decision type,
 * uncertain and pending outputs, drift, local validation, rate limits and quota, error handling.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import * as resourceMapping from '../../nodes/DecisionService/methods/resource-mapping';
import { loadOptionsContext, outputNames, type EngineCredentials } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import type { SandboxExchange } from '../../sandbox/server';
import { decide, decideParameters, loadRoutes, locator, pairedIndexes } from './helpers';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';

let sb: TestSandbox;
const leaks: string[] = [];
/** What the service saw of each request, for the concurrency test. */
const exchanges: SandboxExchange[] = [];
const credentialsFor = (apiKey: string): EngineCredentials => ({ apiKey, baseUrl: sb.baseUrl });

beforeAll(async () => {
	sb = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
});
afterAll(async () => {
	await sb.close();
	// The API key must appear in no output item, error message or description of any run.
	for (const key of Object.values(DEMO_KEYS)) expect(leaks.join('\n')).not.toContain(key);
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
	exchanges.length = 0;
});

async function run(options: Parameters<typeof decide>[0]) {
	const result = await decide(options);
	leaks.push(result.serialised);
	return result;
}

const tickets: IDataObject[] = [
	{ subject: 'Refund', body: 'I was charged twice on my invoice, please refund the payment.' },
	{
		subject: 'App crash',
		body: 'The app crashes with an error every time I log in, bug since the last update.',
	},
	{
		subject: 'Pricing',
		body: 'We want a quote and pricing for 200 seats, can we talk to sales about a demo?',
	},
	{
		subject: 'Password',
		body: 'Please reset my password and change the email address of my account profile.',
	},
	{ subject: 'hello', body: 'hello' },
];

describe('route decisions', () => {
	it('sends each ticket to its option, the vague one to Uncertain (Free plan), with pairedItem', async () => {
		const credentials = credentialsFor(DEMO_KEYS.free);
		const routes = await loadRoutes('ticket-routing', credentials);
		const names = outputNames(decideParameters('ticket-routing', routes));
		expect(names).toEqual([...TICKET_ROUTING_OUTPUTS]);

		const result = await run({ slug: 'ticket-routing', routes, items: tickets, credentials });
		expect(result.error).toBeUndefined();
		expect(pairedIndexes(result.outputs)).toEqual([[0], [1], [2], [3], [4], [], []]);
		const billing = result.outputs[0][0].json;
		expect(billing.subject).toBe('Refund');
		expect((billing.decision as IDataObject).choice).toBe('billing');
		// Uncertain carries no answer to act on (the compact answer, Simplify's default).
		expect(result.outputs[4][0].json.decision).toMatchObject({ status: 'uncertain' });
		expect(result.outputs[4][0].json.decision).not.toHaveProperty('choice');
	});

	it('sends the vague ticket to Pending Review on a plan with human review', async () => {
		const credentials = credentialsFor(DEMO_KEYS.starter);
		const routes = await loadRoutes('ticket-routing', credentials);
		const result = await run({ slug: 'ticket-routing', routes, items: tickets, credentials });
		expect(pairedIndexes(result.outputs)).toEqual([[0], [1], [2], [3], [], [4], []]);
		expect((result.outputs[5][0].json.decision as IDataObject).review_url).toMatch(/^http/);
	});
});

describe('score decisions', () => {
	it('routes each lead to the level at round(raw_score), lowest first', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await loadRoutes('lead-scoring', credentials);
		expect(outputNames(decideParameters('lead-scoring', routes)).slice(0, 4)).toEqual([
			'cold',
			'warm',
			'hot',
			'sales-ready',
		]);
		const leads: IDataObject[] = [
			{
				message: 'Just browsing, not interested right now, maybe next year. Student project.',
				role: 'student',
			},
			{
				message:
					'We are ready to buy now: send the contract and invoice for 500 seats, budget approved, sign this week.',
				role: 'CTO',
				employees: 2000,
			},
		];
		const result = await run({
			slug: 'lead-scoring',
			routes,
			items: leads,
			credentials,
			// The full run: its legend and raw score are checked below.
			extra: { options: { simplify: false } },
		});
		const placed = pairedIndexes(result.outputs);
		expect(placed.flat().sort()).toEqual([0, 1]);
		for (let output = 0; output < 4; output++) {
			for (const item of result.outputs[output]) {
				const decision = item.json.decision as IDataObject;
				const legend = decision.legend as Record<string, string>;
				expect(legend[String(Math.round(decision.raw_score as number))]).toBe(
					['cold', 'warm', 'hot', 'sales-ready'][output],
				);
				expect(decision.level).toBe(['cold', 'warm', 'hot', 'sales-ready'][output]);
			}
		}
		expect(placed[0]).toContain(0);
		expect(placed[3]).toContain(1);
	});
});

describe('classify decisions', () => {
	it('sends an item to every retained label, and to No Label when none', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await loadRoutes('content-labels', credentials);
		const names = outputNames(decideParameters('content-labels', routes));
		expect(names.slice(-4)).toEqual(['No Label', 'Uncertain', 'Pending Review', 'Other']);
		const texts: IDataObject[] = [
			{ text: 'Limited offer!!! Buy cheap now, discount coupon, click here to win a free prize' },
			{ text: 'How do I export my data? Can you help?' },
			{ text: 'The weather report for Tuesday afternoon mentions light clouds over the lake' },
		];
		const result = await run({ slug: 'content-labels', routes, items: texts, credentials });
		expect(result.error).toBeUndefined();
		const labelNames = names.slice(0, -4);
		for (const [index] of texts.entries()) {
			const decision = result.outputs
				.flat()
				.find((item) => (item.pairedItem as { item: number }).item === index)?.json
				.decision as IDataObject;
			const retained = decision.labels as string[];
			const reached = result.outputs
				.map((items, output) =>
					items.some((item) => (item.pairedItem as { item: number }).item === index) ? output : -1,
				)
				.filter((output) => output >= 0);
			if (decision.status !== 'ok') continue;
			if (retained.length === 0) expect(reached).toEqual([labelNames.length]);
			else
				expect(reached).toEqual(
					retained.map((label) => labelNames.indexOf(label)).sort((a, b) => a - b),
				);
		}
		const first = result.outputs
			.flat()
			.filter((item) => (item.pairedItem as { item: number }).item === 0);
		expect(first.length).toBeGreaterThanOrEqual(2);
	});
});

describe('drift: the decision changes on the service after the workflow was saved', () => {
	it('keeps known keys on their outputs, sends the new key to Other, and a pinned version ignores it', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await loadRoutes('ticket-routing', credentials);
		const decision = await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing');
		await sb.control('POST', '/decisions/ticket-routing/versions', {
			key: DEMO_KEYS.pro,
			options: [
				...(decision.options ?? []).map((key) => ({ key })),
				{
					key: 'security',
					description:
						'Security incident, phishing, hacked account, vulnerability, data breach, stolen credentials.',
				},
			],
		});
		const items = [
			...tickets.slice(0, 3),
			{
				subject: 'Phishing',
				body: 'Security incident: phishing email, hacked account, stolen credentials and a data breach vulnerability.',
			},
		];
		const live = await run({ slug: 'ticket-routing', routes, items, credentials });
		const placed = pairedIndexes(live.outputs);
		expect(placed.slice(0, 3)).toEqual([[0], [1], [2]]);
		expect(placed[6]).toEqual([3]);
		expect((live.outputs[6][0].json.decision as IDataObject).choice).toBe('security');
		expect(placed.flat().sort()).toEqual([0, 1, 2, 3]);

		const pinned = await run({
			slug: 'ticket-routing',
			routes,
			items,
			credentials,
			extra: { options: { version: 1, simplify: false } },
		});
		expect(pairedIndexes(pinned.outputs)[6]).toEqual([]);
		for (const item of pinned.outputs.flat())
			expect((item.json.decision as IDataObject).version).toBe(1);
	});
});

describe('local validation', () => {
	it('fails the item missing a required field alone, naming field and item, spending no quota', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await loadRoutes('ticket-routing', credentials);
		const before = await sb.usage(DEMO_KEYS.pro);
		const items = [tickets[0], { body: 'no subject on this one' }, tickets[1]];
		const result = await run({
			slug: 'ticket-routing',
			routes,
			items,
			credentials,
			onError: 'continueErrorOutput',
		});
		const placed = pairedIndexes(result.outputs);
		expect(placed[0]).toEqual([0]);
		expect(placed[1]).toEqual([2]);
		const errorOutput = result.outputs[result.outputs.length - 1];
		expect(errorOutput).toHaveLength(1);
		expect(errorOutput[0].pairedItem).toEqual({ item: 1 });
		expect(errorOutput[0].json.error).toMatchObject({
			message: expect.stringMatching(/Field "subject" is required/),
			may_have_been_charged: false,
		});
		// (n8n merges the input item's fields back on the error output when a node precedes this
		// one: test/e2e shows it in real n8n.)
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before.used + 2);
	});

	it('names the item and the field when mapped fields miss a required value', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const context = loadOptionsContext(
			{ resource: 'decision', operation: 'decide', decision: locator('ticket-routing') },
			credentials,
		);
		const { fields } = await resourceMapping.getContextFields.call(context);
		const before = await sb.usage(DEMO_KEYS.pro);
		const result = await run({
			slug: 'ticket-routing',
			items: [{ title: 'Refund', text: 'charged twice on my invoice' }, { text: 'no title here' }],
			credentials,
			onError: 'continueErrorOutput',
			extra: {
				inputMode: 'mapFields',
				inputFields: {
					mappingMode: 'defineBelow',
					value: { subject: '={{ $json.title }}', body: '={{ $json.text }}' },
					matchingColumns: [],
					schema: fields,
				} as unknown as INodeParameters,
			},
		});
		expect(pairedIndexes(result.outputs)).toEqual([[0], [1]]);
		expect((result.outputs[1][0].json.error as IDataObject).message).toBe(
			'Field "subject" is required',
		);
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before.used + 1);
	});

	it('stops before any request when an item is invalid and errors are not continued', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const before = await sb.usage(DEMO_KEYS.pro);
		const result = await run({
			slug: 'ticket-routing',
			items: [tickets[0], { subject: 42, body: 'x' }],
			credentials,
		});
		expect(result.error?.message).toMatch(/Field "subject" must be a string/);
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before.used);
	});
});

describe('rate limit and quota', () => {
	it('decides 200 items on a Free key (30 per scaled minute) with no 429 reaching the user', async () => {
		await sb.control('POST', '/clock', { rate_window_ms: 1_500 });
		await sb.control('POST', '/usage', { key: DEMO_KEYS.free, used: 0 });
		// 200 items exceed Free's 100 a month: lift the quota for this account, keep its rate.
		await sb.control('POST', '/usage', { key: DEMO_KEYS.free, used: -150 });
		const credentials = credentialsFor(DEMO_KEYS.free);
		const items = Array.from({ length: 200 }, (_, index) => ({
			text: `Message number ${index}: how do I export my data?`,
		}));
		const result = await run({
			slug: 'content-labels',
			items,
			credentials,
			extra: { options: { concurrency: 8 } },
		});
		expect(result.error).toBeUndefined();
		expect(result.outputs[0]).toHaveLength(200);
		expect(pairedIndexes(result.outputs)[0]).toEqual(items.map((_, index) => index));
		expect(result.serialised).not.toContain('rate_limited');
	});

	it('fails fast with the reset date when the quota is spent', async () => {
		await sb.control('POST', '/usage', { key: DEMO_KEYS.free, used: 100 });
		const credentials = credentialsFor(DEMO_KEYS.free);
		const result = await run({
			slug: 'content-labels',
			items: [{ text: 'hello there' }],
			credentials,
		});
		const now = new Date();
		const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1))
			.toISOString()
			.slice(0, 10);
		expect(result.error?.message).toContain('100 of 100');
		expect(result.error?.message).toContain(reset);
		expect(result.error?.description).toMatch(/upgrade/i);
	});
});

describe('error handling', () => {
	it('continue on fail: failed items on Other with their pairedItem, successes unaffected', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await loadRoutes('ticket-routing', credentials);
		const result = await run({
			slug: 'ticket-routing',
			routes,
			items: [tickets[0], { subject: 'x' }, tickets[2]],
			credentials,
			onError: 'continueRegularOutput',
		});
		const placed = pairedIndexes(result.outputs);
		expect(placed[0]).toEqual([0]);
		expect(placed[2]).toEqual([2]);
		expect(placed[6]).toEqual([1]);
		// The failed item keeps its own fields, plus an error object.
		expect(result.outputs[6][0].json).toEqual({
			subject: 'x',
			error: expect.objectContaining({
				message: expect.stringContaining('"body" is required'),
				may_have_been_charged: false,
			}),
		});
	});

	it('never has more decides in flight at the service than Max Concurrency', async () => {
		const credentials = credentialsFor(DEMO_KEYS.scale);
		// Slow answers and a fast window (600 per 6 s): rate × latency asks for more than 4 in flight.
		await sb.control('POST', '/clock', { rate_window_ms: 6_000 });
		await sb.control('POST', '/faults', {
			seed: 1,
			rules: [{ method: 'POST', path: '^/v1/decide/', latency_ms: 150 }],
		});
		const items = Array.from({ length: 12 }, (_, index) => ({
			text: `Message number ${index}: how do I export my data?`,
		}));
		const result = await run({
			slug: 'content-labels',
			items,
			credentials,
			extra: { options: { concurrency: 4 } },
		});
		expect(result.outputs[0]).toHaveLength(12);
		const decides = exchanges.filter((exchange) => exchange.path.startsWith('/v1/decide/'));
		expect(decides).toHaveLength(12);
		// The most decides the service held at once: at each arrival, those not yet answered.
		const inFlight = decides.map(
			(arrival) =>
				decides.filter(
					(other) => other.receivedAt <= arrival.receivedAt && other.sentAt > arrival.receivedAt,
				).length,
		);
		expect(Math.max(...inFlight)).toBe(4);
	});

	it('without continue-on-fail, items not yet sent when a decide fails are never sent', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const before = await sb.usage(DEMO_KEYS.pro);
		// The first decide fails for good (a 409 is final; 5xx error answers are retried for free).
		await sb.control('POST', '/faults', {
			seed: 1,
			rules: [{ method: 'POST', path: '^/v1/decide/', status: 409, times: 1 }],
		});
		const items = Array.from({ length: 12 }, (_, index) => ({
			text: `Message number ${index}: how do I export my data?`,
		}));
		const result = await run({
			slug: 'content-labels',
			items,
			credentials,
			extra: { options: { concurrency: 2 } },
		});
		expect(result.error?.message).toMatch(/409/);
		// At most the one decide already in flight beside the failed one was charged.
		expect((await sb.usage(DEMO_KEYS.pro)).used - before.used).toBeLessThanOrEqual(1);
	});

	it('stopping the execution stops sending: no item starts after the cancel', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const before = await sb.usage(DEMO_KEYS.pro);
		// Each decide takes 300 ms; 12 items one at a time would take 3.6 s.
		await sb.control('POST', '/faults', {
			seed: 1,
			rules: [{ method: 'POST', path: '^/v1/decide/', latency_ms: 300 }],
		});
		const items = Array.from({ length: 12 }, (_, index) => ({
			text: `Message number ${index}: how do I export my data?`,
		}));
		await run({
			slug: 'content-labels',
			items,
			credentials,
			extra: { options: { concurrency: 1 } },
			cancelAfterMs: 900,
		});
		// Long enough for a node that went on after the cancel to send five more.
		await new Promise((resolve) => setTimeout(resolve, 1_500));
		// n8n aborts the request in flight; the node must neither resend it nor start the next items.
		// Two decides were answered before the cancel, a third may have reached the service.
		expect((await sb.usage(DEMO_KEYS.pro)).used - before.used).toBeLessThanOrEqual(3);
	});

	it('an API error on the error output keeps its pairedItem (decision not live)', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		await sb.client(DEMO_KEYS.pro).createDecision({
			name: 'Not Yet',
			type: 'route',
			instructions: 'Which?',
			options: ['a', 'b'],
			publish: false,
		});
		const result = await run({
			slug: 'not-yet',
			items: [{ text: 'one' }, { text: 'two' }],
			credentials,
			onError: 'continueErrorOutput',
		});
		const errors = result.outputs[result.outputs.length - 1];
		expect(errors.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(errors[0].json.error).toMatchObject({
			message: expect.stringMatching(/decision_not_live|not live/i),
			code: 'decision_not_live',
			may_have_been_charged: false,
		});
	});

	it("a service that cannot be reached fails with a connection message, through n8n's own HTTP helper", async () => {
		const closed = await startTestSandbox();
		const baseUrl = closed.baseUrl;
		await closed.close();
		const result = await run({
			slug: 'ticket-routing',
			items: [tickets[0]],
			credentials: { apiKey: DEMO_KEYS.pro, baseUrl },
			extra: { options: { validateInput: false } },
		});
		expect(result.error?.message).toMatch(
			/nothing answers at 127\.0\.0\.1:\d+ after 5 attempts \(connection refused\)\. Check the host and port/,
		);
		expect(result.error?.description).toMatch(/Check the base URL/);
	});

	it('a wrong key fails the node with an actionable message and no key in it', async () => {
		const key = 'dsk_test_wrong_key_for_tests';
		const result = await run({
			slug: 'ticket-routing',
			items: [tickets[0]],
			credentials: { apiKey: key, baseUrl: sb.baseUrl },
		});
		expect(result.error?.message).toMatch(/refused the API key/);
		expect(result.error?.description).toMatch(/Check the API key/);
		expect(result.serialised).not.toContain(key);
	});
});

describe('single output', () => {
	it('adds the result under the result field, simplified on request', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const parameters: INodeParameters = { options: { simplify: true, resultField: 'answer' } };
		const result = await run({
			slug: 'ticket-routing',
			items: tickets.slice(0, 2),
			credentials,
			extra: parameters,
		});
		expect(result.outputs).toHaveLength(1);
		expect(result.outputs[0].map((item) => item.json.answer)).toEqual([
			expect.objectContaining({
				choice: 'billing',
				status: 'ok',
				run_id: expect.any(String),
				confidence: expect.any(Number),
			}),
			expect.objectContaining({ choice: 'technical' }),
		]);
		// The compact answer (src/answer/item-answer.ts): the answer and what the loop measures, nothing else.
		expect(Object.keys(result.outputs[0][0].json.answer as IDataObject).sort()).toEqual([
			'choice',
			'confidence',
			'engine',
			'model',
			'probabilities',
			'run_id',
			'status',
		]);
	});
});
