/**
 * The transport floor of the latency-bound scenario: our client (src/client, the same limiter and
 * rate gate the node runs) against the sandbox without n8n, on two transports:
 * - `keep-alive`: undici with a pool of reused connections;
 * - `new-connection`: node:http with a fresh agent per request, which is how n8n's HTTP helper
 *   (n8n 2.41, @n8n/backend-network) connects, so every request pays a TCP connect and close.
 * It shows what the client achieves at concurrency C when the transport is not n8n's helper.
 *
 * Run in its own process (npm run bench starts it), so the sandbox's event loop is not shared:
 *   node --require tsx/cjs bench/floor.ts --base-url URL --key KEY --concurrency 20 --items 1000
 * Prints one JSON line: { transport: itemsPerSecond } and the failures.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createUndiciTransport, nodeSleep } from '../harness/undici';
import { DecisionClient, TransportError, flattenHeaders, type Transport } from '../src/client';
import { option } from './setup';

function argument(name: string): string {
	const value = option(name);
	if (value === undefined) throw new Error(`--${name} is required`);
	return value;
}

/** node:http, a new agent (so a new connection) per request, as n8n's helper does. */
function newConnectionTransport(apiKey: string): Transport {
	return (request) =>
		new Promise((resolve, reject) => {
			const outgoing = http.request(
				request.url,
				{
					method: request.method,
					headers: { ...request.headers, authorization: `Bearer ${apiKey}` },
					agent: new http.Agent({ keepAlive: false }),
					timeout: request.timeoutMs,
				},
				(response) => {
					let body = '';
					response.setEncoding('utf8');
					response.on('data', (chunk: string) => (body += chunk));
					response.on('end', () =>
						resolve({
							status: response.statusCode ?? 0,
							headers: flattenHeaders(response.headers),
							body,
						}),
					);
				},
			);
			outgoing.on('timeout', () =>
				outgoing.destroy(new TransportError('timeout', 'timed out', 'ETIMEDOUT')),
			);
			outgoing.on('error', (error: NodeJS.ErrnoException) =>
				reject(
					error instanceof TransportError
						? error
						: new TransportError('reset', 'Connection failed.', error.code),
				),
			);
			outgoing.end(request.body);
		});
}

async function throughput(
	transport: Transport,
	baseUrl: string,
	concurrency: number,
	items: number,
): Promise<{ itemsPerSecond: number; failed: number }> {
	const client = new DecisionClient({
		baseUrl,
		transport,
		sleep: nodeSleep,
		concurrency,
		rateGateKey: `floor-${Math.random()}`,
	});
	const inputs = Array.from({ length: items }, (_, index) => ({
		text: `Message ${index}: how do I export my data? Limited offer inside.`,
	}));
	const started = performance.now();
	const outcomes = await Promise.allSettled(
		inputs.map((input) => client.decide('content-labels', input)),
	);
	const seconds = (performance.now() - started) / 1000;
	const failed = outcomes.filter((outcome) => outcome.status === 'rejected').length;
	return { itemsPerSecond: (items - failed) / seconds, failed };
}

async function main(): Promise<void> {
	const baseUrl = argument('base-url');
	const apiKey = argument('key');
	const concurrency = Number(argument('concurrency'));
	const items = Number(argument('items'));
	const keepAlive = createUndiciTransport({ apiKey, connections: concurrency });
	try {
		// Warm-up: JIT and the first connections.
		await throughput(keepAlive, baseUrl, concurrency, Math.min(items, 100));
		const pooled = await throughput(keepAlive, baseUrl, concurrency, items);
		const fresh = await throughput(newConnectionTransport(apiKey), baseUrl, concurrency, items);
		console.log(
			JSON.stringify({
				'keep-alive': pooled.itemsPerSecond,
				'new-connection': fresh.itemsPerSecond,
				failed: pooled.failed + fresh.failed,
			}),
		);
	} finally {
		await keepAlive.close();
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
