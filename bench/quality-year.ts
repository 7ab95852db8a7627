/**
 * Months of weekly quality watches, simulated on the shipped path (issue 43): the rows are
 * Data-Table rows as the product writes them (reviewed doubtful rows with a guess or a tie,
 * audited rows with `audit_share`, rows a team loaded with no `stratum` nor `reviewed_at`, rows of
 * items nobody reviewed), and each week the watch runs Evaluate's own steps on them: checkAll,
 * planRows (the stored answers, the Version Change Sample), the decides (a simulated service, one
 * unit each), scoreRows (`evaluate`), figuresAndDrift (the recent test like with like, the
 * version test, the alert) and scoredItems (`stored_row`, which *Store new answers* writes on
 * the row with its Data Table `id`, as the example does). The figures row is the next run's
 * Previous Figures. Only the service and the people are simulated; every choice the watch makes
 * is the node's.
 *
 * The machine: an item is doubtful (uncertain, its guess right 60 % of the time, or a tie: no
 * guess) or confident (answered, right 97 %); a new version answers a row as the old one did with
 * probability 0.85, else afresh at its own rates. Reviews: every doubtful item (or a share: the
 * others are `not_reviewed` rows), and confident items at the Audit Share. Watch settings:
 * False-Alarm Rate 1 %, Drop Alert Threshold 5, Recent Window 7 days, Version Change Sample 200.
 *
 * Prints per scenario: false alarms per run (quiet scenarios), a version 10 points worse found
 * on its first run, weeks to find drift in new traffic, units per version change (every run from
 * the change to the next), and writes bench/results/quality-year-table.md.
 *
 * Run: node --require tsx/cjs bench/quality-year.ts [--years 20] [--weeks 26] [--seed 43]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { Decision, RunAnswer } from '../src/contract';
import { reviewRow, type EvaluationDecision } from '../src/answer';
import { readAnswer, type ItemAnswer } from '../src/answer/item-answer';
import { LOADED, recentEvidence, summaryOf, type Evidence, type FiguresRow } from '../src/evaluate';
import { planRows, scoreRows } from '../nodes/DecisionService/actions/decision/evaluate/execute';
import { NotAsked, checkAll } from '../nodes/DecisionService/actions/decision/evaluate/inputs';
import { costOf } from '../nodes/DecisionService/actions/decision/evaluate/notices';
import { scoredItems } from '../nodes/DecisionService/actions/decision/evaluate/output';
import { figuresAndDrift } from '../nodes/DecisionService/actions/decision/evaluate/watch';
import { recentStrata } from '../nodes/DecisionService/actions/decision/evaluate/recent-rows';
import { newStats } from '../nodes/DecisionService/pipeline/receipt';
import { seeded } from '../scripts/make-labeled-set';
import { flag, option } from './setup';

const DAY = 24 * 60 * 60 * 1000;
const WEEK = 7 * DAY;
const SLUG = 'ticket-routing';
const KEYS = ['billing', 'technical', 'sales', 'account'];
const EVALUATION: EvaluationDecision = { type: 'route', keys: KEYS };
const SAMPLE = 200;
const SAME_ANSWER = 0.85;

/** A version's quality: its guess on doubtful items and its answer on confident ones. */
interface Quality {
	guess: number;
	answer: number;
}
const BASE: Quality = { guess: 0.6, answer: 0.97 };
const WORSE: Quality = { guess: 0.5, answer: 0.87 };
/** Worse where the machine doubts only: the sample's other side (it takes every kind in turn). */
const WORSE_GUESS: Quality = { guess: 0.4, answer: 0.97 };

export interface Scenario {
	name: string;
	quiet: boolean;
	/** Items a week, the doubtful share, ties among doubtful items. */
	items: number;
	doubtful: number;
	ties: number | ((week: number) => number);
	/** Audit Share of each week (0: no audit review that week). */
	audit: (week: number) => number;
	/** Doubtful items reviewed (the others: `not_reviewed` rows). */
	reviewed: number;
	/** Rows a team loads, by week (week 1: before the first run). */
	loaded: (week: number) => number;
	/** Weeks a version is published, and its quality. */
	versions: Map<number, Quality>;
	/** Quality of new traffic from a week on (drift), on the live version. */
	drift?: { week: number; quality: Quality };
	/**
	 * A new version doubts other items: an item it answers afresh is doubtful at the scenario's
	 * share again (else an item is doubtful, or not, on every version).
	 */
	statusChurn?: boolean;
}

/** One item of the simulated traffic, and the row it became. */
interface Row {
	cells: IDataObject;
	expected: string;
	/** Doubtful on the version live when it came (its row's stratum). */
	doubtful: boolean;
	tie: boolean;
	/** Doubtful per version, with statusChurn (shared across versions with SAME_ANSWER). */
	doubtfulOn: Map<number, boolean>;
	/** Its latent draw per version (shared across versions with probability SAME_ANSWER). */
	draws: Map<number, number>;
	/** Quality of the traffic it came from (drift), else the version's. */
	quality?: Quality;
}

interface World {
	scenario: Scenario;
	random: () => number;
	rows: Row[];
	live: number;
	qualities: Map<number, Quality>;
	/** The simulated clock: the watch runs at the end of each week. */
	now: number;
	previous: FiguresRow | undefined;
	nextId: number;
}

const wrongKey = (key: string, salt: number) =>
	KEYS[(KEYS.indexOf(key) + 1 + (salt % (KEYS.length - 1))) % KEYS.length];

function drawOf(world: World, row: Row, version: number): number {
	let draw = row.draws.get(version);
	if (draw === undefined) {
		const before = row.draws.get(version - 1);
		draw = before !== undefined && world.random() < SAME_ANSWER ? before : world.random();
		row.draws.set(version, draw);
	}
	return draw;
}

/** Whether a version doubts a row: its own kind, or (statusChurn) redrawn when answered afresh. */
function doubtfulOf(world: World, row: Row, version: number): boolean {
	if (!world.scenario.statusChurn) return row.doubtful;
	let doubtful = row.doubtfulOn.get(version);
	if (doubtful === undefined) {
		if (version < Math.min(...row.doubtfulOn.keys())) return row.doubtful;
		const before = row.doubtfulOn.has(version - 1)
			? row.doubtfulOn.get(version - 1)!
			: doubtfulOf(world, row, version - 1);
		doubtful = world.random() < SAME_ANSWER ? before : world.random() < world.scenario.doubtful;
		row.doubtfulOn.set(version, doubtful);
	}
	return doubtful;
}

/** What the service answers for a row on a version: a run as the contract reads it. */
function runOf(world: World, row: Row, version: number): RunAnswer {
	const quality = row.quality ?? world.qualities.get(version)!;
	const doubtful = doubtfulOf(world, row, version);
	const tie = doubtful && row.tie;
	const right = drawOf(world, row, version) < (doubtful ? quality.guess : quality.answer);
	const said = right ? row.expected : wrongKey(row.expected, world.nextId);
	const other = wrongKey(said, 1);
	const probabilities = tie
		? { [said]: 0.4, [other]: 0.4 }
		: { [said]: doubtful ? 0.5 : 0.9, [other]: doubtful ? 0.3 : 0.05 };
	return {
		run_id: `run_${world.nextId++}`,
		status: doubtful ? 'uncertain' : 'ok',
		choice: doubtful ? '__uncertain__' : said,
		confidence: doubtful ? 0.5 : 0.9,
		probabilities,
		version,
	} as unknown as RunAnswer;
}

const readRun = (run: RunAnswer) => readAnswer(run, 'route', KEYS) as ItemAnswer;

function newRow(world: World, quality: Quality | undefined): Row {
	const random = world.random;
	const doubtful = random() < world.scenario.doubtful;
	const ties = world.scenario.ties;
	const tieShare = typeof ties === 'number' ? ties : ties(Math.round(world.now / WEEK));
	return {
		cells: {},
		expected: KEYS[Math.floor(random() * KEYS.length)],
		doubtful,
		tie: doubtful && random() < tieShare,
		draws: new Map(),
		doubtfulOn: new Map([[world.live, doubtful]]),
		...(quality ? { quality } : {}),
	};
}

/** A row inserted in the Data Table, which gives it its own `id`. */
function store(world: World, row: Row): void {
	row.cells = { id: world.rows.length + 1, ...row.cells };
	world.rows.push(row);
}

/** A week of traffic: the reviews and the rows of items left, written as Review writes them. */
function trafficOf(world: World, week: number): void {
	const { scenario, random } = world;
	const audit = scenario.audit(week);
	const drift = scenario.drift && week >= scenario.drift.week ? scenario.drift.quality : undefined;
	for (let at = 0; at < scenario.items; at++) {
		const row = newRow(world, drift);
		if (!row.doubtful && !(random() < audit)) continue;
		const run = runOf(world, row, world.live);
		const answer = readRun(run);
		const said = answer.answer ?? answer.guess ?? [];
		const reviewedAt = new Date(world.now - WEEK + random() * WEEK).toISOString();
		const machine = {
			decision: SLUG,
			version: world.live,
			runId: run.run_id,
			machineStatus: run.status,
			machineAnswer: said,
			confidence: run.confidence ?? undefined,
			stratum: row.doubtful ? ('doubtful' as const) : ('audited' as const),
			...(row.doubtful ? {} : { auditShare: audit }),
			input: { subject: `ticket ${world.nextId}` },
			executionId: `${week}`,
		};
		if (row.doubtful && !(random() < scenario.reviewed)) {
			// Nobody reviewed it: the row Review writes, with no answer (src/answer/labeled-row.ts).
			row.cells = {
				...reviewRow({ ...machine, picked: [], labels: false, agreed: false, reviewedAt }),
				status: 'not_reviewed',
				answer: '',
			};
			delete row.cells.agreed;
		} else
			row.cells = reviewRow({
				...machine,
				picked: [row.expected],
				labels: false,
				agreed: said[0] === row.expected,
				reviewedAt,
			});
		store(world, row);
	}
}

/** Rows a team loads (quality-load-labeled.json): `review_id`, `status`, `answer`, `decision`, `input`. */
function loadRows(world: World, count: number): void {
	for (let at = 0; at < count; at++) {
		const row = newRow(world, undefined);
		row.cells = {
			review_id: `labeled-set/${world.nextId++}`,
			status: 'labeled',
			answer: row.expected,
			decision: SLUG,
			input: JSON.stringify({ subject: `loaded ${at}` }),
		};
		store(world, row);
	}
}

/** Evaluate's parameters as the watch sets them, read per item by the shipped checkAll. */
function contextOf(items: INodeExecutionData[]): IExecuteFunctions {
	return {
		getNode: () => ({ name: 'Watch quality', type: 'decisionService', typeVersion: 1 }),
		getNodeParameter: (name: string, itemIndex: number) =>
			name === 'decision' ? SLUG : name === 'expected' ? items[itemIndex].json.answer : undefined,
	} as unknown as IExecuteFunctions;
}

interface RunResult {
	alert: boolean;
	evidence: Evidence[];
	units: number;
	/** Rows decided because their stored answer was another version's. */
	changeUnits: number;
	/** The recent test before issue 43 on the same rows: every kind pooled into one. */
	pooledAlert: boolean;
}

/** The watch's recent rows, every kind pooled (the test as it was before strata). */
function pooledAlert(strata: ReturnType<typeof recentStrata>): boolean {
	const pooled = {
		stratum: LOADED,
		recent: { successes: 0, n: 0 },
		earlier: { successes: 0, n: 0 },
	};
	for (const each of strata)
		for (const side of ['recent', 'earlier'] as const) {
			pooled[side].successes += each[side].successes;
			pooled[side].n += each[side].n;
		}
	return recentEvidence([pooled], { falseAlarmRate: 0.01, threshold: 5 }).alert;
}

/** One run of the watch at world.now: Evaluate's steps, then what the example stores. */
function watchRun(world: World): RunResult {
	// The node reads the wall clock (reviewed_at against Date.now()): shift the rows' times to it.
	const shift = Date.now() - world.now;
	const items: INodeExecutionData[] = world.rows.map((row) => {
		const at = row.cells.reviewed_at;
		return {
			json:
				typeof at === 'string'
					? { ...row.cells, reviewed_at: new Date(Date.parse(at) + shift).toISOString() }
					: { ...row.cells },
		};
	});
	const decision = {
		slug: SLUG,
		name: 'Ticket routing',
		type: 'route',
		live_version: world.live,
		confidence_threshold: 0.7,
	} as unknown as Decision;
	const options = {
		falseAlarmRate: 1,
		dropThreshold: 5,
		recentWindowDays: 7,
		versionChangeSample: SAMPLE,
		previousFigures: world.previous ? [world.previous] : [],
	};
	const run = {
		decision,
		evaluationDecision: EVALUATION,
		slug: SLUG,
		options,
		targetAccuracy: 0.9,
		resultField: 'decision',
		readRun,
		liveVersion: world.live,
	} as unknown as Parameters<typeof planRows>[2];
	const checked = checkAll(contextOf(items), items, EVALUATION, SLUG);
	const planned = planRows(items, checked, run);
	const results: Array<RunAnswer | Error> = [];
	const stats = newStats();
	items.forEach((_, at) => {
		const asked =
			!checked.errors[at] &&
			!planned.carried[at] &&
			!planned.repeats.has(at) &&
			!planned.plan.left.has(at);
		if (!asked) return;
		results[at] = runOf(world, world.rows[at], world.live);
		stats.charged++;
	});
	const decided = {
		notAsked: new NotAsked('not asked'),
		stats,
		prepared: [],
		results,
		liveCharged: stats.charged,
	} as unknown as Parameters<typeof scoreRows>[4];
	const { scoring, metrics, unscored, evaluateOptions } = scoreRows(
		items,
		run,
		checked,
		planned,
		decided,
	);
	const cost = costOf(metrics, stats, stats.charged, undefined);
	const summary = summaryOf(metrics, cost);
	const { figures, drift } = figuresAndDrift({
		items,
		decision,
		evaluationDecision: EVALUATION,
		options,
		plan: planned.plan,
		scoring,
		metrics,
		evaluateOptions,
		summary,
		cost,
		charged: { total: stats.charged, live: stats.charged },
		unscored: { badRows: unscored.badRows.length, notScored: unscored.notScored.length },
		said: { badRows: [], notScoredBecause: '' },
	});
	// *Decided again* → *New answer* → *Store new answers* (Update by the Data Table row's id).
	const outcome = { decision, metrics, scoring, left: planned.plan.left, repeats: planned.repeats };
	const scored = scoredItems(
		items,
		outcome as unknown as Parameters<typeof scoredItems>[1],
		results,
		planned.carried,
		'decision',
		false,
	);
	const byId = new Map(world.rows.map((row) => [row.cells.id, row]));
	for (const item of scored) {
		const update = item.json.stored_row as IDataObject | undefined;
		if (update) Object.assign(byId.get(update.id)!.cells, update);
	}
	if (!figures.partial) world.previous = figures;
	return {
		alert: drift.dropped,
		evidence: drift.evidence,
		units: stats.charged,
		changeUnits: planned.plan.sampled.size,
		pooledAlert: pooledAlert(recentStrata(items, metrics, Date.now() - WEEK)),
	};
}

export interface ScenarioResult {
	runs: number;
	alerts: number;
	recentAlerts: number;
	versionAlerts: number;
	pooledAlerts: number;
	/** Worse versions published, and those alerted on their first run. */
	worse: number;
	worseFound: number;
	/** Worse versions whose first run alerted by either test (the recent rows too). */
	worseAlerted: number;
	/** Drift: weeks from its start to the first alert, per simulated period (null: never). */
	detected: Array<number | null>;
	/** Units from each version change's run to the next change (or the end). */
	perChange: number[];
	units: number;
	rowsAtEnd: number;
	/** Quiet scenarios: recent tests with an interval, and those holding 0 (no change). */
	intervals: number;
	held: number;
}

/** A simulated period of weekly runs. */
function simulate(scenario: Scenario, weeks: number, random: () => number, into: ScenarioResult) {
	const world: World = {
		scenario,
		random,
		rows: [],
		live: 1,
		qualities: new Map([[1, BASE]]),
		now: 0,
		previous: undefined,
		nextId: 1,
	};
	let change: number | null = null;
	let found: number | null = null;
	for (let week = 1; week <= weeks; week++) {
		world.now = week * WEEK;
		const published = scenario.versions.get(week);
		if (published) {
			if (change !== null) into.perChange.push(change);
			change = 0;
			world.live++;
			world.qualities.set(world.live, published);
		}
		loadRows(world, scenario.loaded(week));
		trafficOf(world, week);
		const result = watchRun(world);
		if (change !== null) change += result.changeUnits;
		into.units += result.units;
		if (week === 1) continue; // the baseline: no previous figures
		into.runs++;
		if (result.alert) into.alerts++;
		const alerted = (kind: string) => result.evidence.some((e) => e.kind === kind && e.alert);
		if (alerted('recent')) into.recentAlerts++;
		if (alerted('version')) into.versionAlerts++;
		if (result.pooledAlert) into.pooledAlerts++;
		const recent = result.evidence.find((e) => e.kind === 'recent');
		if (scenario.quiet && recent && recent.low !== null && recent.high !== null) {
			into.intervals++;
			if (recent.low <= 0 && recent.high >= 0) into.held++;
		}
		if (published && published !== BASE) {
			into.worse++;
			if (alerted('version')) into.worseFound++;
			if (result.alert) into.worseAlerted++;
		}
		if (scenario.drift && week >= scenario.drift.week && found === null && result.alert)
			found = week - scenario.drift.week + 1;
	}
	if (change !== null) into.perChange.push(change);
	if (scenario.drift) into.detected.push(found);
	into.rowsAtEnd += world.rows.length;
}

const always = (value: number) => () => value;
const QUIET_VERSIONS = new Map([
	[9, BASE],
	[18, BASE],
]);

export function scenarios(): Scenario[] {
	const base: Scenario = {
		name: 'quiet',
		quiet: true,
		items: 300,
		doubtful: 0.15,
		ties: 0.05,
		audit: always(0.05),
		reviewed: 1,
		loaded: (week) => (week === 1 ? 240 : 0),
		versions: QUIET_VERSIONS,
	};
	return [
		base,
		{ ...base, name: 'mix: no audit review every 4th week', audit: (w) => (w % 4 ? 0.05 : 0) },
		{ ...base, name: 'mix: Audit Share halves (week 10)', audit: (w) => (w < 10 ? 0.05 : 0.025) },
		{
			...base,
			name: 'mix: 300 more loaded rows (week 10)',
			loaded: (w) => [0, 240, 0, 0, 0, 0, 0, 0, 0, 0, 300][w] ?? 0,
		},
		{ ...base, name: 'partial review (half the doubtful items)', reviewed: 0.5 },
		{
			...base,
			name: 'ties (30 % of doubtful items, 5 % before week 10)',
			ties: (w) => (w < 10 ? 0.05 : 0.3),
		},
		{
			...base,
			name: 'loaded rows only (600, no review)',
			items: 0,
			loaded: (w) => (w === 1 ? 600 : 0),
			versions: QUIET_VERSIONS,
		},
		{
			...base,
			name: 'drift in new traffic (week 10, 10 points)',
			quiet: false,
			drift: { week: 10, quality: WORSE },
		},
		{
			...base,
			name: 'a version 10 points worse (weeks 6, 14, 22; better again at 10, 18)',
			quiet: false,
			versions: new Map([
				[6, WORSE],
				[10, BASE],
				[14, WORSE],
				[18, BASE],
				[22, WORSE],
			]),
		},
		{
			...base,
			name: 'quiet, a new version doubts other items (15 % answered afresh)',
			statusChurn: true,
		},
		{
			...base,
			name: 'a version 10 points worse that doubts other items (weeks 6, 14, 22)',
			quiet: false,
			statusChurn: true,
			versions: new Map([
				[6, WORSE],
				[10, BASE],
				[14, WORSE],
				[18, BASE],
				[22, WORSE],
			]),
		},
		{
			...base,
			name: 'a version worse on doubtful items only (guess 60 → 40 %; weeks 6, 14, 22)',
			quiet: false,
			versions: new Map([
				[6, WORSE_GUESS],
				[10, BASE],
				[14, WORSE_GUESS],
				[18, BASE],
				[22, WORSE_GUESS],
			]),
		},
	];
}

const percent = (part: number, whole: number) =>
	whole ? `${((part / whole) * 100).toFixed(2)} %` : '–';

const quantile = (values: number[], q: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
};

function row(scenario: Scenario, result: ScenarioResult, periods: number): string {
	const found = result.detected.filter((each): each is number => each !== null);
	const changes = result.perChange;
	return [
		scenario.name,
		result.runs.toLocaleString('en-US'),
		scenario.quiet ? percent(result.alerts, result.runs) : '–',
		scenario.quiet
			? `${percent(result.recentAlerts, result.runs)} / ${percent(result.versionAlerts, result.runs)}`
			: '–',
		percent(result.pooledAlerts, result.runs),
		result.worse
			? `${percent(result.worseFound, result.worse)} of ${result.worse} (any alert ${percent(result.worseAlerted, result.worse)})`
			: '–',
		scenario.drift
			? `${percent(found.length, result.detected.length)}; median ${quantile(found, 0.5)}, 90th pct ${quantile(found, 0.9)}`
			: '–',
		changes.length
			? `${Math.max(...changes)} max, ${(changes.reduce((a, b) => a + b, 0) / changes.length).toFixed(0)} mean`
			: '–',
		Math.round(result.units / periods).toLocaleString('en-US'),
		Math.round(result.rowsAtEnd / periods).toLocaleString('en-US'),
		scenario.quiet ? `${percent(result.held, result.intervals)} of ${result.intervals}` : '–',
	].join(' | ');
}

function main() {
	const periods = flag('years', 20);
	const weeks = flag('weeks', 26);
	const seed = flag('seed', 43);
	const lines = [
		`Weekly runs over ${weeks} weeks, ${periods} simulated periods per scenario, seed ${seed}.`,
		'',
		'| scenario | runs | false alarms a run (set 1 %) | of which recent / version | recent rows pooled (before issue 43) | worse version found on its first run, by the version test (by any alert) | drift found (weeks to first alert) | units per version change | units a period | rows at the end | recent interval holds 0 (quiet) |',
		'|---|---|---|---|---|---|---|---|---|---|---|',
	];
	console.log(lines.join('\n'));
	const only = option('only');
	for (const scenario of scenarios().filter((each) => !only || each.name.includes(only))) {
		const random = seeded(seed + scenario.name.length * 7919);
		const result: ScenarioResult = {
			runs: 0,
			alerts: 0,
			recentAlerts: 0,
			versionAlerts: 0,
			pooledAlerts: 0,
			worse: 0,
			worseFound: 0,
			worseAlerted: 0,
			detected: [],
			perChange: [],
			units: 0,
			rowsAtEnd: 0,
			intervals: 0,
			held: 0,
		};
		for (let period = 0; period < periods; period++) simulate(scenario, weeks, random, result);
		const line = `| ${row(scenario, result, periods)} |`;
		lines.push(line);
		console.log(line);
	}
	// A run of some scenarios only (--only) prints; the table is the whole bench's.
	if (!only)
		writeFileSync(join(__dirname, 'results', 'quality-year-table.md'), `${lines.join('\n')}\n`);
}

if (require.main === module) main();
