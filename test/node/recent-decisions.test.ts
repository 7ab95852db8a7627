/**
 * The decision a Decide node checks inputs against (issue 18), through n8n-core's engine, counted
 * at the service: executions within a minute ask for it once (webhooks bringing one item each sent
 * two requests per item before), a decision changed on the service in that minute never refuses an
 * input its new version accepts, a run after the minute waits for no read, and reading the items
 * before the checks keeps "the first item that fails is the one reported".
 */
import type { IDataObject } from 'n8n-workflow';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import type { SandboxExchange } from '../../sandbox/server';
import { runNode } from '../../harness/n8n-engine';
import { recentDecisions } from '../../src/client/recent-decisions';
import { decide, locator } from './helpers';

let sandbox: TestSandbox;
const exchanges: SandboxExchange[] = [];
const credentialsFor = (apiKey: string) => ({ apiKey, baseUrl: sandbox.baseUrl });
const asked = (slug: string) =>
	exchanges.filter(
		(exchange) => exchange.method === 'GET' && exchange.path === `/v1/decisions/${slug}`,
	);
const decided = (slug: string) =>
	exchanges.filter((exchange) => exchange.path === `/v1/decide/${slug}`);

/** A new version of ticket-routing (Pro's account) that no longer requires body. */
const bodyNoLongerRequired = () =>
	sandbox.control('POST', '/decisions/ticket-routing/versions', {
		key: DEMO_KEYS.pro,
		context: {
			fields: [
				{ name: 'subject', type: 'string', required: true },
				{ name: 'body', type: 'string' },
			],
		},
	});

const ticket = (index: number): IDataObject => ({
	subject: `Refund ${index}`,
	body: 'I was charged twice on my invoice, please refund the payment.',
});

beforeEach(async () => {
	// A sandbox per case: its base URL is new, so nothing fetched by another case is reused.
	exchanges.length = 0;
	sandbox = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
});
afterEach(async () => {
	await sandbox.close();
});

describe('the decision checked against', () => {
	it('is asked for once by 20 executions of one item each (at once, then again within the minute)', async () => {
		const credentials = credentialsFor(DEMO_KEYS.scale);
		const runs = await Promise.all(
			Array.from({ length: 20 }, (_, index) =>
				decide({ slug: 'ticket-routing', items: [ticket(index)], credentials }),
			),
		);
		for (const run of runs) expect(run.error).toBeUndefined();
		expect(asked('ticket-routing')).toHaveLength(1);
		expect(decided('ticket-routing')).toHaveLength(20);

		const later = await decide({ slug: 'ticket-routing', items: [ticket(20)], credentials });
		expect(later.error).toBeUndefined();
		expect(asked('ticket-routing')).toHaveLength(1);
		expect(decided('ticket-routing')).toHaveLength(21);
	});

	it('is asked for per key: another account fetches its own', async () => {
		for (const apiKey of [DEMO_KEYS.scale, DEMO_KEYS.pro]) {
			const run = await decide({
				slug: 'ticket-routing',
				items: [ticket(1)],
				credentials: credentialsFor(apiKey),
			});
			expect(run.error).toBeUndefined();
		}
		expect(asked('ticket-routing')).toHaveLength(2);
	});

	it('changed on the service within the minute: an input its new version accepts is fetched again and decided', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const first = await decide({ slug: 'ticket-routing', items: [ticket(1)], credentials });
		expect(first.error).toBeUndefined();
		await bodyNoLongerRequired();
		const usedBefore = (await sandbox.usage(DEMO_KEYS.pro)).used;
		const second = await decide({
			slug: 'ticket-routing',
			items: [{ subject: 'Refund: I was charged twice on my invoice' }],
			credentials,
		});
		expect(second.error).toBeUndefined();
		expect(second.outputs[0]).toHaveLength(1);
		// Refused against the kept copy, so asked again before refusing: then accepted and decided.
		expect(asked('ticket-routing')).toHaveLength(2);
		expect((await sandbox.usage(DEMO_KEYS.pro)).used).toBe(usedBefore + 1);
	});

	it('kept for over a minute: the next run decides at once on the kept copy, and the read goes beside it for the runs after', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const first = await decide({ slug: 'ticket-routing', items: [ticket(1)], credentials });
		expect(first.error).toBeUndefined();
		expect(asked('ticket-routing')).toHaveLength(1);
		await bodyNoLongerRequired();
		// Its next read is held at the service until the rules are replaced (an event, not a wait).
		await sandbox.control('POST', '/faults', {
			rules: [
				{
					method: 'GET',
					path: '^/v1/decisions/ticket-routing$',
					times: 2,
					hold_until: { arrivals: 2, max_wait_ms: 60_000 },
				},
			],
		});
		// Only Date moves (the kept copy's age); timers and I/O run as ever.
		jest.useFakeTimers({
			doNotFake: [
				'hrtime',
				'nextTick',
				'performance',
				'queueMicrotask',
				'requestAnimationFrame',
				'cancelAnimationFrame',
				'requestIdleCallback',
				'cancelIdleCallback',
				'setImmediate',
				'clearImmediate',
				'setInterval',
				'clearInterval',
				'setTimeout',
				'clearTimeout',
			],
			now: Date.now() + 61_000,
		});
		try {
			const second = await decide({ slug: 'ticket-routing', items: [ticket(2)], credentials });
			expect(second.error).toBeUndefined();
			expect(second.outputs.flat()).toHaveLength(1);
			// Decided and answered while the read is held at the service.
			expect(decided('ticket-routing')).toHaveLength(2);
			expect(asked('ticket-routing')).toHaveLength(1);
			const faults = await sandbox.control<{ rules: Array<{ held: number }> }>('GET', '/faults');
			expect(faults.rules[0].held).toBe(1);
			// Released: the node's process keeps the new copy once it arrives.
			await sandbox.control('POST', '/faults', { rules: [] });
			await recentDecisions.refreshed();
			expect(asked('ticket-routing')).toHaveLength(2);
			// The new copy serves the next run: an input without body is decided, not read again.
			const third = await decide({
				slug: 'ticket-routing',
				items: [{ subject: 'Refund: I was charged twice on my invoice' }],
				credentials,
			});
			expect(third.error).toBeUndefined();
			expect(decided('ticket-routing')).toHaveLength(3);
			expect(asked('ticket-routing')).toHaveLength(2);
		} finally {
			jest.useRealTimers();
		}
	});

	it('still refuses, after a fresh look, an input the decision does not accept (no quota spent)', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		await decide({ slug: 'ticket-routing', items: [ticket(1)], credentials });
		const usedBefore = (await sandbox.usage(DEMO_KEYS.pro)).used;
		const run = await decide({
			slug: 'ticket-routing',
			items: [{ subject: 'No body' }, { subject: 'No body either' }],
			credentials,
			onError: 'continueRegularOutput',
		});
		expect(run.error).toBeUndefined();
		const errors = run.outputs[0].map((item) => String((item.json.error as IDataObject)?.message));
		expect(errors[0]).toMatch(/^Field "body"/);
		expect(errors[1]).toMatch(/^Field "body"/);
		// One fresh look for the execution, not one per item.
		expect(asked('ticket-routing')).toHaveLength(2);
		expect((await sandbox.usage(DEMO_KEYS.pro)).used).toBe(usedBefore);
	});

	it('is read once by an Evaluate execution, fresh each time, for its report and its input checks', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const evaluate = () =>
			runNode({
				parameters: {
					resource: 'decision',
					operation: 'evaluate',
					decision: locator('ticket-routing'),
					inputMode: 'json',
					jsonInput: '={{ { "subject": $json.subject, "body": $json.body } }}',
					expected: '={{ $json.expected }}',
					targetAccuracy: 0.9,
					evaluateOptions: {},
				},
				items: [0, 1, 2].map((index) => ({ ...ticket(index), expected: 'billing' })),
				credentials,
			});
		expect((await evaluate()).error).toBeUndefined();
		expect(asked('ticket-routing')).toHaveLength(1);
		// Within the minute, a report is still about the decision as it is now: read again.
		expect((await evaluate()).error).toBeUndefined();
		expect(asked('ticket-routing')).toHaveLength(2);
		expect(decided('ticket-routing')).toHaveLength(6);
	});

	it('without continue-on-fail, the first item that fails is reported even when a later one fails to be read', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const run = await decide({
			slug: 'ticket-routing',
			// Item 1 lacks a required field (found by the check); item 2's JSON input is not an object
			// (found while reading, before any check).
			items: [ticket(0), { subject: 'No body' }, { subject: 'x', body: 'y' }],
			credentials,
			extra: { jsonInput: '={{ $itemIndex === 2 ? "not an object" : $json }}' },
		});
		expect(run.error?.message).toMatch(/^Field "body"/);
		expect(decided('ticket-routing')).toHaveLength(0);
	});
});
