/**
 * The in-flight count follows the latency (issue 12): the same key's rate with fast and with slow
 * answers, through n8n-core's engine with default options, counted at the service. Each case gets
 * its own sandbox, so its key's learned target (shared per base URL and key in the process) starts
 * from nothing.
 */
import type { IDataObject } from 'n8n-workflow';
import { DEMO_KEYS, startTestSandbox } from '../../harness/sandbox';
import type { SandboxExchange } from '../../sandbox/server';
import { decide } from './helpers';

/** The most decides the service held at once: at each arrival, those not yet answered. */
function peakInFlight(decides: SandboxExchange[]): number {
	return Math.max(
		...decides.map(
			(arrival) =>
				decides.filter(
					(other) => other.receivedAt <= arrival.receivedAt && other.sentAt > arrival.receivedAt,
				).length,
		),
	);
}

/**
 * Scale's 600 a window, the window scaled to 20 s: 30 decides a second. Little's law with the
 * controller's 50 % headroom: 30/s × latency × 1.5 in flight.
 */
async function runAtLatency(latencyMs: number, items: number) {
	const exchanges: SandboxExchange[] = [];
	const sandbox = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
	try {
		await sandbox.control('POST', '/clock', { rate_window_ms: 20_000 });
		await sandbox.control('POST', '/faults', {
			seed: 1,
			rules: [{ method: 'POST', path: '^/v1/decide/', latency_ms: latencyMs }],
		});
		const input: IDataObject[] = Array.from({ length: items }, (_, index) => ({
			text: `Message number ${index}: how do I export my data?`,
		}));
		const result = await decide({
			slug: 'content-labels',
			items: input,
			credentials: { apiKey: DEMO_KEYS.scale, baseUrl: sandbox.baseUrl },
		});
		const decides = exchanges.filter((exchange) => exchange.path.startsWith('/v1/decide/'));
		return { result, decides, peak: peakInFlight(decides) };
	} finally {
		await sandbox.close();
	}
}

describe('in-flight decides follow the latency (default options)', () => {
	it('keeps about rate × latency × 1.5 in flight: 9 at 200 ms, 36 at 800 ms, with no option set', async () => {
		const fast = await runAtLatency(200, 60);
		const slow = await runAtLatency(800, 150);
		for (const run of [fast, slow]) {
			expect(run.result.error).toBeUndefined();
			expect(run.result.outputs[0]).toHaveLength(run.decides.length);
			expect(run.decides.every((exchange) => exchange.status === 200)).toBe(true);
		}
		expect(fast.decides).toHaveLength(60);
		expect(slow.decides).toHaveLength(150);
		// 30/s × 0.2 s × 1.5 = 9 and 30/s × 0.8 s × 1.5 = 36, each plus what the first answers'
		// latency (a new connection, a cold engine) adds before the mean settles.
		expect(fast.peak).toBeGreaterThanOrEqual(6);
		expect(fast.peak).toBeLessThanOrEqual(15);
		expect(slow.peak).toBeGreaterThanOrEqual(27);
		expect(slow.peak).toBeLessThanOrEqual(48);
		expect(slow.peak).toBeGreaterThanOrEqual(2.5 * fast.peak);
	});
});
