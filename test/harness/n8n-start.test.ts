/**
 * startN8n (harness/n8n-env.ts) when the task-runner broker's port was taken between preparing
 * n8n and starting it (a loopback connection of a parallel test file can take it as its local
 * port: it failed a CI run once): n8n stops at once, and the harness starts it again on another
 * port. The port is taken here on purpose, by a listening server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	freePort,
	packTarball,
	prepareN8n,
	startN8n,
	type N8nInstance,
} from '../../harness/n8n-env';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';

jest.setTimeout(600_000);

let sandbox: TestSandbox | undefined;
let work: string | undefined;
let n8n: N8nInstance | undefined;
let squatter: Server | undefined;

afterAll(async () => {
	await n8n?.stop();
	await new Promise<void>((resolveClose) =>
		squatter ? squatter.close(() => resolveClose()) : resolveClose(),
	);
	await sandbox?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

it('starts n8n on another broker port when its own was taken meanwhile', async () => {
	sandbox = await startTestSandbox();
	work = mkdtempSync(join(tmpdir(), 'decision-service-start-'));
	const prepared = prepareN8n({
		userFolder: join(work, 'user'),
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sandbox.baseUrl,
		apiKey: DEMO_KEYS.pro,
		port: await freePort(),
	});
	const brokerPort = Number(prepared.env.N8N_RUNNERS_BROKER_PORT);
	squatter = createServer();
	await new Promise<void>((listening) => squatter!.listen(brokerPort, '127.0.0.1', listening));
	const output: string[] = [];
	n8n = await startN8n(prepared, { log: (chunk) => output.push(chunk) });
	expect(output.join('')).toContain(`Task Broker's port ${brokerPort} is already in use`);
	expect(Number(n8n.env.N8N_RUNNERS_BROKER_PORT)).not.toBe(brokerPort);
	expect((await fetch(`${n8n.url}/healthz/readiness`)).ok).toBe(true);
});
