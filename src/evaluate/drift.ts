// Quality watched run after run: what changed since the figures row of the last evaluation
// (figures-row.ts), said in a few lines a Slack or e-mail node sends as they are (drift-message.ts)
// (docs/quality-watch.md); the alert's evidence is evidence.ts's. Pure. Keys from data (options,
// levels, labels) are values here, never object keys.
import { perAnswerOf, type FiguresRow } from './figures-row';
import { shownDrop, type Evidence } from './evidence';
import {
	closingLines,
	figureLines,
	verdictLines,
	type AnswerChange,
	type Change,
	type Changes,
	type RunNotes,
} from './drift-message';

export type { AnswerChange, Change, RunNotes } from './drift-message';

export {
	FIGURES_ROW_COLUMNS,
	figuresRow,
	readFiguresRow,
	type AnswerFigures,
	type FiguresRow,
} from './figures-row';
export {
	LOADED,
	pValueWords,
	recentEvidence,
	STRATA,
	stratumOf,
	versionEvidence,
	type Evidence,
	type EvidenceOptions,
	type PairedCount,
	type RecentStratum,
} from './evidence';

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
	/**
	 * The accuracy points lost that the threshold is held to (0 when it rose): with the watch's
	 * tests, the drop of the test that alerts (else the largest a test shows), as its words say it;
	 * without, the whole table's since the previous figures. Null when nothing is comparable.
	 */
	accuracy_drop: number | null;
	/** Whose drop `accuracy_drop` is: a test's (`recent`, `version`) or the whole table's (`figures`). */
	drop_of: 'recent' | 'version' | 'figures' | null;
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

function rawDrop(points: number | null | undefined): number | null {
	return points === null || points === undefined
		? null
		: Math.max(0, Math.round(-points * 10) / 10);
}

/** The drop the alert is held to: the alerting test's, else the largest a test shows (shownDrop). */
function testedDrop(evidence: readonly Evidence[]): {
	accuracyDrop: number | null;
	dropOf: Evidence['kind'] | 'figures';
} {
	const measured = evidence.filter((each) => each.points !== null);
	const alerting = measured.filter((each) => each.alert);
	const pool = alerting.length ? alerting : measured;
	let best: Evidence | undefined;
	for (const each of pool) if (!best || each.points! < best.points!) best = each;
	return best
		? { accuracyDrop: shownDrop(best.points!), dropOf: best.kind }
		: { accuracyDrop: null, dropOf: 'figures' };
}

/** The figures compared: each then (the previous row, when comparable) and now. */
function changesOf(before: FiguresRow | undefined, current: FiguresRow): Changes {
	return {
		accuracy: change(before ? before.accuracy : null, current.accuracy),
		coverage: change(before ? before.coverage : null, current.coverage),
		minConfidence: change(before ? before.min_confidence : null, current.min_confidence, false),
		closeCallGap: change(before ? before.close_call_gap : null, current.close_call_gap, false),
	};
}

/** The answers whose precision or recall moved, and those new or gone (none without a before). */
function perAnswerChanges(before: FiguresRow | undefined, current: FiguresRow): AnswerChange[] {
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
	return perAnswer;
}

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
	const changes = changesOf(before, current);
	const perAnswer = perAnswerChanges(before, current);
	const evidence = current.partial ? [] : [...(notes.evidence ?? [])];
	// With evidence, the alert is the tests', and the drop is the one the threshold was held to;
	// without, the raw drop of the whole table against the threshold.
	const { accuracyDrop, dropOf } = notes.evidence
		? testedDrop(evidence)
		: { accuracyDrop: rawDrop(changes.accuracy.points), dropOf: 'figures' as const };
	const dropped = notes.evidence
		? evidence.some((each) => each.alert)
		: accuracyDrop !== null && accuracyDrop > threshold;
	const alert = { evidence, dropped, accuracyDrop, threshold };
	const lines = [
		...figureLines(before, current, name, changes, perAnswer, notes.doubtful),
		...verdictLines(previous, before, current, alert, changes, perAnswer, notes.notScoredBecause),
		...closingLines(current, notes),
	];
	return {
		compared: Boolean(before),
		partial: current.partial,
		previous_evaluated_at: before ? before.evaluated_at || null : null,
		previous_version: before ? before.live_version : null,
		accuracy: changes.accuracy,
		coverage: changes.coverage,
		min_confidence: changes.minConfidence,
		close_call_gap: changes.closeCallGap,
		per_answer: perAnswer,
		accuracy_drop: accuracyDrop,
		drop_of: accuracyDrop === null ? null : dropOf,
		threshold,
		dropped,
		evidence,
		message: lines.join('\n'),
	};
}
