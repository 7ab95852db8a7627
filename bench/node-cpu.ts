/**
 * npm run bench:cpu: CPU time of our node per item inside n8n-core's engine (this process), with
 * the sandbox in a child process so its work is not counted. Unlimited plan, single output.
 * Flags: --items 2000, --concurrency 10, --latency-ms 0 (injected on every decide, to see how close
 * the node stays to concurrency ÷ latency without n8n's server around it), --top 0 (print the N
 * functions with the most self time), --no-profile (no sampling profiler, which costs CPU itself:
 * use it for throughput figures).
 */
import { Session, type Profiler } from 'node:inspector';
import { performance } from 'node:perf_hooks';
import { runNode } from '../harness/n8n-engine';
import { decideParameters } from '../test/node/helpers';
import { DEMO_KEYS } from '../sandbox/server';
import { BUNDLE, flag, loadBundledNode, spawnSandbox } from './setup';

/** Self time of the profile's frames whose script URL matches, in ms. */
function selfTimeMs(profile: Profiler.Profile, matches: (url: string) => boolean): number {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	let microseconds = 0;
	profile.samples?.forEach((id, index) => {
		if (matches(byId.get(id)?.callFrame.url ?? ''))
			microseconds += profile.timeDeltas?.[index] ?? 0;
	});
	return microseconds / 1000;
}

/** The functions with the most self time, by script (idle and the profiler's own time included). */
function printTopFunctions(profile: Profiler.Profile, count: number): void {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const selfMicroseconds = new Map<string, number>();
	profile.samples?.forEach((id, index) => {
		const frame = byId.get(id)?.callFrame;
		if (!frame) return;
		const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '')}:${frame.lineNumber + 1}`;
		selfMicroseconds.set(
			name,
			(selfMicroseconds.get(name) ?? 0) + (profile.timeDeltas?.[index] ?? 0),
		);
	});
	for (const [name, microseconds] of [...selfMicroseconds]
		.sort((a, b) => b[1] - a[1])
		.slice(0, count)) {
		console.log(`${(microseconds / 1000).toFixed(0).padStart(6)} ms  ${name}`);
	}
}

async function main(): Promise<void> {
	const itemsCount = flag('items', 2000);
	const concurrency = flag('concurrency', 10);
	const latencyMs = flag('latency-ms', 0);
	const top = flag('top', 0);
	const profiling = !process.argv.includes('--no-profile');
	const nodeType = loadBundledNode();
	const sandbox = await spawnSandbox();
	try {
		if (latencyMs > 0) await sandbox.injectLatency(latencyMs);
		const credentials = { apiKey: DEMO_KEYS.unlimited, baseUrl: sandbox.baseUrl };
		const items = Array.from({ length: itemsCount }, (_, index) => ({
			text: `Message ${index}: how do I export my data? Limited offer inside.`,
		}));
		const parameters = decideParameters('content-labels', undefined, {
			options: { concurrency, simplify: true },
		});
		// Warm-up: module loading, JIT.
		await runNode({ nodeType, parameters, items: items.slice(0, 200), credentials });
		const session = new Session();
		session.connect();
		const post = <T>(method: string, params?: object) =>
			new Promise<T>((resolve, reject) =>
				session.post(method, params ?? {}, (error, result) =>
					error ? reject(error) : resolve(result as T),
				),
			);
		await post('Profiler.enable');
		if (profiling) await post('Profiler.start');
		const cpuBefore = process.cpuUsage();
		const started = performance.now();
		const result = await runNode({ nodeType, parameters, items, credentials });
		const wallMs = performance.now() - started;
		const cpu = process.cpuUsage(cpuBefore);
		const profile = profiling
			? (await post<{ profile: Profiler.Profile }>('Profiler.stop')).profile
			: undefined;
		session.disconnect();
		const ok = result.outputs[0]?.length ?? 0;
		const cpuMs = (cpu.user + cpu.system) / 1000;
		console.log(
			`${ok}/${itemsCount} items ok in ${(wallMs / 1000).toFixed(2)} s = ${((ok * 1000) / wallMs).toFixed(1)} items/s`,
		);
		if (latencyMs > 0)
			console.log(
				`ideal at concurrency ${concurrency} and ${latencyMs} ms latency: ${((concurrency * 1000) / latencyMs).toFixed(0)} items/s`,
			);
		console.log(
			`process CPU ${cpuMs.toFixed(0)} ms = ${(cpuMs / itemsCount).toFixed(3)} ms per item (n8n's engine, parameter expressions, n8n's HTTP helper and our node)`,
		);
		if (profile) {
			const ownMs = selfTimeMs(profile, (url) => url.includes(BUNDLE));
			console.log(
				`our node's own code (bundle self time, sampled): ${ownMs.toFixed(0)} ms = ${(ownMs / itemsCount).toFixed(3)} ms per item`,
			);
			if (top > 0) printTopFunctions(profile, top);
		}
	} finally {
		sandbox.stop();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
