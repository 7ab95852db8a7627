/**
 * What the scheduler decides (issue 18), through n8n-core's engine with default options, counted
 * at the service: a run the window's budget covers goes at once; a longer one goes window by
 * window with no 429 reaching the user and nothing charged twice; executions at once share the
 * key. Each case gets its own sandbox (so its own rate gate: the gate is per base URL and key in
 * the process). Nothing here depends on how fast the machine is: the first case's decides are
 * held at the service until all 100 arrived (a `hold_until` fault: an event, not a wait), so
 * "sent before any answer" holds only if the node sent them all without waiting for an answer
 * (otherwise the hold ends at its max wait with fewer arrived, and the order check fails); the
 * window counts are the service's own.
 */
import type { IDataObject } from 'n8n-workflow';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import type { FaultRule } from '../../sandbox/faults';
import type { SandboxExchange } from '../../sandbox/server';
import { decide } from './helpers';

const texts = (count: number, from = 0): IDataObject[] =>
	Array.from({ length: count }, (_, index) => ({
		text: `Message number ${from + index}: how do I export my data?`,
	}));

/** Decides accepted per window as the service counts them (a window opens at the first after the last ended). */
function perWindow(decides: SandboxExchange[], windowMs: number): number[] {
	const counts: number[] = [];
	let end = -Infinity;
	for (const exchange of [...decides].sort((a, b) => a.receivedAt - b.receivedAt)) {
		if (exchange.status !== 200) continue;
		if (exchange.receivedAt >= end) {
			counts.push(0);
			end = exchange.receivedAt + windowMs;
		}
		counts[counts.length - 1] += 1;
	}
	return counts;
}

/** Decides answered after `latencyMs` in the engine. */
const slowDecides = (latencyMs: number): FaultRule => ({
	latency_ms: latencyMs,
	latency_at: 'engine',
});

async function withSandbox<T>(
	setup: { windowMs?: number; decides: FaultRule },
	work: (sandbox: TestSandbox, decides: () => SandboxExchange[]) => Promise<T>,
): Promise<T> {
	const exchanges: SandboxExchange[] = [];
	const sandbox = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
	try {
		if (setup.windowMs) await sandbox.control('POST', '/clock', { rate_window_ms: setup.windowMs });
		await sandbox.control('POST', '/faults', {
			seed: 1,
			rules: [{ method: 'POST', path: '^/v1/decide/', ...setup.decides }],
		});
		return await work(sandbox, () =>
			exchanges.filter((exchange) => exchange.path.startsWith('/v1/decide/')),
		);
	} finally {
		await sandbox.close();
	}
}

const failedItems = (items: Array<{ json: IDataObject }>) =>
	items.filter((item) => item.json.error !== undefined);

describe('the scheduler in n8n (default options)', () => {
	it('a run the window covers goes at once: 100 items on Scale, all sent before any answer', async () => {
		// Every decide is held until the 100th arrived. The max wait only ends a run that never sends
		// the 100th before an answer; it stays under the node's default 15 s timeout, so such a run
		// fails on the checks below, not on timeouts.
		const hold = { hold_until: { arrivals: 100, max_wait_ms: 10_000 } };
		await withSandbox({ decides: hold }, async (sandbox, decides) => {
			const result = await decide({
				slug: 'content-labels',
				items: texts(100),
				credentials: { apiKey: DEMO_KEYS.scale, baseUrl: sandbox.baseUrl },
			});
			expect(result.error).toBeUndefined();
			expect(result.outputs[0]).toHaveLength(100);
			const sent = decides();
			expect(sent).toHaveLength(100);
			expect(sent.every((exchange) => exchange.status === 200)).toBe(true);
			// Every decide arrived before the first one was answered, and the hold was released by the
			// 100th arrival, not by its max wait.
			const lastArrival = Math.max(...sent.map((exchange) => exchange.receivedAt));
			const firstAnswer = Math.min(...sent.map((exchange) => exchange.sentAt));
			expect(lastArrival).toBeLessThan(firstAnswer);
			const faults = await sandbox.control<{ rules: Array<{ released_by: string }> }>(
				'GET',
				'/faults',
			);
			expect(faults.rules[0].released_by).toBe('arrivals');
		});
	});

	it('a run of 1 item sends one decide', async () => {
		await withSandbox({ decides: slowDecides(200) }, async (sandbox, decides) => {
			const result = await decide({
				slug: 'content-labels',
				items: texts(1),
				credentials: { apiKey: DEMO_KEYS.scale, baseUrl: sandbox.baseUrl },
			});
			expect(result.error).toBeUndefined();
			expect(decides().map((exchange) => exchange.status)).toEqual([200]);
		});
	});

	it('a run longer than the budget: at most the budget per window, no 429 to the user, each item charged once', async () => {
		const windowMs = 2_000;
		await withSandbox({ windowMs, decides: slowDecides(100) }, async (sandbox, decides) => {
			const before = (await sandbox.usage(DEMO_KEYS.free)).used;
			const result = await decide({
				slug: 'content-labels',
				items: texts(70),
				credentials: { apiKey: DEMO_KEYS.free, baseUrl: sandbox.baseUrl },
				onError: 'continueRegularOutput',
			});
			expect(result.error).toBeUndefined();
			expect(result.outputs[0]).toHaveLength(70);
			expect(failedItems(result.outputs[0])).toEqual([]);
			expect((await sandbox.usage(DEMO_KEYS.free)).used - before).toBe(70);
			const windows = perWindow(decides(), windowMs);
			expect(windows.reduce((sum, count) => sum + count, 0)).toBe(70);
			expect(Math.max(...windows)).toBeLessThanOrEqual(30);
			// The first window (nothing known yet) took its whole budget at once.
			expect(windows[0]).toBe(30);
		});
	});

	it('executions at once share the key’s budget: every item decided once, none failed', async () => {
		const windowMs = 2_000;
		await withSandbox({ windowMs, decides: slowDecides(100) }, async (sandbox, decides) => {
			const credentials = { apiKey: DEMO_KEYS.starter, baseUrl: sandbox.baseUrl };
			// One small run first, so the key's budget is known before the three at once.
			await decide({ slug: 'content-labels', items: texts(1), credentials });
			const runs = await Promise.all(
				[40, 40, 25].map((count, index) =>
					decide({
						slug: 'content-labels',
						items: texts(count, 100 * (index + 1)),
						credentials,
						onError: 'continueRegularOutput',
					}),
				),
			);
			for (const run of runs) {
				expect(run.error).toBeUndefined();
				expect(failedItems(run.outputs[0])).toEqual([]);
			}
			const windows = perWindow(decides(), windowMs);
			expect(windows.reduce((sum, count) => sum + count, 0)).toBe(106);
			expect(Math.max(...windows)).toBeLessThanOrEqual(60);
		});
	});
});
