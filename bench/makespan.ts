/**
 * `npm run bench -- --only makespan`: issue 18's scenarios in real n8n. How long a run takes
 * against the floor of a fixed-window plan (bench/n8n-bench.ts, makespanFloorMs) and against the
 * HTTP Request node (its defaults, and batched to the plan): run sizes 1, 10, 100, one window's
 * budget and three windows' × Free, Starter, Pro, Scale × 200 ms, 800 ms and the fallback mix;
 * then 60 webhook executions of one item each arriving together (800 ms, every plan), and two n8n
 * processes on one key (Scale, three windows, 800 ms). One run each (the webhook case five, each
 * contender keeping its median round against that round's n8n alone: the same workflow with a
 * Wait of one answer's time, its floor where the budget covers the 60), reusing throughput.ts's run
 * (runOnce): the sandbox in this process, the package from its tarball in n8n 2.41.1, loopback.
 *
 * Makespan: from the run's first request at the service (our node's GET of the decision when it
 * sends one, the HTTP node's first decide) to its last decide's answer; the wall time (post to the
 * webhook's answer, what the user waits for) beside it, and compared with each HTTP contender's
 * too: the HTTP node's makespan starts after n8n evaluated its parameters for every item, ours
 * before when it reads the decision first. Floor: with Max Concurrency's default (600) as the cap and, for the fallback mix, the
 * mean answer time (940 ms) and the last window's slowest answer as the service gave it. Beside it,
 * the service alone: the last window's items sent at once by the least client there is
 * (bench/burst-client.ts) to the same sandbox, which serves on one thread of this machine: no client
 * can finish before it, and on bursts of hundreds it lies above the floor. Each run is set against
 * the higher of the two (and, in the webhook case, n8n alone).
 *
 * Flags: --window-ms (default 10 000: the plan's minute scaled 6×), --scenarios REGEX (only the
 * scenarios whose "plan latency size" matches, e.g. 'Starter.*60 executions'; prints their rows
 * and the decides' arrival times, writes nothing), --subset (Scale and Free ×
 * 800 ms and the fallback mix, plus the webhook case), --label NAME (the report files are
 * makespan-NAME.*; default makespan.*), --out DIR (default bench/results). A run without a label
 * also writes makespan-compare.md when makespan-before.json (the same command on the code before,
 * `--label before`) is beside it: our node's figures before → after, scenario by scenario.
 */
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSandbox } from '../sandbox/server';
import { N8N_VERSION } from '../harness/n8n-install';
import { projectRoot } from '../harness/n8n-env';
import { machine } from './measure';
import { makespanFloorMs, measureIdleCpu, windowStarts } from './n8n-bench';
import { renderRatioPlot, type RatioPoint } from './plot';
import { flag, option } from './setup';
import {
	CONTENDERS,
	FREE,
	LATENCIES,
	NO_LATENCY,
	PLANS,
	SCALE,
	contenderLabel,
	recordExchange,
	runOnce,
	runServiceAlone,
	runTwoProcessesOnce,
	setUpBench,
	startMainN8n,
	startSecondN8n,
	warmUp,
	type BenchN8n,
	type BenchSetUp,
	type Latency,
	type Plan,
	type Share,
	type ThroughputFigures,
} from './throughput';
import { benchWorkflow, type Contender } from './workflows';

/** The answers' latency in the webhook case (60 executions of one item each). */
const WEBHOOK_LATENCY_MS = 800;
/** How many times the webhook case runs (its median round is kept). */
const WEBHOOK_ROUNDS = 5;

/** Max Concurrency's default since issue 18: the cap in the floor, for every contender. */
const FLOOR_CAP = 600;
const MEAN_LATENCY_MS: Record<string, number> = {
	'200 ms': 200,
	'800 ms': 800,
	'600 ms, 10 % at 3–5 s': 0.9 * 600 + 0.1 * 4000,
};

interface Scenario {
	plan: Plan;
	latency: Latency;
	size: string;
	items: number;
	/** 60 executions of one item each instead of one execution with every item. */
	executions?: number;
}

interface MakespanRow {
	plan: string;
	latency: string;
	size: string;
	items: number;
	contender: string;
	floorMs: number;
	/**
	 * The webhook case: n8n alone, the same 60 posts into the same workflow with a Wait of one
	 * answer's time in place of the contender, wall time. n8n starts 60 executions one after the
	 * other, so their last request cannot go before n8n reaches it: on a plan whose budget covers
	 * the 60, this, not the service, is the floor (every contender needed 3–4 times the service's).
	 */
	n8nAloneWallMs?: number;
	/**
	 * The service alone: the windows before the last, plus the last window's items sent at once by
	 * the least client there is (runServiceAlone), on the service's clock. The sandbox serves on one
	 * thread of this two-core machine, so a burst of hundreds reaches it over a few hundred ms
	 * however it is sent; the makespan floor counts none of that.
	 */
	serviceAloneFloorMs?: number;
	figures: ThroughputFigures;
}

/**
 * How far from the floor a run finished: its makespan ÷ the higher of the makespan floor and the
 * service alone's; in the webhook case also its wall time ÷ n8n alone's, and the smaller of the
 * two (the two clocks differ, so each is taken against its own; the higher floor gives the smaller
 * ratio).
 */
export function floorRatio(row: {
	floorMs: number;
	n8nAloneWallMs?: number;
	serviceAloneFloorMs?: number;
	figures: { makespanMs: number; wallMs: number };
}): number {
	const serviceRatio = row.figures.makespanMs / Math.max(row.floorMs, row.serviceAloneFloorMs ?? 0);
	return row.n8nAloneWallMs === undefined
		? serviceRatio
		: Math.min(serviceRatio, row.figures.wallMs / row.n8nAloneWallMs);
}

function floorOf(scenario: Scenario, figures: ThroughputFigures, windowMs: number): number {
	const mean = MEAN_LATENCY_MS[scenario.latency.name];
	const starts = windowStarts(figures.timestamps, windowMs);
	const lastStart = starts[starts.length - 1] ?? -Infinity;
	const lastHeld = figures.held.filter((_, index) => figures.timestamps[index] >= lastStart);
	return makespanFloorMs({
		items: scenario.items,
		budget: scenario.plan.limit,
		windowMs,
		cap: FLOOR_CAP,
		meanLatencyMs: mean,
		lastLatencyMs: lastHeld.length ? Math.max(...lastHeld) : mean,
	});
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);

interface SavedRow {
	plan: string;
	latency: string;
	size: string;
	contender: string;
	floorMs: number;
	n8nAloneWallMs?: number;
	serviceAloneFloorMs?: number;
	figures: Pick<
		ThroughputFigures,
		'makespanMs' | 'wallMs' | 'failed' | 'rateLimitedToUser' | 'rateRatio' | 'otherCores'
	>;
}

/**
 * Our node before → after, per scenario: makespan ÷ floor, its makespan ÷ each HTTP contender's
 * (when that contender failed no item), items failed, 429s to the user, the achieved rate.
 */
export function compareTable(
	before: { rows: SavedRow[]; twoProcesses: SavedRow },
	after: { rows: SavedRow[]; twoProcesses: SavedRow },
): string {
	const key = (row: SavedRow) => `${row.plan}|${row.latency}|${row.size}`;
	const ours = (row: SavedRow) => row.contender.startsWith('decision-service');
	const find = (rows: SavedRow[], scenario: string, contender: (row: SavedRow) => boolean) =>
		rows.find((row) => key(row) === scenario && contender(row));
	const ratio = (row?: SavedRow) => (row ? floorRatio(row).toFixed(2) : 'n/a');
	const versus = (
		mine?: SavedRow,
		http?: SavedRow,
		figure: 'makespanMs' | 'wallMs' = 'makespanMs',
	) =>
		!mine || !http
			? 'n/a'
			: `${(mine.figures[figure] / http.figures[figure]).toFixed(2)}${http.figures.failed > 0 ? ` (it failed ${http.figures.failed})` : ''}`;
	const pair = (a: string, b: string) => `${a} → **${b}**`;
	const rate = (row?: SavedRow) => (row?.figures.rateRatio ?? null)?.toFixed(3) ?? 'n/a';
	const lines = [
		'| Plan | Latency | Items | Makespan ÷ floor | ÷ HTTP default | ÷ HTTP batched | Wall ÷ HTTP default | Wall ÷ HTTP batched | Failed | 429s to the user | Achieved ÷ plan rate | Other load, cores |',
		`|${'---|'.repeat(12)}`,
	];
	for (const row of after.rows.filter(ours)) {
		const scenario = key(row);
		const old = find(before.rows, scenario, ours);
		const httpDefault = (rows: SavedRow[]) =>
			find(rows, scenario, (other) => other.contender === 'http-default');
		const httpBatched = (rows: SavedRow[]) =>
			find(rows, scenario, (other) => other.contender === 'http-batched');
		lines.push(
			`| ${[
				row.plan,
				row.latency,
				row.size,
				pair(ratio(old), ratio(row)),
				pair(versus(old, httpDefault(before.rows)), versus(row, httpDefault(after.rows))),
				pair(versus(old, httpBatched(before.rows)), versus(row, httpBatched(after.rows))),
				pair(
					versus(old, httpDefault(before.rows), 'wallMs'),
					versus(row, httpDefault(after.rows), 'wallMs'),
				),
				pair(
					versus(old, httpBatched(before.rows), 'wallMs'),
					versus(row, httpBatched(after.rows), 'wallMs'),
				),
				pair(String(old?.figures.failed ?? 'n/a'), String(row.figures.failed)),
				pair(
					String(old?.figures.rateLimitedToUser ?? 'n/a'),
					String(row.figures.rateLimitedToUser),
				),
				pair(rate(old), rate(row)),
				`${old?.figures.otherCores.toFixed(2) ?? 'n/a'} / ${row.figures.otherCores.toFixed(2)}`,
			].join(' | ')} |`,
		);
	}
	const two = [before.twoProcesses, after.twoProcesses];
	lines.push(
		`| ${[
			after.twoProcesses.plan,
			after.twoProcesses.latency,
			after.twoProcesses.size,
			pair(ratio(two[0]), ratio(two[1])),
			'',
			'',
			'',
			'',
			pair(String(two[0].figures.failed), String(two[1].figures.failed)),
			pair(String(two[0].figures.rateLimitedToUser), String(two[1].figures.rateLimitedToUser)),
			pair(rate(two[0]), rate(two[1])),
			`${two[0].figures.otherCores.toFixed(2)} / ${two[1].figures.otherCores.toFixed(2)}`,
		].join(' | ')} |`,
	);
	return lines.join('\n');
}

function table(rows: MakespanRow[]): string {
	const header =
		'| Plan | Latency | Items | Contender | Makespan s | Floor s | Makespan ÷ floor | The service alone: floor s | Wall s | n8n alone: wall s | ÷ the higher floor | Until the first request s | Items failed | 429s reaching the user | 429s sent by the service | Achieved ÷ plan rate | Other load, cores |';
	const lines = rows.map((row) => {
		const run = row.figures;
		return `| ${[
			row.plan,
			row.latency,
			row.size,
			row.contender,
			seconds(run.makespanMs),
			seconds(row.floorMs),
			(run.makespanMs / row.floorMs).toFixed(2),
			row.serviceAloneFloorMs === undefined ? '' : seconds(row.serviceAloneFloorMs),
			seconds(run.wallMs),
			row.n8nAloneWallMs === undefined ? '' : seconds(row.n8nAloneWallMs),
			floorRatio(row).toFixed(2),
			seconds(run.firstRequestMs),
			run.failed,
			run.rateLimitedToUser,
			run.sent429,
			run.rateRatio === null ? 'n/a' : run.rateRatio.toFixed(3),
			run.otherCores.toFixed(2),
		].join(' | ')} |`;
	});
	return [header, `|${'---|'.repeat(17)}`, ...lines].join('\n');
}

interface MakespanOptions {
	windowMs: number;
	subset: boolean;
	/** A look at some scenarios only: they run, their rows and arrivals are printed, nothing is written. */
	only?: RegExp;
	label?: string;
	outDir: string;
}

function makespanOptions(): MakespanOptions {
	const onlyPattern = option('scenarios');
	return {
		windowMs: flag('window-ms', 10_000),
		subset: process.argv.includes('--subset'),
		only: onlyPattern === undefined ? undefined : new RegExp(onlyPattern),
		label: option('label'),
		outDir: option('out') ?? join(projectRoot, 'bench', 'results'),
	};
}

/** The webhook case's n8n alone: the same workflow with a Wait of one answer's time. */
const N8N_WAIT = { id: 'makespanN8nWait', path: 'makespan-n8n-wait' };

function writeN8nWaitWorkflow(setUp: BenchSetUp): void {
	writeFileSync(
		join(setUp.workflowsDir, `${N8N_WAIT.id}.json`),
		JSON.stringify(
			benchWorkflow({
				id: N8N_WAIT.id,
				contender: 'n8n-wait',
				webhookPath: N8N_WAIT.path,
				credentialId: setUp.credentials[0].id,
				baseUrl: setUp.sandbox.baseUrl,
				apiKey: FREE.key,
				perItemOutcome: true,
				waitSeconds: WEBHOOK_LATENCY_MS / 1000,
			}),
		),
	);
}

/** One run of a contender (or n8n alone) in a scenario, with that round's n8n alone. */
interface ContenderRun {
	figures: ThroughputFigures;
	n8nAloneWallMs?: number;
}

/**
 * The service alone, first: the windows before the last, plus the last window's items sent at
 * once by the least client.
 */
async function serviceAloneFloor(setUp: BenchSetUp, scenario: Scenario): Promise<number> {
	const windows = Math.max(1, Math.ceil(scenario.items / scenario.plan.limit));
	const lastWindowItems = scenario.items - (windows - 1) * scenario.plan.limit;
	const alone = await runServiceAlone(
		setUp.sandbox,
		scenario.plan,
		scenario.latency,
		lastWindowItems,
		setUp.windowMs,
	);
	if (alone.ok !== lastWindowItems)
		throw new Error(`the service alone answered ${alone.ok} of ${lastWindowItems} decides`);
	return (windows - 1) * setUp.windowMs + alone.makespanMs;
}

/**
 * Every contender's runs of a scenario. The webhook case is n8n-bound and its single runs vary by
 * ±20 % (the machine's pace drifts between minutes): each of its rounds runs n8n alone, then the
 * contenders in a rotated order. Other scenarios run once.
 */
async function runRounds(
	setUp: BenchSetUp,
	scenario: Scenario,
	shares: (contender: Contender) => Share[],
): Promise<Map<Contender, ContenderRun[]>> {
	const rounds = scenario.executions ? WEBHOOK_ROUNDS : 1;
	const runsOf = new Map<Contender, ContenderRun[]>();
	for (let round = 0; round < rounds; round++) {
		const n8nAloneWallMs = scenario.executions
			? (
					await runOnce(
						setUp.sandbox,
						scenario.plan,
						NO_LATENCY,
						'n8n-wait',
						shares('n8n-wait').map((share) => ({ ...share, path: N8N_WAIT.path })),
						setUp.windowMs,
					)
				).wallMs
			: undefined;
		const order = CONTENDERS.map((_, index) => CONTENDERS[(index + round) % CONTENDERS.length]);
		for (const contender of order) {
			const figures = await runOnce(
				setUp.sandbox,
				scenario.plan,
				scenario.latency,
				contender,
				shares(contender),
				setUp.windowMs,
			);
			runsOf.set(contender, [...(runsOf.get(contender) ?? []), { figures, n8nAloneWallMs }]);
		}
	}
	return runsOf;
}

/** The run whose wall ÷ its round's n8n alone is the median (the only run outside the webhook case). */
function medianRun(runs: ContenderRun[]): ContenderRun {
	const paired = (run: ContenderRun) => run.figures.wallMs / (run.n8nAloneWallMs ?? 1);
	const byRatio = [...runs].sort((a, b) => paired(a) - paired(b));
	return byRatio[Math.floor(byRatio.length / 2)];
}

function logRow(row: MakespanRow, contender: Contender): void {
	const { figures, n8nAloneWallMs, serviceAloneFloorMs = 0 } = row;
	// Where our node's 429s fell (each costs nothing, but a refused burst costs time).
	if (contender === 'decision-service' && figures.refusedAt.length) {
		const first = Math.min(...figures.timestamps);
		console.log(
			`  its 429s at (ms after its first decide answered 2xx) ${figures.refusedAt.map((time) => Math.round(time - first)).join(',')}`,
		);
	}
	console.log(
		`${row.plan} ${row.latency} ${row.size} ${row.contender}: makespan ${seconds(figures.makespanMs)} s, floor ${seconds(row.floorMs)} s (÷ ${(figures.makespanMs / row.floorMs).toFixed(2)}), the service alone ${seconds(serviceAloneFloorMs)} s (÷ the higher floor ${floorRatio(row).toFixed(2)}), wall ${seconds(figures.wallMs)} s${n8nAloneWallMs === undefined ? '' : ` (n8n alone ${seconds(n8nAloneWallMs)} s)`}, decision reads ${figures.decisionReads}, failed ${figures.failed}, rate_limited to the user ${figures.rateLimitedToUser}, 429s sent ${figures.sent429}, rate ${figures.rateRatio?.toFixed(3) ?? 'n/a'}, other load ${figures.otherCores.toFixed(2)}${figures.sampleError ? `; first error: ${figures.sampleError}` : ''}${figures.executionErrors.length ? `; execution errors: ${figures.executionErrors.slice(0, 2).join(' | ')}` : ''}`,
	);
}

/** One scenario: the service alone, every contender's runs, a row per contender (its median run). */
async function runScenario(
	setUp: BenchSetUp,
	scenario: Scenario,
	shares: (contender: Contender) => Share[],
): Promise<MakespanRow[]> {
	const serviceAloneFloorMs = await serviceAloneFloor(setUp, scenario);
	const runsOf = await runRounds(setUp, scenario, shares);
	return CONTENDERS.map((contender) => {
		const { figures, n8nAloneWallMs } = medianRun(runsOf.get(contender)!);
		const row: MakespanRow = {
			plan: scenario.plan.name,
			latency: scenario.latency.name,
			size: scenario.size,
			items: scenario.items,
			contender: contenderLabel(contender),
			floorMs: floorOf(scenario, figures, setUp.windowMs),
			n8nAloneWallMs,
			serviceAloneFloorMs,
			figures,
		};
		logRow(row, contender);
		return row;
	});
}

const sizes = (plan: Plan): Array<[string, number]> => [
	['1', 1],
	['10', 10],
	['100', 100],
	[`1 window (${plan.limit})`, plan.limit],
	[`3 windows (${3 * plan.limit})`, 3 * plan.limit],
];

/** Every scenario (or those --scenarios names): run sizes × plans × latencies, then the webhook case. */
async function runScenarios(
	setUp: BenchSetUp,
	main: BenchN8n,
	options: MakespanOptions,
): Promise<MakespanRow[]> {
	const runPlans = options.subset ? [FREE, SCALE] : [FREE, ...PLANS];
	const latencies = options.subset ? [LATENCIES[1], LATENCIES[2]] : LATENCIES;
	const rows: MakespanRow[] = [];
	const run = async (scenario: Scenario, shares: (contender: Contender) => Share[]) => {
		if (
			options.only &&
			!options.only.test(`${scenario.plan.name} ${scenario.latency.name} ${scenario.size}`)
		)
			return;
		rows.push(...(await runScenario(setUp, scenario, shares)));
	};
	// Size by size, plan by plan: our node's next run with a key comes after the other plans'
	// runs, so its rate gate's last window has (mostly) ended and few runs wait for it.
	for (const latency of latencies)
		for (let size = 0; size < 5; size++)
			for (const plan of runPlans) {
				const [sizeLabel, items] = sizes(plan)[size];
				await run({ plan, latency, size: sizeLabel, items }, (contender) => [
					{ n8n: main, path: setUp.pathOf(plan, contender), items },
				]);
			}
	// 60 webhook executions of one item each, arriving together.
	for (const plan of runPlans) {
		await run(
			{ plan, latency: LATENCIES[1], size: '60 executions × 1', items: 60, executions: 60 },
			(contender) =>
				Array.from({ length: 60 }, () => ({
					n8n: main,
					path: setUp.pathOf(plan, contender),
					items: 1,
				})),
		);
	}
	return rows;
}

/** --scenarios: each row's decides' arrival times, then the table. */
function printArrivals(rows: MakespanRow[]): void {
	for (const row of rows) {
		const first = Math.min(...row.figures.timestamps);
		const arrivals = row.figures.timestamps.map((time) => Math.round(time - first));
		console.log(`${row.contender}: decides arrived at (ms after the first) ${arrivals.join(',')}`);
	}
	console.log(`\n${table(rows)}\n`);
}

/** Two n8n processes on Scale's key, as two queue-mode workers, half of three windows each. */
async function runTwoProcesses(setUp: BenchSetUp, processes: BenchN8n[]): Promise<MakespanRow> {
	const items = 3 * SCALE.limit;
	const scenario: Scenario = {
		plan: SCALE,
		latency: LATENCIES[1],
		size: `3 windows (${items}), half in each of two n8n processes`,
		items,
	};
	const figures = await runTwoProcessesOnce(setUp, processes, items);
	const row: MakespanRow = {
		plan: SCALE.name,
		latency: LATENCIES[1].name,
		size: scenario.size,
		items,
		contender: contenderLabel('decision-service'),
		floorMs: floorOf(scenario, figures, setUp.windowMs),
		figures,
	};
	console.log(
		`two processes: makespan ${seconds(figures.makespanMs)} s, floor ${seconds(row.floorMs)} s, failed ${figures.failed}, 429s to the user ${figures.rateLimitedToUser}, sent ${figures.sent429}, rate ${figures.rateRatio?.toFixed(3)}`,
	);
	return row;
}

/**
 * Prints the tables and writes makespan[-LABEL].json, its table and its plot into the out folder;
 * without a label, also makespan-compare.md when makespan-before.json is there.
 */
async function writeMakespanReport(
	options: MakespanOptions,
	rows: MakespanRow[],
	twoRow: MakespanRow,
	minutes: number,
): Promise<void> {
	const { label, outDir, windowMs } = options;
	const report = `${table(rows)}\n\nTwo n8n processes on one key:\n\n${table([twoRow])}`;
	console.log(`\n${report}\n\nTook ${minutes.toFixed(1)} minutes.\n`);
	const base = label ? `makespan-${label}` : 'makespan';
	mkdirSync(outDir, { recursive: true });
	const points: RatioPoint[] = rows.map((row) => ({
		label: `${row.plan.split(' ')[0]} ${row.latency.split(',')[0]} ${row.size.split(' (')[0]}`,
		contender: row.contender.startsWith('decision-service') ? 'decision-service' : row.contender,
		ratio: row.figures.failed > 0 ? null : floorRatio(row),
	}));
	const plot = await renderRatioPlot(
		points,
		outDir,
		`${base}-ratio.png`,
		`makespan ÷ floor, items failed not drawn${label ? ` (${label})` : ''}; window ${windowMs / 1000} s`,
	);
	writeFileSync(
		join(outDir, `${base}.json`),
		`${JSON.stringify(
			{
				date: new Date().toISOString(),
				n8n: N8N_VERSION,
				windowMs,
				subset: options.subset,
				minutes,
				machine: machine(),
				rows,
				twoProcesses: twoRow,
			},
			(key, value) =>
				key === 'timestamps' || key === 'held' || key === 'refusedAt' ? undefined : value,
			2,
		)}\n`,
	);
	writeFileSync(join(outDir, `${base}-table.md`), `${report}\n\nPlot: ${plot}\n`);
	console.log(`Wrote ${outDir}: ${base}.json, ${base}-table.md, ${plot}`);
	const beforeFile = join(outDir, 'makespan-before.json');
	if (!label && existsSync(beforeFile)) {
		const compared = compareTable(JSON.parse(readFileSync(beforeFile, 'utf8')), {
			rows,
			twoProcesses: twoRow,
		});
		writeFileSync(join(outDir, 'makespan-compare.md'), `${compared}\n`);
		console.log(`\nBefore → after (our node, default settings):\n\n${compared}\n`);
	}
}

export async function runMakespan(): Promise<void> {
	const options = makespanOptions();
	const { windowMs } = options;
	const begun = performance.now();
	const work = mkdtempSync(join(tmpdir(), 'decision-service-makespan-'));
	const sandbox = await startSandbox({ port: 0, onExchange: recordExchange });
	const started: BenchN8n[] = [];
	try {
		console.log(
			`Sandbox ${sandbox.baseUrl}; rate window ${windowMs} ms (the plan's minute scaled ${(60_000 / windowMs).toFixed(1)}×).`,
		);
		const plans = [FREE, ...PLANS];
		const setUp = setUpBench({
			sandbox,
			windowMs,
			work,
			prefix: 'makespan',
			plans,
			bearerCredentials: true,
		});
		writeN8nWaitWorkflow(setUp);
		const main = await startMainN8n(setUp, [N8N_WAIT]);
		started.push(main);
		await warmUp(setUp, main, plans, 5);
		await runOnce(
			sandbox,
			FREE,
			NO_LATENCY,
			'n8n-wait',
			[{ n8n: main, path: N8N_WAIT.path, items: 5 }],
			windowMs,
		);
		main.idleCpuMsPerSecond = await measureIdleCpu(main.instance.process!.pid!);

		const rows = await runScenarios(setUp, main, options);
		if (options.only) {
			printArrivals(rows);
			return;
		}

		// Two n8n processes on one key, as two queue-mode workers: each its own rate gate.
		const second = await startSecondN8n(setUp, started, 5);
		const twoRow = await runTwoProcesses(setUp, [main, second]);

		await writeMakespanReport(options, rows, twoRow, (performance.now() - begun) / 60_000);
	} finally {
		for (const n8n of started) await n8n.instance.stop();
		await sandbox.close();
		rmSync(work, { recursive: true, force: true });
	}
}
