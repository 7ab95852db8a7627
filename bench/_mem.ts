import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runNode } from '../test/support/n8n-engine';
import { decideParameters } from '../test/node/helpers';
import { DEMO_KEYS } from '../sandbox/server';
import type { INodeType } from 'n8n-workflow';
import { buildPackage, freePort, projectRoot } from '../scripts/lib/n8n-env';
async function main() {
	(globalThis as any).ONCE = process.env.ONCE;
	buildPackage();
	const { DecisionService } = require(join(projectRoot, 'dist/nodes/DecisionService/DecisionService.node.js')) as { DecisionService: new () => INodeType };
	const nodeType = new DecisionService();
	const port = await freePort();
	const sandbox = spawn(join(projectRoot, 'node_modules', '.bin', 'tsx'), ['sandbox/cli.ts', '--port', String(port)], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] });
	await new Promise<void>((resolve) => sandbox.stdout!.on('data', (c: Buffer) => c.toString().includes('/v1') && resolve()));
	const credentials = { apiKey: DEMO_KEYS.unlimited, baseUrl: `http://127.0.0.1:${port}/v1` };
	const n = Number(process.argv[2] ?? 10000);
	const items = Array.from({ length: n }, (_, i) => ({ text: `Message ${i}: how do I export my data? Limited offer inside.` }));
	const parameters = decideParameters('content-labels', undefined, { options: { concurrency: 20, simplify: true } });
	await runNode({ nodeType, parameters, items: items.slice(0, 200), credentials });
	(globalThis as any).gc?.();
	const m0 = process.memoryUsage();
	const peak = { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
	const timer = setInterval(() => { const m = process.memoryUsage(); for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], m[k]); }, 20);
	const live: string[] = [];
	const gcTimer = process.env.LIVE ? setInterval(() => { (globalThis as any).gc(); live.push((process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)); }, 1000) : undefined;
	const { Session } = require('node:inspector');
	const session = new Session(); session.connect();
	const post = (m: string, p?: object) => new Promise<any>((res, rej) => session.post(m, p ?? {}, (e: any, r: any) => (e ? rej(e) : res(r))));
	if (process.env.ALLOC) { await post('HeapProfiler.enable'); await post('HeapProfiler.startSampling', { samplingInterval: 16384, ...(process.env.ALLOC === 'all' ? { includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } : {}) }); }
	let midProfile: any;
	if (process.env.ALLOC && process.env.AT) setTimeout(() => { post('HeapProfiler.getSamplingProfile').then((r) => (midProfile = r.profile)); }, Number(process.env.AT));
	const r = await runNode({ nodeType, parameters, items, credentials });
	if (process.env.ALLOC) {
		const profile = midProfile ?? (await post('HeapProfiler.getSamplingProfile')).profile;
		await post('HeapProfiler.stopSampling');
		const self = new Map<string, number>();
		const walk = (node: any) => { const f = node.callFrame; const k = `${f.functionName || '(anon)'} ${f.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')}:${f.lineNumber + 1}`; self.set(k, (self.get(k) ?? 0) + node.selfSize); node.children.forEach(walk); };
		walk(profile.head);
		const total = [...self.values()].reduce((a, b) => a + b, 0);
		console.log('allocated MB (sampled)', (total / 2 ** 20).toFixed(0));
		for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((v / 2 ** 20).toFixed(1).padStart(7), k);
	}
	clearInterval(timer); if (gcTimer) clearInterval(gcTimer); console.log('live heap MB each second', live.join(' '));
	const mb = (x: number) => (x / 2 ** 20).toFixed(0);
	console.log('ok', r.outputs[0]?.length, 'before', Object.entries(m0).map(([k, v]) => `${k}=${mb(v)}`).join(' '));
	console.log('peak growth', Object.entries(peak).map(([k, v]) => `${k}=+${mb(v - (m0 as any)[k])}`).join(' '));
	(globalThis as any).gc?.();
	const m1 = process.memoryUsage();
	console.log('after gc (results still held)', Object.entries(m1).map(([k, v]) => `${k}=${mb(v)}`).join(' '));
	sandbox.kill();
}
main();
