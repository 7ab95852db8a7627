/** What the benchmarks share: their command-line flags, and for the n8n-core ones the bundle and a sandbox in its own process. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { INodeType } from 'n8n-workflow';
import { buildPackage, freePort, projectRoot } from '../harness/n8n-env';

/** `--name value` as a number, or the fallback. */
export function flag(name: string, fallback: number): number {
	const index = process.argv.indexOf(`--${name}`);
	return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

/** `--name value` as text, or undefined. */
export function option(name: string): string | undefined {
	const index = process.argv.indexOf(`--${name}`);
	return index > 0 ? process.argv[index + 1] : undefined;
}

export const BUNDLE = 'dist/nodes/DecisionService/DecisionService.node.js';

/** Builds dist/ and loads the node from the shipped bundle, as n8n loads it. */
export function loadBundledNode(): INodeType {
	buildPackage();
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle is CommonJS
	const { DecisionService } = require(join(projectRoot, BUNDLE)) as {
		DecisionService: new () => INodeType;
	};
	return new DecisionService();
}

/** The sandbox in a child process, so its work is not counted in this one's CPU or heap. */
export async function spawnSandbox(): Promise<{
	baseUrl: string;
	injectLatency(ms: number): Promise<void>;
	stop(): void;
}> {
	const port = await freePort();
	const child = spawn(
		join(projectRoot, 'node_modules', '.bin', 'tsx'),
		['sandbox/cli.ts', '--port', String(port)],
		{ cwd: projectRoot, stdio: ['ignore', 'pipe', 'inherit'] },
	);
	await new Promise<void>((resolve) =>
		child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('/v1') && resolve()),
	);
	const origin = `http://127.0.0.1:${port}`;
	return {
		baseUrl: `${origin}/v1`,
		async injectLatency(ms) {
			const response = await fetch(`${origin}/_control/faults`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					seed: 1,
					rules: [{ method: 'POST', path: '^/v1/decide/', latency_ms: ms }],
				}),
			});
			if (!response.ok) throw new Error(`could not inject latency: HTTP ${response.status}`);
		},
		stop: () => child.kill('SIGTERM'),
	};
}
