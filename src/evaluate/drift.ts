// Quality watched run after run: an evaluation's figures as one flat row (what n8n's Data Table
// node stores with no mapping by hand), what changed since the row of the last evaluation, and
// that change in a few lines a Slack or e-mail node sends as they are (docs/quality-watch.md).
// Pure. Keys from data (options, levels, labels) are values here, never object keys. Over 260
// lines: the row, its reading back and the comparison share one shape, kept in one file.
import type { ClassMetrics, Metrics } from './metrics-types';
import type { Summary } from './summary';

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
	/** The drop is beyond the threshold: the alert fires. */
	dropped: boolean;
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

/** What the message says beside the figures: the rows to fix, why rows went unscored, the cost. */
export interface RunNotes {
	/** Each bad row named, with what to fix. */
	badRows?: readonly string[];
	/** Why rows went unscored (a partial run). */
	notScoredBecause?: string;
	/** Runs the items carried, paid by the node that decided them (one unit each). */
	paidUpstream?: number;
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
	const dropped = accuracyDrop !== null && accuracyDrop > threshold;
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
		`• ${rateLine('Accuracy', accuracy)}: ${current.right} of ${current.answered} answered right`,
		`• ${rateLine('Answered', coverage)}`,
		...perAnswer.map((each) => `• ${answerLine(each)}`),
		`• ${settingLine('Recommended minimum confidence', minConfidence, Boolean(before))}; ${settingLine('Close Call Gap', closeCallGap, Boolean(before))}`,
	];
	if (current.partial)
		lines.push(
			`Partial run: ${plural(current.not_scored, 'row')} not scored${notes.notScoredBecause ? ` (${notes.notScoredBecause})` : ''}. Not compared with ${previous ? `the figures of ${when(previous)}` : 'earlier figures'}, and never a baseline: the next run compares with the last full one.`,
		);
	else if (!before) lines.push('No earlier figures: this run is the baseline.');
	else if (dropped)
		lines.push(
			`Alert: accuracy dropped ${accuracyDrop!.toFixed(1)} points, beyond the ${threshold}-point threshold.`,
		);
	else if (!perAnswer.length && accuracy.points === 0 && coverage.points === 0)
		lines.push('Nothing changed.');
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
		message: lines.join('\n'),
	};
}
