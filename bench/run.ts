/**
 * npm run bench: our node against the HTTP Request node in real n8n, on loopback, with the
 * sandbox playing the Decision Service. Prints a table and writes bench/results/: results.json,
 * latest-table.md and rate-*.png (requests per second over time against the plan's limit).
 *
 * Flags: --rounds 3, --window-ms 20000 (the sandbox's rate window: the plan's minute scaled down
 * so the bench ends in minutes), --quick (1 round, 10 s window, smaller runs), --only latency or
 * --only memory (that part alone; the report files are not rewritten), --only throughput (issue
 * 12's scenarios, bench/throughput.ts: real latencies, default settings, two processes on one key;
 * one round unless --rounds says otherwise; writes throughput.json, throughput-table.md and its
 * plots), --only makespan (issue 18's scenarios, bench/makespan.ts: makespan against the floor and
 * the HTTP Request node, run sizes 1 to three windows, every plan; its own flags there; writes
 * makespan.json, makespan-table.md and makespan-ratio.png), --profile-n8n DIR (n8n runs with --cpu-prof and writes its CPU profile into DIR
 * when it stops).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import {
	DEMO_KEYS,
	startSandbox,
	type RunningSandbox,
	type SandboxExchange,
} from '../sandbox/server';
import { N8N_VERSION } from '../harness/n8n-install';
import {
	freePort,
	packTarball,
	prepareN8n,
	projectRoot,
	startN8n,
	type N8nInstance,
} from '../harness/n8n-env';
import { cpuMs, machine, median, peakRssMb, resetPeakRss, rssMb } from './measure';
import {
	controlSandbox,
	figure,
	measureIdleCpu,
	successTimes,
	sustainedRateRatio,
	waitForWebhooks,
} from './n8n-bench';
import { flag, option } from './setup';
import { renderRatePlots, type RateSeries } from './plot';
import { runMakespan } from './makespan';
import { runThroughput } from './throughput';
import { benchWorkflow, type Contender } from './workflows';

const quick = process.argv.includes('--quick');
const profileDir = option('profile-n8n');
const only = option('only');
if (
	only !== undefined &&
	only !== 'latency' &&
	only !== 'memory' &&
	only !== 'throughput' &&
	only !== 'makespan'
)
	throw new Error('--only takes latency, memory, throughput or makespan');
const rounds = flag('rounds', quick ? 1 : 3);
const windowMs = flag('window-ms', quick ? 10_000 : 20_000);

interface Scenario {
	name: string;
	key: string;
	/** Requests per window of the plan; null when unlimited. */
	limit: number | null;
	items: number;
	/** Our node's concurrency; the latency-bound scenario runs it at each of several. */
	concurrencies: number[];
	latencyMs?: number;
	contenders: Contender[];
}

const scenarios: Scenario[] = [
	{
		name: 'Free (30/min)',
		key: DEMO_KEYS.free,
		limit: 30,
		items: 90,
		concurrencies: [5],
		contenders: ['decision-service', 'http-default', 'http-batched'],
	},
	{
		name: 'Pro (120/min)',
		key: DEMO_KEYS.pro,
		limit: 120,
		items: 360,
		concurrencies: [5],
		contenders: ['decision-service', 'http-default', 'http-batched'],
	},
	{
		name: 'Scale (600/min)',
		key: DEMO_KEYS.scale,
		limit: 600,
		items: quick ? 1200 : 1800,
		concurrencies: [10],
		contenders: ['decision-service', 'http-default', 'http-batched'],
	},
	{
		name: 'Unlimited, 50 ms latency',
		key: DEMO_KEYS.unlimited,
		limit: null,
		items: 1000,
		concurrencies: [5, 20, 50],
		latencyMs: 50,
		contenders: ['decision-service', 'http-default'],
	},
];

const LATENCY_SCENARIO = scenarios[3];
const selectedScenarios =
	only === 'latency' ? [LATENCY_SCENARIO] : only === 'memory' ? [] : scenarios;

/** The memory runs: 10 000 items through our node (single output) and, as n8n's own baseline, through a No-Op. */
const MEMORY_ITEMS = 10_000;
const MEMORY_SCENARIO: Scenario = {
	...LATENCY_SCENARIO,
	name: '10 000 items, memory',
	items: MEMORY_ITEMS,
	latencyMs: undefined,
	concurrencies: [20],
};

interface RunFigures {
	wallMs: number;
	ok: number;
	failed: number;
	/** Sustained rate ÷ plan rate; null when unlimited. */
	rateRatio: number | null;
	itemsPerSecond: number;
	cpuMsPerItem: number;
	peakRssMb: number;
	rssGrowthMb: number;
	/** The service's side of the successful decides: mean time from arrival to answer, and mean requests in flight. */
	serviceMs: number;
	inFlightAtService: number;
	/** From posting the items to n8n until the service received the first decide: n8n's and the node's work before sending. */
	firstDecideMs: number;
	timestamps: number[];
}

/** Every API exchange the sandbox answered, as it saw them; cleared before each run. */
const exchanges: SandboxExchange[] = [];

/** Mean time the service held each successful decide, and mean decides in flight at the service (Little's law). */
function serviceSide(startedAt: number): {
	serviceMs: number;
	inFlightAtService: number;
	firstDecideMs: number;
} {
	const decides = exchanges.filter(
		(exchange) =>
			exchange.method === 'POST' &&
			exchange.path.startsWith('/v1/decide/') &&
			exchange.status === 200,
	);
	if (!decides.length)
		return { serviceMs: Number.NaN, inFlightAtService: Number.NaN, firstDecideMs: Number.NaN };
	const busyMs = decides.reduce(
		(sum, exchange) => sum + (exchange.sentAt - exchange.receivedAt),
		0,
	);
	const spanMs =
		Math.max(...decides.map((exchange) => exchange.sentAt)) -
		Math.min(...decides.map((exchange) => exchange.receivedAt));
	const firstDecideMs = Math.min(...decides.map((exchange) => exchange.receivedAt)) - startedAt;
	return { serviceMs: busyMs / decides.length, inFlightAtService: busyMs / spanMs, firstDecideMs };
}

async function resetSandbox(sandbox: RunningSandbox, scenario: Scenario): Promise<void> {
	await controlSandbox(sandbox, '/reset', {});
	await controlSandbox(sandbox, '/clock', { rate_window_ms: windowMs });
	if (scenario.latencyMs)
		await controlSandbox(sandbox, '/faults', {
			seed: 1,
			rules: [{ method: 'POST', path: '^/v1/decide/', latency_ms: scenario.latencyMs }],
		});
}

/** n8n's own CPU use while idle (timers, housekeeping), subtracted from each run's figure. */
let idleCpuMsPerSecond = 0;

async function runOnce(
	sandbox: RunningSandbox,
	n8n: N8nInstance,
	scenario: Scenario,
	path: string,
): Promise<RunFigures> {
	// The node's rate gate lives in the n8n process and remembers the key's window; the sandbox is
	// reset below. Let any window of the previous run end first, so both start fresh.
	if (scenario.limit !== null)
		await new Promise((resolve) => setTimeout(resolve, windowMs + 1_000));
	await resetSandbox(sandbox, scenario);
	exchanges.length = 0;
	const pid = n8n.process!.pid!;
	const items = Array.from({ length: scenario.items }, (_, index) => ({
		text: `Message ${index}: how do I export my data? Limited offer inside.`,
	}));
	const cpuBefore = cpuMs(pid);
	const rssBefore = rssMb(pid);
	resetPeakRss(pid);
	const started = performance.now();
	const response = await request(`${n8n.url}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ items }),
		headersTimeout: 30 * 60_000,
		bodyTimeout: 30 * 60_000,
	});
	const answer = await response.body.text();
	const wallMs = performance.now() - started;
	if (response.statusCode === 404)
		throw new Error(`the webhook ${path} is not registered: ${answer.slice(0, 300)}`);
	const cpu = cpuMs(pid) - cpuBefore;
	const timestamps = successTimes(sandbox, scenario.key);
	const ok = timestamps.length;
	const rateRatio =
		scenario.limit === null ? null : sustainedRateRatio(timestamps, scenario.limit, windowMs);
	const idleCpu = idleCpuMsPerSecond * (wallMs / 1000);
	return {
		wallMs,
		ok,
		failed: scenario.items - ok,
		rateRatio,
		itemsPerSecond: ok / (wallMs / 1000),
		cpuMsPerItem: Math.max(0, cpu - idleCpu) / scenario.items,
		peakRssMb: peakRssMb(pid),
		rssGrowthMb: peakRssMb(pid) - rssBefore,
		...serviceSide(started),
		timestamps,
	};
}

interface Row {
	scenario: string;
	contender: Contender;
	/** Our node's concurrency, on its rows. */
	concurrency?: number;
	runs: RunFigures[];
}

type Leg = Pick<Row, 'contender' | 'concurrency'>;

/** What runs in a scenario: our node once per concurrency, each other contender once. */
const legsOf = (scenario: Scenario): Leg[] =>
	scenario.contenders.flatMap((contender): Leg[] =>
		contender === 'decision-service'
			? scenario.concurrencies.map((concurrency) => ({ contender, concurrency }))
			: [{ contender }],
	);

/**
 * The HTTP Request node's batching: the plan's budget per window. (It has no bounded concurrency:
 * with a batch interval of 0 it sends every item at once, and with one it sends a batch per
 * interval without waiting for answers.)
 */
const batchOf = (scenario: Scenario, leg: Leg) =>
	leg.contender === 'http-batched' && scenario.limit
		? { size: scenario.limit, intervalMs: windowMs }
		: undefined;

const rowLabel = (row: Pick<Row, 'contender' | 'concurrency'>) =>
	row.concurrency === undefined ? row.contender : `${row.contender} (C = ${row.concurrency})`;

function table(rows: Row[]): string {
	const header =
		'| Scenario | Contender | Wall s | Items ok | Items failed | Achieved ÷ plan rate | Items/s | n8n CPU ms/item (idle subtracted) | Peak RSS MB (n8n) |';
	const lines = rows.map((row) =>
		[
			row.scenario,
			rowLabel(row),
			figure(row.runs, (run) => run.wallMs / 1000),
			figure(row.runs, (run) => run.ok, 0),
			figure(row.runs, (run) => run.failed, 0),
			figure(row.runs, (run) => run.rateRatio, 3),
			figure(row.runs, (run) => run.itemsPerSecond),
			figure(row.runs, (run) => run.cpuMsPerItem, 3),
			figure(row.runs, (run) => run.peakRssMb, 0),
		].join(' | '),
	);
	return [
		header,
		'|---|---|---|---|---|---|---|---|---|',
		...lines.map((line) => `| ${line} |`),
	].join('\n');
}

interface FloorFigures {
	/** Items per second of our client (src/client) without n8n, on each transport. */
	keepAlive: number;
	newConnection: number;
	failed: number;
}

/** bench/floor.ts in its own process, against the sandbox as the scenario sets it. */
async function runFloor(
	sandbox: RunningSandbox,
	scenario: Scenario,
	concurrency: number,
): Promise<FloorFigures> {
	await resetSandbox(sandbox, scenario);
	const args = [
		'--require',
		'tsx/cjs',
		join(projectRoot, 'bench', 'floor.ts'),
		'--base-url',
		sandbox.baseUrl,
		'--key',
		scenario.key,
		'--concurrency',
		String(concurrency),
		'--items',
		String(scenario.items),
	];
	const child = spawn(process.execPath, args, {
		cwd: projectRoot,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
	if (code !== 0) throw new Error(`bench/floor.ts exited with ${code}`);
	const figures = JSON.parse(output.trim().split('\n').pop() ?? '{}') as Record<string, number>;
	return {
		keepAlive: figures['keep-alive'],
		newConnection: figures['new-connection'],
		failed: figures.failed,
	};
}

/** The latency-bound scenario, concurrency by concurrency: n8n, the service's side and the transport floor. */
function latencyTable(
	scenario: Scenario,
	rows: Row[],
	floors: Map<number, FloorFigures[]>,
): string {
	const latencyMs = scenario.latencyMs ?? 0;
	const ratio = (itemsPerSecond: number, concurrency: number) =>
		`${itemsPerSecond.toFixed(0)} (${(itemsPerSecond / ((concurrency * 1000) / latencyMs)).toFixed(2)})`;
	const medianOf = (values: number[]) => (values.length ? median(values) : Number.NaN);
	const lines = scenario.concurrencies.map((concurrency) => {
		const runsOf = (contender: Contender) =>
			rows.find(
				(entry) =>
					entry.scenario === scenario.name &&
					entry.contender === contender &&
					entry.concurrency === concurrency,
			)?.runs ?? [];
		const runs = runsOf('decision-service');
		const floor = floors.get(concurrency) ?? [];
		return [
			String(concurrency),
			((concurrency * 1000) / latencyMs).toFixed(0),
			ratio(medianOf(runs.map((run) => run.itemsPerSecond)), concurrency),
			medianOf(runs.map((run) => run.wallMs / 1000)).toFixed(2),
			medianOf(runs.map((run) => run.firstDecideMs / 1000)).toFixed(2),
			medianOf(runs.map((run) => run.inFlightAtService)).toFixed(1),
			medianOf(runs.map((run) => run.serviceMs)).toFixed(1),
			ratio(medianOf(floor.map((figures) => figures.keepAlive)), concurrency),
			ratio(medianOf(floor.map((figures) => figures.newConnection)), concurrency),
		].join(' | ');
	});
	const header = `| C | C ÷ ${latencyMs} ms, items/s | Our node in n8n, items/s (÷ C/L) | Wall s | Until the first decide, s | Decides in flight at the service | Service time per decide, ms | Our client without n8n, keep-alive (÷ C/L) | Our client without n8n, new connection per request (÷ C/L) |`;
	return [
		header,
		'|---|---|---|---|---|---|---|---|---|',
		...lines.map((line) => `| ${line} |`),
	].join('\n');
}

/** n8n's V8 old-space cap for the memory runs: its default, and a cap as a memory-limited container would set. */
const MEMORY_HEAPS = [0, 512];
const heapLabel = (heap: number) => (heap ? `--max-old-space-size=${heap}` : "n8n's default heap");

interface MemoryRow {
	heap: number;
	leg: Leg;
	runs: RunFigures[];
	crashes: string[];
}

function memoryTable(memory: MemoryRow[]): string {
	const lines = memory.map((row) => {
		const { runs } = row;
		const crashed = row.crashes.length
			? `${row.crashes.length} of ${runs.length + row.crashes.length} runs: ${[...new Set(row.crashes)].join('; ')}`
			: '';
		return [
			heapLabel(row.heap),
			rowLabel(row.leg),
			figure(runs, (run) => run.rssGrowthMb, 0),
			figure(runs, (run) => run.peakRssMb, 0),
			figure(runs, (run) => run.wallMs / 1000),
			figure(runs, (run) => run.ok, 0),
			figure(runs, (run) => run.cpuMsPerItem, 3),
			crashed,
		].join(' | ');
	});
	const header = `| ${MEMORY_ITEMS} items, fresh n8n per run | Contender | RSS growth MB | Peak RSS MB | Wall s | Decides ok (counted by the service) | n8n CPU ms/item | n8n stopped |`;
	return [header, '|---|---|---|---|---|---|---|---|', ...lines.map((line) => `| ${line} |`)].join(
		'\n',
	);
}

/** The HTTP Request node sends its 10 000 requests at once: not the same load, but what n8n's own HTTP path costs. */
const MEMORY_LEGS: Leg[] = [
	{ contender: 'decision-service', concurrency: 20 },
	{ contender: 'http-default' },
	{ contender: 'no-op' },
];

/** The webhook paths of every scenario's legs (by `index|label`) and of the memory runs (by contender). */
interface RunPaths {
	paths: Record<string, string>;
	memoryPaths: Map<string, string>;
	workflowIds: string[];
}

/** One workflow per scenario and leg, and per memory leg, written into `workflowsDir`. */
function writeWorkflows(
	sandbox: RunningSandbox,
	workflowsDir: string,
	credentials: Array<{ id: string; key: string }>,
): RunPaths {
	const paths: Record<string, string> = {};
	const workflowIds: string[] = [];
	scenarios.forEach((scenario, index) => {
		for (const leg of legsOf(scenario)) {
			const initials = leg.contender
				.split('-')
				.map((word) => word[0])
				.join('');
			const id = `bench${index}${initials}${leg.concurrency ?? ''}`;
			const path = `bench-${index}-${leg.contender}${leg.concurrency === undefined ? '' : `-c${leg.concurrency}`}`;
			paths[`${index}|${rowLabel(leg)}`] = path;
			workflowIds.push(id);
			const workflow = benchWorkflow({
				id,
				contender: leg.contender,
				webhookPath: path,
				credentialId: credentials[index].id,
				baseUrl: sandbox.baseUrl,
				apiKey: scenario.key,
				concurrency: leg.concurrency ?? 1,
				batch: batchOf(scenario, leg),
			});
			writeFileSync(join(workflowsDir, `${id}.json`), JSON.stringify(workflow));
		}
	});
	const memoryPaths = new Map<string, string>();
	for (const leg of MEMORY_LEGS) {
		const id = `benchMemory${leg.contender.replace(/-/g, '')}`;
		const path = `bench-memory-${leg.contender}`;
		memoryPaths.set(leg.contender, path);
		workflowIds.push(id);
		const workflow = benchWorkflow({
			id,
			contender: leg.contender,
			webhookPath: path,
			credentialId: credentials[3].id,
			baseUrl: sandbox.baseUrl,
			apiKey: MEMORY_SCENARIO.key,
			concurrency: leg.concurrency ?? 1,
			batch: batchOf(MEMORY_SCENARIO, leg),
		});
		writeFileSync(join(workflowsDir, `${id}.json`), JSON.stringify(workflow));
	}
	return { paths, memoryPaths, workflowIds };
}

/** An n8n user folder with the package, a credential per scenario and every workflow published. */
async function prepareRunN8n(
	work: string,
	sandbox: RunningSandbox,
): Promise<{ prepared: N8nInstance; runPaths: RunPaths }> {
	const tarball = packTarball(join(work, 'pack'));
	const workflowsDir = join(work, 'workflows');
	mkdirSync(workflowsDir);
	const credentials = scenarios.map((scenario, index) => ({
		id: `benchCred${index}`,
		key: scenario.key,
	}));
	const runPaths = writeWorkflows(sandbox, workflowsDir, credentials);
	const prepared = prepareN8n({
		userFolder: join(work, 'user'),
		tarball,
		sandboxBaseUrl: sandbox.baseUrl,
		apiKey: DEMO_KEYS.pro,
		workflowsDir,
		port: await freePort(),
	});
	const credentialsFile = join(work, 'bench-credentials.json');
	writeFileSync(
		credentialsFile,
		JSON.stringify(
			credentials.map((credential) => ({
				id: credential.id,
				name: credential.id,
				type: 'decisionServiceApi',
				data: { apiKey: credential.key, baseUrl: sandbox.baseUrl },
			})),
		),
	);
	prepared.cli(['import:credentials', `--input=${credentialsFile}`]);
	// Webhooks listen only on published (active) workflows.
	for (const id of runPaths.workflowIds) prepared.cli(['publish:workflow', `--id=${id}`]);
	return { prepared, runPaths };
}

/** The selected scenarios, leg by leg, `rounds` times each: a row per leg, its first round's plot. */
async function runScenarios(
	sandbox: RunningSandbox,
	n8n: N8nInstance,
	paths: Record<string, string>,
): Promise<{ rows: Row[]; series: RateSeries[] }> {
	const rows: Row[] = [];
	const series: RateSeries[] = [];
	for (const [index, scenario] of scenarios.entries()) {
		if (!selectedScenarios.includes(scenario)) continue;
		for (const leg of legsOf(scenario)) {
			const row: Row = { scenario: scenario.name, ...leg, runs: [] };
			for (let round = 0; round < rounds; round++) {
				const figures = await runOnce(sandbox, n8n, scenario, paths[`${index}|${rowLabel(leg)}`]);
				row.runs.push(figures);
				console.log(
					`${scenario.name.padEnd(26)} ${rowLabel(leg).padEnd(26)} round ${round + 1}: ${(figures.wallMs / 1000).toFixed(1)} s, ok ${figures.ok}, failed ${figures.failed}, rate ratio ${figures.rateRatio?.toFixed(3) ?? 'n/a'}, ${figures.cpuMsPerItem.toFixed(3)} CPU ms/item, peak RSS ${figures.peakRssMb.toFixed(0)} MB`,
				);
			}
			rows.push(row);
			series.push({
				scenario: scenario.name,
				contender: rowLabel(leg),
				limitPerSecond: scenario.limit ? scenario.limit / (windowMs / 1000) : null,
				timestamps: row.runs[0].timestamps,
			});
		}
	}
	return { rows, series };
}

/** The transport floor of the latency-bound scenario: our client without n8n, same sandbox. */
async function runFloors(sandbox: RunningSandbox): Promise<Map<number, FloorFigures[]>> {
	const floors = new Map<number, FloorFigures[]>();
	for (const concurrency of selectedScenarios.includes(LATENCY_SCENARIO)
		? LATENCY_SCENARIO.concurrencies
		: []) {
		for (let round = 0; round < rounds; round++) {
			const figures = await runFloor(sandbox, LATENCY_SCENARIO, concurrency);
			floors.set(concurrency, [...(floors.get(concurrency) ?? []), figures]);
			console.log(
				`transport floor C = ${concurrency} round ${round + 1}: keep-alive ${figures.keepAlive.toFixed(0)}/s, new connection per request ${figures.newConnection.toFixed(0)}/s, failed ${figures.failed}`,
			);
		}
	}
	return floors;
}

/**
 * Memory: each run in a freshly started n8n (after a small warm-up of both workflows), so one
 * run's heap growth does not hide the next one's; rounds alternate our node and the No-Op. n8n is
 * restarted in `running`, which the caller stops.
 */
async function runMemory(
	sandbox: RunningSandbox,
	prepared: N8nInstance,
	running: { n8n?: N8nInstance },
	memoryPaths: Map<string, string>,
	nodeArgs: string[],
): Promise<MemoryRow[]> {
	const memory: MemoryRow[] = [];
	for (const heap of MEMORY_HEAPS) {
		for (const leg of MEMORY_LEGS) memory.push({ heap, leg, runs: [], crashes: [] });
		for (let round = 0; round < (only === 'latency' ? 0 : rounds); round++) {
			for (const leg of MEMORY_LEGS) {
				const row = memory.find((entry) => entry.heap === heap && entry.leg === leg)!;
				await running.n8n!.stop();
				let output = '';
				const n8n = await startN8n(prepared, {
					nodeArgs: [...nodeArgs, ...(heap ? [`--max-old-space-size=${heap}`] : [])],
					log: (chunk) => (output = (output + chunk).slice(-4_000)),
				});
				running.n8n = n8n;
				await waitForWebhooks(n8n, [...memoryPaths.values()]);
				for (const warmUp of MEMORY_LEGS)
					await runOnce(
						sandbox,
						n8n,
						{ ...MEMORY_SCENARIO, items: 20 },
						memoryPaths.get(warmUp.contender)!,
					);
				await new Promise((resolve) => setTimeout(resolve, 2_000));
				const label = `${MEMORY_ITEMS} items, ${heapLabel(heap)}, ${rowLabel(leg)}, round ${round + 1}`;
				try {
					const figures = await runOnce(
						sandbox,
						n8n,
						MEMORY_SCENARIO,
						memoryPaths.get(leg.contender)!,
					);
					row.runs.push(figures);
					console.log(
						`${label}: ${(figures.wallMs / 1000).toFixed(1)} s, ok ${figures.ok}, RSS growth ${figures.rssGrowthMb.toFixed(0)} MB (peak ${figures.peakRssMb.toFixed(0)} MB), ${figures.cpuMsPerItem.toFixed(3)} CPU ms/item`,
					);
				} catch (error) {
					// n8n itself may stop (out of memory under a heap cap): a result, not a bench failure.
					await new Promise((resolve) => setTimeout(resolve, 1_000));
					const reason = /heap out of memory|heap limit/i.test(output)
						? 'n8n ran out of memory and stopped'
						: `failed: ${error instanceof Error ? error.message : String(error)}`;
					row.crashes.push(reason);
					console.log(`${label}: ${reason}`);
				}
			}
		}
	}
	return memory;
}

/** Writes results.json, latest-table.md and the rate plots into bench/results/. */
async function writeReport(
	rows: Row[],
	series: RateSeries[],
	floors: Map<number, FloorFigures[]>,
	memory: MemoryRow[],
): Promise<void> {
	const resultsDir = join(projectRoot, 'bench', 'results');
	const plots = await renderRatePlots(series, resultsDir);
	const results = {
		date: new Date().toISOString(),
		n8n: N8N_VERSION,
		windowMs,
		rounds,
		machine: machine(),
		rows,
		floors: Object.fromEntries(floors),
		memory: memory.map((row) => ({
			heap: heapLabel(row.heap),
			contender: rowLabel(row.leg),
			runs: row.runs,
			crashes: row.crashes,
		})),
	};
	writeFileSync(
		join(resultsDir, 'results.json'),
		`${JSON.stringify(results, (key, value) => (key === 'timestamps' ? undefined : value), 2)}\n`,
	);
	const report = `${table(rows)}\n\n${latencyTable(LATENCY_SCENARIO, rows, floors)}\n\n${memoryTable(memory)}`;
	console.log(`\n${report}\n`);
	writeFileSync(join(resultsDir, 'latest-table.md'), `${report}\n\nPlots: ${plots.join(', ')}\n`);
}

async function main(): Promise<void> {
	const work = mkdtempSync(join(tmpdir(), 'decision-service-bench-'));
	const sandbox = await startSandbox({
		port: 0,
		onExchange: (exchange) => exchanges.push(exchange),
	});
	// The n8n process that runs now (the memory runs start it anew), stopped at the end.
	const running: { n8n?: N8nInstance } = {};
	try {
		console.log(
			`Sandbox ${sandbox.baseUrl}; rate window ${windowMs} ms (the plan's minute scaled ${(60_000 / windowMs).toFixed(1)}×); ${rounds} round(s).`,
		);
		const { prepared, runPaths } = await prepareRunN8n(work, sandbox);
		const { paths, memoryPaths } = runPaths;
		const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
		const n8n = await startN8n(prepared, { nodeArgs });
		running.n8n = n8n;
		console.log(`n8n ${N8N_VERSION} at ${n8n.url} (pid ${n8n.process?.pid})`);
		await waitForWebhooks(n8n, [...Object.values(paths), ...memoryPaths.values()]);
		// Warm-up (not measured): the first executions load code and fill caches.
		for (const [index, scenario] of scenarios.entries()) {
			if (!selectedScenarios.includes(scenario)) continue;
			for (const leg of legsOf(scenario))
				await runOnce(
					sandbox,
					n8n,
					{ ...scenario, items: 20, limit: null },
					paths[`${index}|${rowLabel(leg)}`],
				);
		}
		idleCpuMsPerSecond = await measureIdleCpu(n8n.process!.pid!);
		console.log(
			`n8n idle CPU: ${idleCpuMsPerSecond.toFixed(1)} ms per second (subtracted from each run)`,
		);

		const { rows, series } = await runScenarios(sandbox, n8n, paths);
		const floors = await runFloors(sandbox);
		const memory = await runMemory(sandbox, prepared, running, memoryPaths, nodeArgs);

		if (only) {
			console.log(
				`\n${table(rows)}\n\n${latencyTable(LATENCY_SCENARIO, rows, floors)}\n\n${memoryTable(memory)}\n`,
			);
			return;
		}
		await writeReport(rows, series, floors, memory);
	} finally {
		await running.n8n?.stop();
		await sandbox.close();
		rmSync(work, { recursive: true, force: true });
	}
}

(only === 'throughput'
	? runThroughput({ quick, windowMs, rounds: flag('rounds', 1) })
	: only === 'makespan'
		? runMakespan()
		: main()
).catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
