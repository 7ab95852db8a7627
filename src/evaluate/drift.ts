// Quality watched run after run: an evaluation's figures as one flat row (what n8n's Data Table
// node stores with no mapping by hand), what changed since the row of the last evaluation, and
// that change in a few lines a Slack or e-mail node sends as they are (docs/quality-watch.md).
// Pure. Keys from data (options, levels, labels) are values here, never object keys. Over 260
// lines: the row, its reading back and the comparison share one shape, kept in one file.
import type { ClassMetrics, Metrics } from './metrics-types';
import type { Summary } from './summary';
import {
	binomialCdf,
	itemsNeeded,
	normalCdf,
	normalQuantile,
	twoProportionTest,
	wilsonInterval,
	type ProportionCount,
	type ProportionInterval,
} from './stats';

/** The columns of the figures table, in the order a table is created with them. */
export const FIGURES_ROW_COLUMNS: ReadonlyArray<{
	name: string;
	type: 'string' | 'number' | 'boolean';
}> = [
	{ name: 'evaluated_at', type: 'string' },
	{ name: 'decision', type: 'string' },
	{ name: 'live_version', type: 'number' },
	{ name: 'total', type: 'number' },
	{ name: 'answered', type: 'number' },
	{ name: 'right', type: 'number' },
	{ name: 'accuracy', type: 'number' },
	{ name: 'coverage', type: 'number' },
	{ name: 'min_confidence', type: 'number' },
	{ name: 'close_call_gap', type: 'number' },
	{ name: 'units_charged', type: 'number' },
	{ name: 'per_answer', type: 'string' },
	{ name: 'partial', type: 'boolean' },
	{ name: 'not_scored', type: 'number' },
	{ name: 'bad_rows', type: 'number' },
];

/** One answer's precision and recall (null: nothing to divide by). */
export interface AnswerFigures {
	key: string;
	precision: number | null;
	recall: number | null;
	support: number;
}

/** An evaluation's figures as one flat row; `per_answer` is JSON text of `AnswerFigures[]`. */
export interface FiguresRow {
	evaluated_at: string;
	decision: string;
	live_version: number | null;
	total: number;
	answered: number;
	right: number;
	accuracy: number | null;
	coverage: number | null;
	min_confidence: number | null;
	close_call_gap: number | null;
	units_charged: number;
	per_answer: string;
	/**
	 * Some rows were not scored for a reason that is not theirs (Max Decides per Execution, the
	 * service failing): the figures cover part of the set, so they are never a baseline.
	 */
	partial: boolean;
	/** Rows not scored for that reason. */
	not_scored: number;
	/** Rows not scored because of what they hold (named in the report, to fix). */
	bad_rows: number;
}

const round = (value: number | null | undefined): number | null =>
	typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 1e4) / 1e4 : null;

function classesOf(metrics: Metrics): ClassMetrics[] {
	return metrics.type === 'classify' ? metrics.labels : metrics.classes;
}

/** The row of an evaluation: the figures a watch compares from one run to the next. */
export function figuresRow(
	metrics: Metrics,
	summary: Summary,
	meta: {
		decision: string;
		liveVersion: number | null;
		evaluatedAt: string;
		/** Units this node charged (live and compared decides); else the scored items' own. */
		unitsCharged?: number;
		notScored?: number;
		badRows?: number;
	},
): FiguresRow {
	const perAnswer: AnswerFigures[] = classesOf(metrics).map((each) => ({
		key: each.key,
		precision: round(each.precision),
		recall: round(each.recall),
		support: each.support,
	}));
	return {
		evaluated_at: meta.evaluatedAt,
		decision: meta.decision,
		live_version: meta.liveVersion,
		total: metrics.total,
		answered: metrics.answered,
		right: metrics.items.filter((outcome) => outcome.correct === true).length,
		accuracy: round(metrics.accuracy),
		coverage: round(metrics.coverage),
		min_confidence: summary.confidence ? summary.confidence.value : null,
		close_call_gap: summary.closeCallGap ? summary.closeCallGap.value : null,
		units_charged: meta.unitsCharged ?? metrics.units.charged,
		per_answer: JSON.stringify(perAnswer),
		partial: (meta.notScored ?? 0) > 0,
		not_scored: meta.notScored ?? 0,
		bad_rows: meta.badRows ?? 0,
	};
}

/** A stored yes/no as a Data Table, a sheet or JSON gives it back. */
function isYes(value: unknown): boolean {
	return value === true || value === 1 || value === 'true' || value === '1';
}

const numberOrNull = (value: unknown): number | null => {
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
		return Number(value);
	return null;
};

function own(value: object, key: string): unknown {
	return Object.prototype.hasOwnProperty.call(value, key)
		? (value as Record<string, unknown>)[key]
		: undefined;
}

function perAnswerOf(value: unknown): AnswerFigures[] {
	let list: unknown = value;
	if (typeof value === 'string') {
		try {
			list = JSON.parse(value);
		} catch {
			return [];
		}
	}
	if (!Array.isArray(list)) return [];
	return list.flatMap((each: unknown) => {
		if (typeof each !== 'object' || each === null) return [];
		const key = own(each, 'key');
		if (typeof key !== 'string') return [];
		return [
			{
				key,
				precision: numberOrNull(own(each, 'precision')),
				recall: numberOrNull(own(each, 'recall')),
				support: numberOrNull(own(each, 'support')) ?? 0,
			},
		];
	});
}

/**
 * A previous row read back (from a Data Table, a sheet, an earlier report's `figures`): undefined
 * when it holds no figures (an empty item, the first run of a watch) or partial ones (a capped
 * run: never a baseline). Also accepts JSON text, and a list of rows oldest first: the last full
 * one is read.
 */
export function readFiguresRow(value: unknown): FiguresRow | undefined {
	let row: unknown = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return undefined;
		try {
			row = JSON.parse(value);
		} catch {
			return undefined;
		}
	}
	if (Array.isArray(row)) {
		for (let at = row.length - 1; at >= 0; at--) {
			const read = readFiguresRow(row[at] as unknown);
			if (read) return read;
		}
		return undefined;
	}
	if (typeof row !== 'object' || row === null) return undefined;
	if (isYes(own(row, 'partial'))) return undefined;
	const total = numberOrNull(own(row, 'total'));
	const accuracy = numberOrNull(own(row, 'accuracy'));
	const coverage = numberOrNull(own(row, 'coverage'));
	if (total === null && accuracy === null && coverage === null) return undefined;
	const text = (key: string) => {
		const each = own(row as object, key);
		return typeof each === 'string' ? each : each instanceof Date ? each.toISOString() : '';
	};
	return {
		evaluated_at: text('evaluated_at'),
		decision: text('decision'),
		live_version: numberOrNull(own(row, 'live_version')),
		total: total ?? 0,
		answered: numberOrNull(own(row, 'answered')) ?? 0,
		right: numberOrNull(own(row, 'right')) ?? 0,
		accuracy,
		coverage,
		min_confidence: numberOrNull(own(row, 'min_confidence')),
		close_call_gap: numberOrNull(own(row, 'close_call_gap')),
		units_charged: numberOrNull(own(row, 'units_charged')) ?? 0,
		per_answer: JSON.stringify(perAnswerOf(own(row, 'per_answer'))),
		partial: false,
		not_scored: numberOrNull(own(row, 'not_scored')) ?? 0,
		bad_rows: numberOrNull(own(row, 'bad_rows')) ?? 0,
	};
}

/** A figure then and now; `points`: the change in percentage points (rates only). */
export interface Change {
	before: number | null;
	after: number | null;
	points?: number | null;
}

export interface AnswerChange {
	key: string;
	precision: Change;
	recall: Change;
}

export interface Drift {
	/** Whether earlier figures were given and compared (never for a partial run). */
	compared: boolean;
	/** This run's figures are partial: not compared, and not a baseline. */
	partial: boolean;
	previous_evaluated_at: string | null;
	previous_version: number | null;
	accuracy: Change;
	coverage: Change;
	min_confidence: Change;
	close_call_gap: Change;
	/** Answers whose precision or recall moved (by 0.1 point or more), or that are new or gone. */
	per_answer: AnswerChange[];
	/** Accuracy points lost since the previous figures (0 when it rose); null when not comparable. */
	accuracy_drop: number | null;
	threshold: number;
	/** The alert fires: with evidence, a test passed (and the threshold reached); else the raw drop is beyond the threshold. */
	dropped: boolean;
	/** The tests behind the alert, when the watch ran them. */
	evidence: Evidence[];
	/** The change in a few lines, to send as it is. */
	message: string;
}

const points = (before: number | null, after: number | null): number | null =>
	before === null || after === null ? null : Math.round((after - before) * 1000) / 10;

const change = (before: number | null, after: number | null, rate = true): Change =>
	rate ? { before, after, points: points(before, after) } : { before, after };

const percent = (value: number | null): string =>
	value === null ? '–' : `${Math.round(value * 1000) / 10}%`;

const signed = (value: number): string =>
	value > 0 ? `+${value.toFixed(1)}` : value < 0 ? `−${Math.abs(value).toFixed(1)}` : '±0.0';

const setting = (value: number | null): string =>
	value === null ? 'none reaches the target' : value === 0 ? 'none needed' : value.toFixed(2);

function rateLine(name: string, each: Change): string {
	const now = `${name} ${percent(each.after)}`;
	if (each.points === null || each.points === undefined) return now;
	return `${now} (${signed(each.points)} points, was ${percent(each.before)})`;
}

function settingLine(name: string, each: Change, compared: boolean): string {
	const now = `${name}: ${setting(each.after)}`;
	if (!compared) return now;
	return each.before === each.after ? `${now} (unchanged)` : `${now} (was ${setting(each.before)})`;
}

function answerLine(each: AnswerChange): string {
	const part = (name: string, figure: Change) =>
		figure.before === figure.after
			? `${name} ${percent(figure.after)}`
			: `${name} ${percent(figure.before)} → ${percent(figure.after)}`;
	return `${each.key}: ${part('precision', each.precision)}, ${part('recall', each.recall)}`;
}

/**
 * The evidence behind an alert: a change with its 95 % interval and a one-sided p-value for a
 * drop, tested at the false-alarm rate the user sets. `recent`: rows reviewed within the window
 * against the rows before (two-proportion test, different rows); `version`: the same rows on the
 * old and the live version (paired, McNemar's exact test).
 */
export interface Evidence {
	kind: 'recent' | 'version';
	/** Accuracy before (earlier rows, or the old version) and now (recent rows, or the live version). */
	before: ProportionInterval;
	after: ProportionInterval;
	/** after − before in points, with its 95 % interval; null when a side has no row. */
	points: number | null;
	low: number | null;
	high: number | null;
	/** One-sided: the chance of a drop at least this large with no real change; null: not testable. */
	p_value: number | null;
	false_alarm_rate: number;
	/** Points the drop must also reach (the Drop Alert Threshold). */
	threshold: number;
	/** Rows the test stands on (recent rows; the paired rows). */
	rows: number;
	/** About how many rows a drop of the threshold needs to be told (at that rate, 4 times in 5). */
	needed: number;
	too_few: boolean;
	/** The test passed at the false-alarm rate AND the drop reaches the threshold. */
	alert: boolean;
	/** The evidence in words, one line. */
	words: string;
}

export interface EvidenceOptions {
	/** The false-alarm rate of one run, 0.01 for 1 %. */
	falseAlarmRate: number;
	/** Points a drop must also reach (0: the test alone). */
	threshold: number;
}

/** Power the "about M needed" aims at: a drop of the threshold told 4 times in 5. */
const POWER = 0.8;

const pct = (value: number) => `${(Math.round(value * 1000) / 10).toFixed(1)}%`;
const pointsText = (value: number) => signed(Math.round(value * 10) / 10);

/** A one-sided p-value in words a team reads: how often chance alone would show this. */
export function pValueWords(pValue: number): string {
	if (pValue >= 0.2) return `chance alone shows a drop this large often (p = ${pValue.toFixed(2)})`;
	const times = Math.round(1 / pValue);
	const shown =
		times >= 10_000 ? 'fewer than 1 in 10,000' : `about 1 in ${times.toLocaleString('en-US')}`;
	const exact = pValue < 0.0001 ? '< 0.0001' : `= ${pValue.toPrecision(2)}`;
	return `chance alone shows a drop this large in ${shown} quiet runs (p ${exact})`;
}

/** Rows (per side) a drop of `threshold` points from accuracy `base` needs to be told. */
function rowsNeeded(base: number | null, threshold: number, falseAlarmRate: number): number {
	const drop = Math.max(threshold, 1) / 100;
	const z = normalQuantile(1 - falseAlarmRate) + normalQuantile(POWER);
	// itemsNeeded at the level whose two-sided critical value is z: half-width = the drop.
	const proportion = Math.min(0.99, Math.max(0.01, base ?? 0.5));
	return itemsNeeded(Math.min(drop, 0.99), proportion, 2 * normalCdf(z) - 1);
}

function checkRate(falseAlarmRate: number): void {
	if (!(falseAlarmRate > 0 && falseAlarmRate < 0.5))
		throw new RangeError(
			`The false-alarm rate must be above 0 and below 50 % (1 for 1 %), got ${falseAlarmRate * 100} %.`,
		);
}

function evidenceOf(
	kind: Evidence['kind'],
	before: ProportionInterval,
	after: ProportionInterval,
	change: { points: number; low: number; high: number } | null,
	pValue: number | null,
	rows: number,
	options: EvidenceOptions,
): Evidence {
	const needed = rowsNeeded(before.value, options.threshold, options.falseAlarmRate);
	const tested = pValue !== null && pValue < options.falseAlarmRate;
	const alert = tested && change !== null && -change.points >= options.threshold;
	// Too few: no alert, and the interval still holds a drop of the threshold (it cannot be ruled out).
	const tooFew =
		!alert && rows < needed && (change === null || change.low <= -Math.max(options.threshold, 1));
	const what =
		kind === 'recent'
			? `Recent rows: accuracy ${after.value === null ? '–' : pct(after.value)} on ${count(after.n)} against ${before.value === null ? '–' : pct(before.value)} on ${count(before.n)} before`
			: `Same ${rows} rows on the live version: accuracy ${after.value === null ? '–' : pct(after.value)} against ${before.value === null ? '–' : pct(before.value)} on the old one`;
	const parts = [what];
	if (change)
		parts.push(
			`${pointsText(change.points)} points (95 % interval ${pointsText(change.low)} to ${pointsText(change.high)})`,
		);
	if (pValue !== null && change && change.points < 0) parts.push(pValueWords(pValue));
	let verdict: string;
	if (alert)
		verdict = `Alert: a drop beyond chance at the ${options.falseAlarmRate * 100} % false-alarm rate${options.threshold > 0 ? ` and at least ${options.threshold} points` : ''}.`;
	else if (tooFew)
		verdict = `Too few rows to tell (${rows} ${kind === 'recent' ? 'recent' : 'paired'}; about ${needed} needed).`;
	else if (tested)
		verdict = `A drop beyond chance, but under the ${options.threshold}-point threshold: no alert.`;
	else verdict = 'No drop beyond chance.';
	return {
		kind,
		before,
		after,
		points: change ? change.points : null,
		low: change ? change.low : null,
		high: change ? change.high : null,
		p_value: pValue,
		false_alarm_rate: options.falseAlarmRate,
		threshold: options.threshold,
		rows,
		needed,
		too_few: tooFew,
		alert,
		words: `${parts.join(': ')}. ${verdict}`,
	};
}

const count = (value: number) => value.toLocaleString('en-US');

const toPoints = (value: number) => Math.round(value * 10000) / 100;

/**
 * Recent rows against the rows before them (different rows): the pooled two-proportion z test,
 * one-sided for a drop; the change's 95 % interval is Newcombe's hybrid score interval (from the
 * two Wilson intervals), which holds its level with few rows.
 */
export function recentEvidence(
	recent: ProportionCount,
	earlier: ProportionCount,
	options: EvidenceOptions,
): Evidence {
	checkRate(options.falseAlarmRate);
	const test = twoProportionTest(recent, earlier);
	const { recent: after, earlier: before } = test;
	let change: { points: number; low: number; high: number } | null = null;
	if (test.difference !== null && after.value !== null && before.value !== null) {
		const d = test.difference;
		change = {
			points: toPoints(d),
			low: toPoints(d - Math.hypot(after.value - after.low, before.high - before.value)),
			high: toPoints(d + Math.hypot(after.high - after.value, before.value - before.low)),
		};
	}
	// The p-value with Yates' continuity correction: half a row toward no drop on each side (the
	// pooled rate unchanged). Without it, the skewed lower tail near 90 % alerts more often than
	// the rate set (1.8 % at 34 rows a week: bench/quality-year.ts).
	let pValue: number | null = null;
	if (test.z !== null) {
		const corrected = twoProportionTest(
			{ successes: Math.min(recent.n, recent.successes + 0.5), n: recent.n },
			{ successes: Math.max(0, earlier.successes - 0.5), n: earlier.n },
		);
		pValue = corrected.z === null ? null : normalCdf(corrected.z);
	}
	return evidenceOf('recent', before, after, change, pValue, recent.n, options);
}

/** The same rows on two versions: how many each got right. */
export interface PairedCount {
	/** Rows both versions answered (or guessed). */
	n: number;
	/** Right on the old version only. */
	onlyOld: number;
	/** Right on the live version only. */
	onlyLive: number;
	/** Right on both. */
	both: number;
}

/**
 * The same rows on the old and the live version: McNemar's exact test, one-sided for a drop
 * (P(X ≤ onlyLive), X ~ Binomial(discordant, ½)); the change's 95 % interval from the Wilson
 * intervals of the rows only one version got right.
 */
export function versionEvidence(pairs: PairedCount, options: EvidenceOptions): Evidence {
	checkRate(options.falseAlarmRate);
	const { n, onlyOld, onlyLive, both } = pairs;
	const before = wilsonInterval(both + onlyOld, n);
	const after = wilsonInterval(both + onlyLive, n);
	const discordant = onlyOld + onlyLive;
	let change: { points: number; low: number; high: number } | null = null;
	let pValue: number | null = null;
	if (n > 0) {
		// The rows only the live version got right, less those only the old one did: each share
		// with its Wilson interval, combined as Newcombe's hybrid score interval does.
		const gained = wilsonInterval(onlyLive, n);
		const lost = wilsonInterval(onlyOld, n);
		const d = (onlyLive - onlyOld) / n;
		const [g, l] = [onlyLive / n, onlyOld / n];
		change = {
			points: toPoints(d),
			low: toPoints(d - Math.hypot(g - gained.low, lost.high - l)),
			high: toPoints(d + Math.hypot(gained.high - g, l - lost.low)),
		};
		pValue = discordant === 0 ? 1 : binomialCdf(onlyLive, discordant, 0.5);
	}
	return evidenceOf('version', before, after, change, pValue, n, options);
}

/** What the message says beside the figures: the rows to fix, why rows went unscored, the cost. */
export interface RunNotes {
	/** Each bad row named, with what to fix. */
	badRows?: readonly string[];
	/** Why rows went unscored (a partial run). */
	notScoredBecause?: string;
	/** Runs the items carried, paid by the node that decided them (one unit each). */
	paidUpstream?: number;
	/**
	 * The tests behind the alert (recent rows, a version change). When given, the alert is theirs
	 * (a test passed and its drop reaches the threshold), not the raw points of the whole table.
	 */
	evidence?: readonly Evidence[];
	/** Lines said before the cost (what the run decided and why). */
	extraLines?: readonly string[];
	/**
	 * The doubtful rows (left to a person) in words: said after the figures, and in place of the
	 * accuracy lines when no row was answered (their guesses are what there is to say).
	 */
	doubtful?: readonly string[];
}

const plural = (count: number, one: string, many = `${one}s`) =>
	`${count} ${count === 1 ? one : many}`;

const when = (row: FiguresRow) =>
	row.evaluated_at ? `${row.evaluated_at.slice(0, 16).replace('T', ' ')} UTC` : 'the last run';

/**
 * What changed between the previous row and this one, and whether accuracy dropped by more than
 * `threshold` points. `name`: the decision's name for the message. A partial run (current.partial)
 * is compared with nothing: its figures cover part of the set.
 */
export function driftOf(
	previous: FiguresRow | undefined,
	current: FiguresRow,
	threshold: number,
	name = current.decision,
	notes: RunNotes = {},
): Drift {
	const before = current.partial ? undefined : previous;
	const accuracy = change(before ? before.accuracy : null, current.accuracy);
	const coverage = change(before ? before.coverage : null, current.coverage);
	const minConfidence = change(
		before ? before.min_confidence : null,
		current.min_confidence,
		false,
	);
	const closeCallGap = change(before ? before.close_call_gap : null, current.close_call_gap, false);
	const then = new Map(
		perAnswerOf(before ? before.per_answer : '[]').map((each) => [each.key, each]),
	);
	const now = perAnswerOf(current.per_answer);
	const perAnswer: AnswerChange[] = [];
	if (before) {
		const moved = (a: number | null, b: number | null) =>
			a === null || b === null ? a !== b : Math.abs(a - b) >= 0.001;
		for (const each of now) {
			const old = then.get(each.key);
			const precision = change(old ? old.precision : null, each.precision);
			const recall = change(old ? old.recall : null, each.recall);
			if (!old || moved(old.precision, each.precision) || moved(old.recall, each.recall))
				perAnswer.push({ key: each.key, precision, recall });
		}
		const keys = new Set(now.map((each) => each.key));
		for (const [key, old] of then)
			if (!keys.has(key))
				perAnswer.push({
					key,
					precision: change(old.precision, null),
					recall: change(old.recall, null),
				});
	}
	const lost = accuracy.points === null || accuracy.points === undefined ? null : -accuracy.points;
	const accuracyDrop = lost === null ? null : Math.max(0, Math.round(lost * 10) / 10);
	const evidence = current.partial ? [] : [...(notes.evidence ?? [])];
	const dropped = notes.evidence
		? evidence.some((each) => each.alert)
		: accuracyDrop !== null && accuracyDrop > threshold;
	const version =
		before && before.live_version !== null && before.live_version !== current.live_version
			? `live version ${current.live_version} (was ${before.live_version})`
			: `live version ${current.live_version ?? '–'}`;
	const since = before
		? before.evaluated_at
			? ` since ${before.evaluated_at.slice(0, 16).replace('T', ' ')} UTC`
			: ' since the last evaluation'
		: '';
	const partial = current.partial
		? ` (partial: ${plural(current.not_scored, 'row')} not scored)`
		: '';
	const lines = [
		`${name}, ${version}, on ${current.total} labeled items${since}${partial}:`,
		...(current.answered === 0 && notes.doubtful?.length
			? []
			: [
					`• ${rateLine('Accuracy', accuracy)}: ${current.right} of ${current.answered} answered right`,
					`• ${rateLine('Answered', coverage)}`,
				]),
		...(notes.doubtful ?? []),
		...perAnswer.map((each) => `• ${answerLine(each)}`),
		`• ${settingLine('Recommended minimum confidence', minConfidence, Boolean(before))}; ${settingLine('Close Call Gap', closeCallGap, Boolean(before))}`,
	];
	if (current.partial)
		lines.push(
			`Partial run: ${plural(current.not_scored, 'row')} not scored${notes.notScoredBecause ? ` (${notes.notScoredBecause})` : ''}. Not compared with ${previous ? `the figures of ${when(previous)}` : 'earlier figures'}, and never a baseline: the next run compares with the last full one.`,
		);
	else if (evidence.length) {
		if (!before) lines.push('No earlier figures: this run is the baseline of the figures.');
		lines.push(...evidence.map((each) => each.words));
	} else if (!before) lines.push('No earlier figures: this run is the baseline.');
	else if (dropped)
		lines.push(
			`Alert: accuracy dropped ${accuracyDrop!.toFixed(1)} points, beyond the ${threshold}-point threshold.`,
		);
	else if (!perAnswer.length && accuracy.points === 0 && coverage.points === 0)
		lines.push('Nothing changed.');
	lines.push(...(notes.extraLines ?? []));
	const badRows = notes.badRows ?? [];
	if (badRows.length)
		lines.push(
			`${plural(badRows.length, 'row')} not scored, to fix:`,
			...badRows.map((each) => `• ${each}`),
		);
	const upstream = notes.paidUpstream
		? ` here; the ${plural(notes.paidUpstream, 'run')} the items carried were paid upstream (${plural(notes.paidUpstream, 'unit')})`
		: '';
	lines.push(`Cost: ${plural(current.units_charged, 'unit')}${upstream}.`);
	return {
		compared: Boolean(before),
		partial: current.partial,
		previous_evaluated_at: before ? before.evaluated_at || null : null,
		previous_version: before ? before.live_version : null,
		accuracy,
		coverage,
		min_confidence: minConfidence,
		close_call_gap: closeCallGap,
		per_answer: perAnswer,
		accuracy_drop: accuracyDrop,
		threshold,
		dropped,
		evidence,
		message: lines.join('\n'),
	};
}
