/**
 * Real n8n beside the sandbox, with this package installed the way n8n installs a community
 * package (its packed tarball extracted into <user folder>/.n8n/nodes, dev and peer
 * dependencies stripped, listed in that folder's package.json), a credential for the sandbox,
 * the example workflows imported and an owner account. Used by `npm start`, `npm run demo`, the
 * end-to-end and editor tests. Everything listens on 127.0.0.1 only.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import {
	closeSync,
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	readdirSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { INodeParameters } from 'n8n-workflow';
import { configuredOutputs } from '../nodes/DecisionService/outputs/plan';
import { ensureN8n, n8nNodeBinary, n8nVersion } from './n8n-install';

export const projectRoot = resolve(__dirname, '..');
export const PACKAGE_NAME = 'n8n-nodes-decision-service';
export const NODE_TYPE = `${PACKAGE_NAME}.decisionService`;
export const CREDENTIAL_ID = 'decisionServiceSandbox';
export const CREDENTIAL_NAME = 'Decision Service sandbox';
export const OWNER = {
	email: 'owner@example.com',
	password: 'Sandbox-Owner-1',
	firstName: 'Sandbox',
	lastName: 'Owner',
};
/** Fixed so a kept user folder can still read its credentials. Local demo only. */
const ENCRYPTION_KEY = 'decision-service-sandbox-demo-key';

const bin = (name: string) => join(projectRoot, 'node_modules', '.bin', name);

function run(
	command: string,
	args: string[],
	options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): string {
	const result = spawnSync(command, args, {
		cwd: options.cwd ?? projectRoot,
		env: options.env ?? process.env,
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
	});
	if (result.status !== 0) {
		throw new Error(
			`${command} ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}\n${result.stdout}`.slice(
				0,
				4000,
			),
		);
	}
	return result.stdout;
}

/** Binds `port` (0: any) on loopback and releases it; resolves the port, or undefined when taken. */
function probePort(port: number): Promise<number | undefined> {
	return new Promise((resolvePort) => {
		const probe = createServer();
		probe.once('error', () => resolvePort(undefined));
		probe.listen(port, '127.0.0.1', () => {
			const { port: bound } = probe.address() as { port: number };
			probe.close(() => resolvePort(bound));
		});
	});
}

/**
 * A free loopback port whose next port is free too: n8n takes `port + 1` for its task-runner
 * broker (n8nEnvironment), and parallel test files start several n8n processes at once.
 */
export async function freePort(): Promise<number> {
	for (let attempt = 0; attempt < 50; attempt++) {
		const port = await probePort(0);
		if (port !== undefined && port < 65535 && (await probePort(port + 1)) !== undefined)
			return port;
	}
	throw new Error('no free pair of loopback ports after 50 attempts');
}

/**
 * Runs `work` while holding a lock on dist/: test files run in parallel, and a build (tsup
 * empties dist/ first) must not overlap another build or a pack that reads dist/.
 */
function withDistLock<T>(work: () => T): T {
	const lock = join(projectRoot, 'node_modules', '.decision-service-dist.lock');
	const deadline = Date.now() + 5 * 60_000;
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch {
			// A lock older than two minutes belongs to a process that died mid-build.
			if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 120_000)
				rmSync(lock, { recursive: true, force: true });
			if (Date.now() > deadline) throw new Error(`dist/ stayed locked for 5 minutes (${lock})`);
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
		}
	}
	try {
		return work();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

/**
 * Builds dist/ (the tsup bundle n8n loads). With `copyTo`, also copies it there under the same
 * lock, for a caller that reads the files while other tests may be rebuilding dist/.
 */
export function buildPackage(copyTo?: string): void {
	withDistLock(() => {
		run(bin('tsup'), []);
		if (copyTo) cpSync(join(projectRoot, 'dist'), copyTo, { recursive: true });
	});
}

/** Builds dist/ and packs it: the tarball is exactly what npm would publish. */
export function packTarball(destination: string): string {
	mkdirSync(destination, { recursive: true });
	const output = withDistLock(() => {
		run(bin('tsup'), []);
		return run('npm', ['pack', '--json', '--pack-destination', destination, '--loglevel=error']);
	});
	const [{ filename }] = JSON.parse(output.slice(output.indexOf('['))) as Array<{
		filename: string;
	}>;
	return join(destination, filename);
}

/** Installs the tarball into `<userFolder>/.n8n/nodes` the way n8n's community package service does. */
export function installTarball(userFolder: string, tarball: string): void {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const packageDir = join(nodesDir, 'node_modules', PACKAGE_NAME);
	rmSync(packageDir, { recursive: true, force: true });
	mkdirSync(packageDir, { recursive: true });
	run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
	const manifestPath = join(packageDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, allowScripts, ...manifest } =
		JSON.parse(readFileSync(manifestPath, 'utf8'));
	void devDependencies;
	void peerDependencies;
	void optionalDependencies;
	void allowScripts;
	writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
	writeFileSync(
		join(nodesDir, 'package.json'),
		`${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: manifest.version } }, null, 2)}\n`,
	);
	// n8n runs an install in the package folder; with no dependencies it must add nothing.
	run(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
			'--loglevel=error',
		],
		{ cwd: packageDir },
	);
	const installed = existsSync(join(packageDir, 'node_modules'))
		? readdirSync(join(packageDir, 'node_modules')).filter((name) => !name.startsWith('.'))
		: [];
	if (installed.length)
		throw new Error(`the package pulled in runtime dependencies: ${installed.join(', ')}`);
}

export interface N8nInstance {
	url: string;
	port: number;
	userFolder: string;
	/** The n8n version this instance runs (see harness/n8n-install.ts). */
	version: string;
	/** Its `bin/n8n`. */
	bin: string;
	/** The Node.js that runs it (harness/n8n-install.ts: n8n before 1.100 refuses Node 24). */
	node: string;
	env: NodeJS.ProcessEnv;
	process?: ChildProcess;
	/** Runs an n8n CLI command against this user folder (n8n itself need not be running). */
	cli(args: string[]): string;
	/**
	 * The same without blocking this process (which may be serving the sandbox n8n talks to);
	 * `extraEnv` for a command run beside a started n8n (its own task-runner port, say).
	 */
	cliAsync(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<string>;
	stop(): Promise<void>;
}

export function n8nEnvironment(userFolder: string, port: number): NodeJS.ProcessEnv {
	return {
		...process.env,
		PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
		// Jest sets NODE_ENV=test, which silences n8n's CLI output.
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}`,
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		// 'info' at least: `n8n execute --rawOutput` prints the run through the logger.
		N8N_LOG_LEVEL: 'info',
		DB_SQLITE_POOL_SIZE: '2',
		N8N_RUNNERS_BROKER_PORT: String(port + 1),
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'true',
	};
}

/** Prepares a user folder: package installed from the tarball, sandbox credential, example workflows. */
export function prepareN8n(options: {
	userFolder: string;
	tarball: string;
	sandboxBaseUrl: string;
	apiKey: string;
	workflowsDir?: string;
	port: number;
	/** Default: `N8N_TEST_VERSION`, else the newest 2.x (harness/n8n-install.ts). */
	version?: string;
	/** Added to n8n's environment (e.g. the database and queue settings of queue mode). */
	env?: NodeJS.ProcessEnv;
}): N8nInstance {
	const version = options.version ?? n8nVersion();
	const n8n = ensureN8n(version);
	mkdirSync(options.userFolder, { recursive: true });
	installTarball(options.userFolder, options.tarball);
	const env = { ...n8nEnvironment(options.userFolder, options.port), ...options.env };
	const node = n8nNodeBinary(version);
	const cli = (args: string[]) => run(node, [n8n, ...args], { env });
	const cliAsync = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
		try {
			const { stdout } = await promisify(execFile)(node, [n8n, ...args], {
				env: { ...env, ...extraEnv },
				maxBuffer: 256 * 1024 * 1024,
			});
			return stdout;
		} catch (error) {
			const failed = error as { code?: number; stdout?: string; stderr?: string };
			throw new Error(
				`n8n ${args.join(' ')} failed (exit ${failed.code}):\n${failed.stderr ?? ''}\n${failed.stdout ?? ''}`.slice(
					0,
					4000,
				),
			);
		}
	};
	const credentialsFile = join(options.userFolder, 'credentials.json');
	writeFileSync(
		credentialsFile,
		JSON.stringify([
			{
				id: CREDENTIAL_ID,
				name: CREDENTIAL_NAME,
				type: 'decisionServiceApi',
				data: { apiKey: options.apiKey, baseUrl: options.sandboxBaseUrl },
			},
		]),
	);
	cli(['import:credentials', `--input=${credentialsFile}`]);
	rmSync(credentialsFile);
	if (options.workflowsDir)
		cli(['import:workflow', '--separate', `--input=${options.workflowsDir}`]);
	return {
		url: `http://127.0.0.1:${options.port}`,
		port: options.port,
		userFolder: options.userFolder,
		version,
		bin: n8n,
		node,
		env,
		cli,
		cliAsync,
		stop: async () => {},
	};
}

export async function waitFor(
	url: string,
	timeoutMs: number,
	child?: ChildProcess,
	lastOutput: () => string = () => '',
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child && child.exitCode !== null) {
			throw new Error(
				`n8n exited with code ${child.exitCode} before it was ready; its last output:\n${lastOutput()}`,
			);
		}
		try {
			const response = await fetch(url);
			if (response.ok) return;
		} catch {
			// not listening yet
		}
		await new Promise((resolveWait) => setTimeout(resolveWait, 250));
	}
	throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

/**
 * Starts `n8n start` for a prepared instance and sets up the owner account. The task-runner
 * broker's port was free when the instance was prepared, but seconds pass before n8n binds it and
 * any loopback connection of a parallel test may take it as its local port meanwhile: n8n then
 * stops at once ("Task Broker's port … is already in use"), and it is started again on another.
 */
export async function startN8n(
	instance: N8nInstance,
	options: { log?: (chunk: string) => void; nodeArgs?: string[] } = {},
): Promise<N8nInstance> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await startN8nOnce(instance, options);
		} catch (error) {
			const taken = /Task Broker's port \d+ is already in use/.test(String(error));
			const brokerPort = taken && attempt < 4 ? await probePort(0) : undefined;
			if (brokerPort === undefined || brokerPort === instance.port) throw error;
			instance = {
				...instance,
				env: { ...instance.env, N8N_RUNNERS_BROKER_PORT: String(brokerPort) },
			};
		}
	}
}

async function startN8nOnce(
	instance: N8nInstance,
	options: { log?: (chunk: string) => void; nodeArgs?: string[] },
): Promise<N8nInstance> {
	const child = spawn(instance.node, [...(options.nodeArgs ?? []), instance.bin, 'start'], {
		env: instance.env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const log = options.log ?? (() => {});
	// n8n answers /healthz/readiness before it is done starting; it prints this line after. n8n
	// 2.41 may still publish workflows in the background after it, so a published workflow's
	// webhook can answer 404 for some seconds: triggerWebhook (n8n-executions.ts) tries again.
	let printed = '';
	let activated = false;
	child.stdout?.on('data', (chunk: Buffer) => {
		log(chunk.toString());
		if (!activated) {
			printed = (printed + chunk.toString()).slice(-4096);
			activated = printed.includes('Editor is now accessible via');
		}
	});
	// What n8n said last, for the error when it stops before it is ready.
	let tail = '';
	const keep = (chunk: Buffer) => {
		tail = (tail + chunk.toString()).slice(-2000);
	};
	child.stdout?.on('data', keep);
	child.stderr?.on('data', (chunk: Buffer) => {
		keep(chunk);
		log(chunk.toString());
	});
	await waitFor(`${instance.url}/healthz/readiness`, 120_000, child, () => tail);
	const deadline = Date.now() + 120_000;
	while (!activated && Date.now() < deadline && child.exitCode === null)
		await new Promise((resolveWait) => setTimeout(resolveWait, 100));
	if (!activated) throw new Error('n8n did not finish starting (no "Editor is now accessible")');
	await setupOwner(instance.url);
	return {
		...instance,
		process: child,
		stop: () =>
			new Promise<void>((resolveStop) => {
				if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
				const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
				child.once('exit', () => {
					clearTimeout(timer);
					resolveStop();
				});
				child.kill('SIGTERM');
			}),
	};
}

/** The owner account, without the UI (n8n answers 404 unless a browser-id header is sent). */
export async function setupOwner(url: string): Promise<void> {
	const response = await fetch(`${url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': 'decision-service-setup' },
		body: JSON.stringify(OWNER),
	});
	// 400 once an owner exists (a kept user folder): fine.
	if (!response.ok && response.status !== 400)
		throw new Error(`owner setup answered ${response.status}: ${await response.text()}`);
}

/** Signs in and returns the session cookie, for REST calls a test makes as the owner. */
export async function signIn(url: string): Promise<string> {
	const response = await fetch(`${url}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': 'decision-service-setup' },
		// Older n8n (1.64 here) reads `email`, newer `emailOrLdapLoginId`; each ignores the other.
		body: JSON.stringify({
			email: OWNER.email,
			emailOrLdapLoginId: OWNER.email,
			password: OWNER.password,
		}),
	});
	if (!response.ok)
		throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
	const cookie = response.headers.getSetCookie().find((value) => value.startsWith('n8n-auth='));
	if (!cookie) throw new Error('sign-in set no n8n-auth cookie');
	return cookie.split(';')[0];
}

export interface WorkflowRun {
	/** Items per output index of each node that ran. */
	outputs: Record<string, Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }>>>;
	error?: { message: string; node?: string };
	raw: unknown;
}

/**
 * The run's JSON in `n8n execute --rawOutput`'s output: printed pretty (its braces at column 0)
 * between n8n's log lines, which a busy machine may also print after it with a brace at column 0
 * of their own; so each closing brace at column 0 is tried, last first.
 */
function runJsonIn(stdout: string): unknown {
	const start = stdout.startsWith('{') ? 0 : stdout.indexOf('\n{');
	if (start < 0) return undefined;
	for (let end = stdout.lastIndexOf('\n}'); end > start; end = stdout.lastIndexOf('\n}', end - 1)) {
		try {
			return JSON.parse(stdout.slice(start, end + 2));
		} catch {
			// Not the run's closing brace: try the one before.
		}
	}
	return undefined;
}

/**
 * Runs `n8n execute --id=… --rawOutput` with its standard output in a file, not a pipe: n8n exits
 * as soon as the run is printed, and on a busy machine the end of a large run still queued for a
 * pipe was lost (a cut JSON); Node writes to a file synchronously, so nothing is lost.
 */
async function executeToFile(
	instance: N8nInstance,
	workflowId: string,
	extraEnv: NodeJS.ProcessEnv = {},
): Promise<string> {
	const dir = mkdtempSync(join(tmpdir(), 'decision-service-execute-'));
	const file = join(dir, 'stdout.txt');
	const out = openSync(file, 'w');
	try {
		const child = spawn(
			instance.node,
			[instance.bin, 'execute', `--id=${workflowId}`, '--rawOutput'],
			{ env: { ...instance.env, ...extraEnv }, stdio: ['ignore', out, 'pipe'] },
		);
		let stderr = '';
		child.stderr?.on('data', (chunk: Buffer) => {
			stderr = (stderr + chunk.toString()).slice(-4000);
		});
		const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
			(resolveExit, reject) => {
				child.once('error', reject);
				child.once('close', (exitCode, exitSignal) => resolveExit([exitCode, exitSignal]));
			},
		);
		const stdout = readFileSync(file, 'utf8');
		// n8n 1.x on a loaded machine was seen killed by a signal while it shut down, after it had
		// printed the whole run: the run is what the tests read, so a complete one is taken.
		if (code === null && runJsonIn(stdout) !== undefined) return stdout;
		if (code !== 0)
			throw new Error(
				`n8n execute --id=${workflowId} failed (exit ${code}, signal ${signal}):\n${stderr}\n${stdout.slice(-2000)}`,
			);
		return stdout;
	} finally {
		closeSync(out);
		rmSync(dir, { recursive: true, force: true });
	}
}

/** `n8n execute --id=… --rawOutput`: the run's JSON, parsed. */
export async function executeWorkflow(
	instance: N8nInstance,
	workflowId: string,
	extraEnv?: NodeJS.ProcessEnv,
): Promise<WorkflowRun> {
	const stdout = await executeToFile(instance, workflowId, extraEnv);
	const parsed = runJsonIn(stdout);
	if (parsed === undefined)
		throw new Error(
			`n8n execute printed no run JSON:\n${stdout.slice(0, 3000)}\n…\n${stdout.slice(-3000)}`,
		);
	const raw = parsed as {
		data: {
			resultData: {
				runData: Record<
					string,
					Array<{
						data?: {
							main: Array<Array<{ json: Record<string, unknown>; pairedItem?: unknown }> | null>;
						};
					}>
				>;
				error?: { message: string; node?: { name: string } };
			};
		};
	};
	const outputs: WorkflowRun['outputs'] = {};
	for (const [name, tasks] of Object.entries(raw.data.resultData.runData)) {
		outputs[name] = (tasks[0]?.data?.main ?? []).map((items) => items ?? []);
	}
	const error = raw.data.resultData.error;
	return {
		outputs,
		error: error ? { message: error.message, node: error.node?.name } : undefined,
		raw,
	};
}

export interface ExampleWorkflow {
	id: string;
	name: string;
	file: string;
	nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }>;
}

export function exampleWorkflows(dir = join(projectRoot, 'examples')): ExampleWorkflow[] {
	return readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => ({
			file: join(dir, file),
			...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<ExampleWorkflow, 'file'>),
		}));
}

/** Output names of a Decision Service node, computed by the node's own outputs function. */
export function outputNamesOf(parameters: Record<string, unknown>): string[] {
	return configuredOutputs(parameters as INodeParameters).map(
		(output) => output.displayName ?? 'main',
	);
}
