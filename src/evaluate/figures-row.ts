// An evaluation's figures as one flat row (what n8n's Data Table node stores with no mapping by
// hand), and a stored row read back: the two halves of the watch's memory (docs/quality-watch.md).
// Pure. Keys from data (options, levels, labels) are values here, never object keys.
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
	/**
	 * Rows not scored for a reason that is not theirs: that reason (the figures partial), or left
	 * out by the Version Change Sample (answered by an earlier version; the figures stay full).
	 */
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
		/**
		 * Rows left out by the Version Change Sample (answered by an earlier version, not decided
		 * again): counted in `not_scored` (no column of their own: a table made before would drop
		 * the row), without making the figures partial.
		 */
		leftOut?: number;
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
		not_scored: (meta.notScored ?? 0) + (meta.leftOut ?? 0),
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

export function perAnswerOf(value: unknown): AnswerFigures[] {
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
