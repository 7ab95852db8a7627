/**
 * n8n in queue mode, for real: Redis and PostgreSQL from Debian's packages (each its own
 * throw-away instance on a free loopback port), one n8n main that takes the webhooks and queues
 * the executions, and workers (`n8n worker`) that run them. The package is installed the way n8n
 * documents for queue mode: in the nodes folder of every process (each worker has its own user
 * folder, as on its own machine), so each worker loads its own copy of the node and its rate gate.
 *
 * `npm run n8n:install` installs redis-server and postgresql when they are missing.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	freePort,
	installTarball,
	n8nEnvironment,
	prepareN8n,
	startN8n,
	waitFor,
	type N8nInstance,
} from './n8n-env';
import {
	REDIS_SERVER,
	ensureN8n,
	missingDebianPackages,
	n8nVersion,
	postgresBinDir,
} from './n8n-install';

function missingServices(): string[] {
	return missingDebianPackages().filter((name) => name !== 'chromium');
}

/** PostgreSQL refuses to run as root: as root, its processes run as Debian's `postgres` user. */
function postgresUser(): { uid: number; gid: number } | undefined {
	if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
	const id = (flag: string) =>
		Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
	return { uid: id('-u'), gid: id('-g') };
}

function runChecked(
	command: string,
	args: string[],
	options: { uid?: number; gid?: number } = {},
): void {
	const result = spawnSync(command, args, { encoding: 'utf8', ...options });
	if (result.status !== 0)
		throw new Error(
			`${command} ${args.join(' ')} failed (exit ${result.status}):\n${result.stderr}\n${result.stdout}`.slice(
				0,
				3000,
			),
		);
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
	return new Promise((resolveStop) => {
		if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
		const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
		child.once('exit', () => {
			clearTimeout(timer);
			resolveStop();
		});
		child.kill(signal);
	});
}

/** Resolves once `check` passes, polling every 200 ms; fails after `timeoutMs` or when `child` exits. */
async function until(
	what: string,
	check: () => Promise<boolean> | boolean,
	timeoutMs: number,
	child?: ChildProcess,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child && child.exitCode !== null)
			throw new Error(`${what}: the process exited with code ${child.exitCode}`);
		if (await check()) return;
		await new Promise((resolveWait) => setTimeout(resolveWait, 200));
	}
	throw new Error(`${what}: not ready after ${timeoutMs} ms`);
}

function redisAnswersPing(port: number): Promise<boolean> {
	return new Promise((resolvePing) => {
		const socket = new Socket();
		const done = (ok: boolean) => {
			socket.destroy();
			resolvePing(ok);
		};
		socket.setTimeout(1000, () => done(false));
		socket.once('error', () => done(false));
		socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
		socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
	});
}

export interface QueueServices {
	redisPort: number;
	postgresPort: number;
	/** What every n8n process of the queue needs: queue mode, this Redis, this database. */
	env: NodeJS.ProcessEnv;
	/** Runs one SQL statement in the database; returns psql's unaligned output. */
	query(sql: string): string;
	stop(): Promise<void>;
}

/** A Redis and a PostgreSQL (database `n8n`, user `n8n`, trust on loopback) for one test. */
export async function startQueueServices(): Promise<QueueServices> {
	const missing = missingServices();
	if (missing.length)
		throw new Error(
			`queue mode needs ${missing.join(' and ')}: run \`npm run n8n:install\` (as root it installs them with apt-get)`,
		);
	const pgBin = postgresBinDir()!;
	const pgUser = postgresUser();
	// Its own folder under /tmp (not inside a root-only temp folder) so the postgres user can reach it.
	const pgRoot = mkdtempSync(join(tmpdir(), 'decision-service-pg-'));
	const dataDir = join(pgRoot, 'data');
	mkdirSync(dataDir);
	if (pgUser) {
		chownSync(pgRoot, pgUser.uid, pgUser.gid);
		chownSync(dataDir, pgUser.uid, pgUser.gid);
	}
	const children: ChildProcess[] = [];
	const stop = async () => {
		// Fast shutdown for PostgreSQL (SIGINT): it does not wait for n8n's connections to close.
		await Promise.all(
			children.map((child, index) => stopChild(child, index === 0 ? 'SIGINT' : 'SIGTERM')),
		);
		rmSync(pgRoot, { recursive: true, force: true });
	};
	try {
		runChecked(
			join(pgBin, 'initdb'),
			['-D', dataDir, '-U', 'n8n', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
			pgUser ?? {},
		);
		const postgresPort = await freePort();
		const postgres = spawn(
			join(pgBin, 'postgres'),
			[
				'-D',
				dataDir,
				'-p',
				String(postgresPort),
				'-k',
				pgRoot,
				'-c',
				'listen_addresses=127.0.0.1',
				// A throw-away database: durability buys nothing here.
				'-c',
				'fsync=off',
				'-c',
				'synchronous_commit=off',
				'-c',
				'full_page_writes=off',
			],
			{ stdio: ['ignore', 'ignore', 'pipe'], ...(pgUser ?? {}) },
		);
		children.push(postgres);
		const pgLog: string[] = [];
		postgres.stderr?.on('data', (chunk: Buffer) => pgLog.push(chunk.toString()));
		await until(
			`PostgreSQL on 127.0.0.1:${postgresPort} (${pgLog.join('').slice(-500)})`,
			() =>
				spawnSync(join(pgBin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(postgresPort)])
					.status === 0,
			60_000,
			postgres,
		);
		runChecked(join(pgBin, 'createdb'), [
			'-h',
			'127.0.0.1',
			'-p',
			String(postgresPort),
			'-U',
			'n8n',
			'n8n',
		]);

		const redisPort = await freePort();
		const redis = spawn(
			REDIS_SERVER,
			[
				'--port',
				String(redisPort),
				'--bind',
				'127.0.0.1',
				'--save',
				'',
				'--appendonly',
				'no',
				'--dir',
				pgRoot,
			],
			{ stdio: ['ignore', 'ignore', 'ignore'] },
		);
		children.push(redis);
		await until(
			`Redis on 127.0.0.1:${redisPort}`,
			() => redisAnswersPing(redisPort),
			30_000,
			redis,
		);

		return {
			redisPort,
			postgresPort,
			env: {
				EXECUTIONS_MODE: 'queue',
				// n8n's advice for queue mode: manual runs on the workers too, not on main.
				OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
				QUEUE_BULL_REDIS_HOST: '127.0.0.1',
				QUEUE_BULL_REDIS_PORT: String(redisPort),
				DB_TYPE: 'postgresdb',
				DB_POSTGRESDB_HOST: '127.0.0.1',
				DB_POSTGRESDB_PORT: String(postgresPort),
				DB_POSTGRESDB_DATABASE: 'n8n',
				DB_POSTGRESDB_USER: 'n8n',
				DB_POSTGRESDB_PASSWORD: '',
			},
			query: (sql) => {
				const result = spawnSync(
					join(pgBin, 'psql'),
					[
						'-h',
						'127.0.0.1',
						'-p',
						String(postgresPort),
						'-U',
						'n8n',
						'-d',
						'n8n',
						'-At',
						'-c',
						sql,
					],
					{ encoding: 'utf8' },
				);
				if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
				return result.stdout.trim();
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

export interface QueueWorker {
	process: ChildProcess;
	userFolder: string;
	/** Everything the worker printed, in order. */
	log: string[];
	/** IDs of the executions this worker ran, from its "Worker started execution" lines. */
	executions(): string[];
}

export interface QueueN8n {
	main: N8nInstance;
	/** Everything the main instance printed, in order. */
	mainLog: string[];
	workers: QueueWorker[];
	services: QueueServices;
	stop(): Promise<void>;
}

/** Whether workflow `id` (its file in `dir`, as writeWorkflows names it) starts from a webhook. */
function servesWebhooks(dir: string, id: string): boolean {
	const file = join(dir, `${id}.json`);
	if (!existsSync(file)) return true;
	const workflow = JSON.parse(readFileSync(file, 'utf8')) as { nodes?: Array<{ type?: string }> };
	return (workflow.nodes ?? []).some((node) => /\.(webhook|formTrigger)$/.test(node.type ?? ''));
}

/**
 * Services, then the main instance (credential and workflows imported into PostgreSQL, the
 * workflows given in `activate` published so their webhooks answer), then the workers, each with
 * the package in its own nodes folder.
 */
export async function startQueueN8n(options: {
	workDir: string;
	tarball: string;
	sandboxBaseUrl: string;
	apiKey: string;
	workflowsDir: string;
	activate: string[];
	workers: number;
	/** Executions each worker runs at once (`n8n worker --concurrency`). */
	concurrency: number;
	version?: string;
}): Promise<QueueN8n> {
	const version = options.version ?? n8nVersion();
	const bin = ensureN8n(version);
	const services = await startQueueServices();
	const workers: QueueWorker[] = [];
	const mainLog: string[] = [];
	let main: N8nInstance | undefined;
	const stop = async () => {
		await Promise.all(workers.map((worker) => stopChild(worker.process)));
		await main?.stop();
		await services.stop();
	};
	try {
		// Every process computes links from WEBHOOK_URL (n8n's advice for queue mode): a worker that
		// runs a waiting node writes `$execution.resumeUrl`, which must lead to main, where the
		// webhooks are served, not to the worker's own port.
		const mainPort = await freePort();
		const webhookUrl = { WEBHOOK_URL: `http://127.0.0.1:${mainPort}/` };
		const prepared = prepareN8n({
			userFolder: join(options.workDir, 'main'),
			tarball: options.tarball,
			sandboxBaseUrl: options.sandboxBaseUrl,
			apiKey: options.apiKey,
			workflowsDir: options.workflowsDir,
			port: mainPort,
			version,
			env: { ...services.env, ...webhookUrl },
		});
		for (const id of options.activate)
			prepared.cli(['update:workflow', `--id=${id}`, '--active=true']);

		const readiness: Array<Promise<void>> = [];
		for (let index = 0; index < options.workers; index += 1) {
			const userFolder = join(options.workDir, `worker-${index + 1}`);
			mkdirSync(userFolder, { recursive: true });
			installTarball(userFolder, options.tarball);
			const healthPort = await freePort();
			const env = {
				...n8nEnvironment(userFolder, await freePort()),
				...services.env,
				...webhookUrl,
				QUEUE_HEALTH_CHECK_ACTIVE: 'true',
				QUEUE_HEALTH_CHECK_PORT: String(healthPort),
				N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			};
			const child = spawn(prepared.node, [bin, 'worker', `--concurrency=${options.concurrency}`], {
				env,
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			const log: string[] = [];
			child.stdout?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
			child.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString()));
			workers.push({
				process: child,
				userFolder,
				log,
				executions: () =>
					[...log.join('').matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]),
			});
			readiness.push(waitFor(`http://127.0.0.1:${healthPort}/healthz/readiness`, 120_000, child));
		}
		// The main instance starts while the workers do.
		const [mainStart, ...workerStarts] = await Promise.allSettled([
			startN8n(prepared, { log: (chunk) => mainLog.push(chunk) }),
			...readiness,
		]);
		if (mainStart.status === 'fulfilled') main = mainStart.value as N8nInstance;
		const logs = [mainLog, ...workers.map((worker) => worker.log)];
		[mainStart, ...workerStarts].forEach((result, index) => {
			if (result.status === 'rejected')
				throw new Error(
					`${index ? `worker ${index}` : 'main'}: ${String(result.reason)}\n${logs[index].join('').slice(-3000)}`,
				);
		});
		// In queue mode the main instance registers the webhooks of published workflows once it
		// has become the leader, a moment after it says it is ready. A published sub-workflow (the
		// store of reviews, started by Execute Workflow) has none to wait for.
		for (const id of options.activate.filter((each) => servesWebhooks(options.workflowsDir, each)))
			await until(
				`the webhooks of workflow ${id}`,
				() =>
					services.query(`select count(*) from webhook_entity where "workflowId" = '${id}'`) !==
					'0',
				60_000,
				main!.process,
			);
		return { main: main!, mainLog, workers, services, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}
