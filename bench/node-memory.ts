/**
 * npm run bench:memory: what our node holds and what it allocates, inside n8n-core's engine (this
 * process, run with --expose-gc), with the sandbox in a child process. Unlimited plan, single
 * output, no latency. Flags: --items 10000, --concurrency 20.
 *
 * Prints, for one run of N items:
 * - the peak growth of RSS and of the V8 heap while the run goes (what `npm run bench` reports
 *   for real n8n, garbage not yet collected included);
 * - the live heap: a full collection every 250 ms during a second run shows what is really held
 *   (the node's items, results and requests in flight, and n8n's execution data);
 * - the bytes allocated during the run (V8's sampling heap profiler, collected objects included),
 *   split between our bundle and everything else (n8n's engine, expressions, HTTP helper).
 */
import { Session, type HeapProfiler } from 'node:inspector';
import { DEMO_KEYS } from '../sandbox/server';
import { decideParameters } from '../test/node/helpers';
import { runNode } from '../harness/n8n-engine';
import { BUNDLE, flag, loadBundledNode, spawnSandbox } from './setup';

const collectGarbage = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** Bytes allocated per script: ours (the bundle) and the rest. */
function allocatedBytes(profile: HeapProfiler.SamplingHeapProfile): {
	ours: number;
	total: number;
} {
	let ours = 0;
	let total = 0;
	const walk = (node: HeapProfiler.SamplingHeapProfileNode) => {
		total += node.selfSize;
		if (node.callFrame.url.includes(BUNDLE)) ours += node.selfSize;
		node.children.forEach(walk);
	};
	walk(profile.head);
	return { ours, total };
}

async function main(): Promise<void> {
	if (!collectGarbage) throw new Error('run with node --expose-gc (npm run bench:memory does)');
	const itemsCount = flag('items', 10_000);
	const concurrency = flag('concurrency', 20);
	const nodeType = loadBundledNode();
	const sandbox = await spawnSandbox();
	const session = new Session();
	try {
		const credentials = { apiKey: DEMO_KEYS.unlimited, baseUrl: sandbox.baseUrl };
		const items = Array.from({ length: itemsCount }, (_, index) => ({
			text: `Message ${index}: how do I export my data? Limited offer inside.`,
		}));
		const parameters = decideParameters('content-labels', undefined, {
			options: { concurrency, simplify: true },
		});
		// Warm-up: module loading, JIT.
		await runNode({ nodeType, parameters, items: items.slice(0, 200), credentials });

		session.connect();
		const post = <T>(method: string, params?: object) =>
			new Promise<T>((resolve, reject) =>
				session.post(method, params ?? {}, (error, result) =>
					error ? reject(error) : resolve(result as T),
				),
			);

		// Run 1: peak growth as the process sees it, garbage included.
		collectGarbage();
		const before = process.memoryUsage();
		let peakRss = before.rss;
		let peakHeap = before.heapUsed;
		const sampler = setInterval(() => {
			const now = process.memoryUsage();
			peakRss = Math.max(peakRss, now.rss);
			peakHeap = Math.max(peakHeap, now.heapUsed);
		}, 20);
		await post('HeapProfiler.enable');
		await post('HeapProfiler.startSampling', {
			samplingInterval: 16_384,
			includeObjectsCollectedByMajorGC: true,
			includeObjectsCollectedByMinorGC: true,
		});
		const ok =
			(await runNode({ nodeType, parameters, items, credentials })).outputs[0]?.length ?? 0;
		const { profile } = await post<{ profile: HeapProfiler.SamplingHeapProfile }>(
			'HeapProfiler.getSamplingProfile',
		);
		await post('HeapProfiler.stopSampling');
		clearInterval(sampler);
		const allocated = allocatedBytes(profile);

		// Run 2 (the first run's output released): the live heap, by a full collection every 250 ms.
		collectGarbage();
		const liveBefore = process.memoryUsage().heapUsed;
		let liveMax = liveBefore;
		const collector = setInterval(() => {
			collectGarbage();
			liveMax = Math.max(liveMax, process.memoryUsage().heapUsed);
		}, 250);
		const second = await runNode({ nodeType, parameters, items, credentials });
		clearInterval(collector);

		console.log(
			`${ok}/${itemsCount} items ok (and ${second.outputs[0]?.length ?? 0} in the second run), concurrency ${concurrency}`,
		);
		console.log(
			`peak growth while running: RSS +${mb(peakRss - before.rss)}, V8 heap +${mb(peakHeap - before.heapUsed)} (garbage not yet collected included)`,
		);
		console.log(
			`live heap, collected every 250 ms: at most +${mb(liveMax - liveBefore)} over the ${mb(liveBefore)} before the run`,
		);
		console.log(
			`allocated during the run: ${mb(allocated.total)} = ${(allocated.total / itemsCount / 1024).toFixed(0)} KB per item; our bundle ${mb(allocated.ours)} = ${(allocated.ours / itemsCount / 1024).toFixed(1)} KB per item`,
		);
	} finally {
		session.disconnect();
		sandbox.stop();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
