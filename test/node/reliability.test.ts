/**
 * Promises under faults, in n8n-core's engine against the sandbox: n8n's own Retry On Fail never
 * charges an item twice, a free retry is taken, a pinned version is not refused by the live
 * version's fields, and every failed item says whether it may have been charged.
 */
import type { IDataObject } from 'n8n-workflow';
import type { EngineCredentials } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { decide, loadRoutes } from './helpers';

let sb: TestSandbox;
const credentials = (): EngineCredentials => ({ apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl });
const retryOnFail = { maxTries: 3, waitBetweenTries: 0 };

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => sb.close());
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

const texts = (count: number) =>
	Array.from({ length: count }, (_, index) => ({
		text: `Question ${index}: how do I export my data?`,
	}));

async function charged(work: () => Promise<unknown>): Promise<number> {
	const before = (await sb.usage(DEMO_KEYS.pro)).used;
	await work();
	return (await sb.usage(DEMO_KEYS.pro)).used - before;
}

describe("n8n's Retry On Fail", () => {
	it('re-runs the node without deciding again the items already answered: charged == items', async () => {
		// The third decide is refused for good once (not charged), which fails the first try.
		await sb.control('POST', '/faults', {
			seed: 3,
			rules: [{ method: 'POST', path: '^/v1/decide/', status: 409, times: 1 }],
		});
		const items = texts(12);
		let result: Awaited<ReturnType<typeof decide>> | undefined;
		const spent = await charged(async () => {
			result = await decide({
				slug: 'content-labels',
				items,
				credentials: credentials(),
				retryOnFail,
				extra: { options: { concurrency: 4 } },
			});
		});
		expect(result?.error).toBeUndefined();
		expect(result?.outputs[0]).toHaveLength(items.length);
		expect(spent).toBe(items.length);
	});

	it('never resends an item whose answer was lost after it was charged', async () => {
		// The first decide is handled (charged), then its connection is cut: no answer.
		await sb.control('POST', '/faults', {
			seed: 3,
			rules: [{ method: 'POST', path: '^/v1/decide/', reset: 'after', times: 1 }],
		});
		const items = texts(6);
		let result: Awaited<ReturnType<typeof decide>> | undefined;
		const spent = await charged(async () => {
			result = await decide({
				slug: 'content-labels',
				items,
				credentials: credentials(),
				retryOnFail,
				onError: 'continueRegularOutput',
				extra: { options: { concurrency: 2 } },
			});
		});
		// Every item was charged exactly once: the lost one is reported, never sent again.
		expect(spent).toBe(items.length);
		const failed = result!.outputs[0].filter((item) => item.json.error !== undefined);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toMatchObject({ may_have_been_charged: true });
		expect((failed[0].json.error as IDataObject).message).toMatch(/may have run \(and charged\)/);
		expect(failed[0].json.text).toBe(items[(failed[0].pairedItem as { item: number }).item].text);
	});

	it('decides anew an item whose input changed between two runs of one execution', async () => {
		const executionId = `changed-input-${Date.now()}`;
		const first = await charged(() =>
			decide({ slug: 'content-labels', items: texts(2), credentials: credentials(), executionId }),
		);
		const again = await charged(() =>
			decide({ slug: 'content-labels', items: texts(2), credentials: credentials(), executionId }),
		);
		const changed = await charged(() =>
			decide({
				slug: 'content-labels',
				items: [{ text: 'A different question about invoices' }, ...texts(2).slice(1)],
				credentials: credentials(),
				executionId,
			}),
		);
		expect([first, again, changed]).toEqual([2, 0, 1]);
	});
});

describe('free retries', () => {
	it("a decide answered with the service's error (503, 500) is retried and charged once", async () => {
		await sb.control('POST', '/faults', {
			seed: 5,
			rules: [
				// Spread over the items (no item gets them all).
				{ method: 'POST', path: '^/v1/decide/', status: 503, times: 3, probability: 0.3 },
				{ method: 'POST', path: '^/v1/decide/', status: 500, times: 2, probability: 0.3 },
			],
		});
		const items = texts(12);
		let result: Awaited<ReturnType<typeof decide>> | undefined;
		const spent = await charged(async () => {
			result = await decide({ slug: 'content-labels', items, credentials: credentials() });
		});
		expect(result?.error).toBeUndefined();
		expect(result?.outputs[0]).toHaveLength(items.length);
		expect(spent).toBe(items.length);
		const { rules } = (await sb.control('GET', '/faults')) as { rules: Array<{ fired: number }> };
		expect(rules.map((rule) => rule.fired)).toEqual([3, 2]);
	});
});

describe('pinned versions', () => {
	it('a v1 item is sent when the live v2 added a required field, and routed by v1', async () => {
		const routes = await loadRoutes('ticket-routing', credentials());
		await sb.control('POST', '/decisions/ticket-routing/versions', {
			key: DEMO_KEYS.pro,
			context: {
				fields: [
					{ name: 'subject', type: 'string', required: true },
					{ name: 'body', type: 'string', required: true },
					{ name: 'priority', type: 'string', required: true },
				],
			},
		});
		const result = await decide({
			slug: 'ticket-routing',
			routes,
			items: [{ subject: 'Refund', body: 'I was charged twice on my invoice, please refund.' }],
			credentials: credentials(),
			extra: { options: { version: 1, simplify: false } },
		});
		expect(result.error).toBeUndefined();
		expect((result.outputs[0][0].json.decision as IDataObject).version).toBe(1);
	});
});
