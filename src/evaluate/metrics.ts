import type { ItemAnswer } from '../answer';
import { kindOf, readExpected } from '../kinds';
import { marginOf, type EvaluationDecision } from './close-call';

// The pure core of the Evaluate operation (issue 22): labeled items and their runs in, figures out.
// No n8n, no I/O. Every lookup by an option, level or label key goes through a Map: keys are
// untrusted strings (`constructor`, `__proto__`, `toString` are legal keys), never plain-object
// property names. docs/evaluate.md explains each figure and the edge-case rules in users' words.
//
// Rules (the tests check each one):
// - Answered = status `ok` with an answer the decision knows (route: a known option; score: a
//   known level; classify: a list of known labels). `uncertain` and `pending` runs are not
//   answered: they lower coverage, they are never counted wrong. A run with status `ok` whose
//   answer the decision does not know (a key removed since, no legend) and a status this code does
//   not know go to Other: not answered either, counted apart.
// - Accuracy, precision, recall, F1, level error and Hamming loss are over answered items only.
// - A ratio with nothing to divide by is null, never NaN: precision of a class never predicted,
//   recall of a class with no answered item, accuracy with no answered item. F1 is null when
//   precision or recall is; 0 when both are 0.
// - An expected answer the decision does not know fails that item (a problem naming the item's
//   index, the key and the decision's keys); the other items are still evaluated.

export interface ScoredItem {
	/**
	 * route: an option key; score: a level label (as the legend's values have it) or a level index
	 * (a number, 0 = lowest, as the legend's keys); classify: a list of label keys.
	 */
	expected: unknown;
	/** The item's answer as src/answer.ts reads it (a carried compact or whole run, or a fresh one). */
	run: ItemAnswer;
	/** Units this item cost: 1 for a fresh decide, 0 for an item scored from a run it already carried. */
	charged: number;
}

export interface EvaluateOptions {
	/** Confidence thresholds of the coverage table; default 0.00, 0.05 … 0.95. */
	thresholds?: readonly number[];
	/** Gap thresholds of the coverage-by-gap table; default 0.00, 0.05 … 0.95. */
	gaps?: readonly number[];
	/** The accuracy the user wants; the recommendation is the lowest threshold reaching it. Default 0.9. */
	targetAccuracy?: number;
	/** The decision's confidence threshold: the doubtful items' table lists the thresholds below it. */
	confidenceThreshold?: number;
}

export type ItemProblemCode = 'unknown_expected_key' | 'invalid_expected';

/** Why an item could not be evaluated: the node puts it on the error output. */
export interface ItemProblem {
	code: ItemProblemCode;
	/** Index of the item in the list given to `evaluate`. */
	index: number;
	/** The expected key that the decision does not know (unknown_expected_key). */
	key?: string;
	/** The decision's keys: options, levels lowest first, or labels. */
	knownKeys: string[];
	message: string;
}

export interface ClassMetrics {
	key: string;
	/** Items expecting this key (answered or not). */
	support: number;
	/** Of those, the answered ones: recall's denominator. */
	answeredSupport: number;
	/** Answered items that predicted this key. */
	predicted: number;
	truePositives: number;
	/** null when the key was never predicted. */
	precision: number | null;
	/** null when no answered item expected the key. */
	recall: number | null;
	/** null when precision or recall is null; 0 when both are 0. */
	f1: number | null;
}

export interface ConfusionRow {
	expected: string;
	/** One count per key of `Confusion.keys`, same order. */
	predicted: number[];
	uncertain: number;
	pending: number;
	other: number;
	total: number;
}

/** Rows: expected; columns: predicted keys, then the runs that gave no answer. */
export interface Confusion {
	keys: string[];
	rows: ConfusionRow[];
}

export interface CoverageRow {
	threshold: number;
	/** Answered items at or above the threshold. */
	count: number;
	/** count / all evaluated items. */
	coverage: number;
	/** Correct among them; null when count is 0. */
	accuracy: number | null;
}

export interface NameCount {
	/** null: the run did not say. */
	name: string | null;
	count: number;
}

export interface ItemOutcome {
	index: number;
	status: string;
	answered: boolean;
	/** route/score: exact answer; classify: exact label set. null when not answered. */
	correct: boolean | null;
	expected: string | string[];
	/** The run's answer (route choice, score level, classify labels); undefined when it gave none. */
	predicted?: string | string[];
	/** On a run the service did not answer (uncertain, pending): the machine's guess, when it had one. */
	guess?: string | string[];
	/** Whether that guess was the expected answer; null on answered runs and runs without a guess. */
	guessRight: boolean | null;
	confidence: number | null;
	/** The gap between the two most probable answers (see close-call.ts); null when unknown. */
	gap: number | null;
	charged: number;
}

/** One row of the doubtful items' table: the threshold lowered to `threshold`. */
export interface DoubtfulRow {
	threshold: number;
	/** Doubtful items whose confidence is at or above it: they would have been answered by their guess. */
	routed: number;
	/** Of those, the guesses that were right. */
	right: number;
	/** right / routed; null when routed is 0. */
	accuracy: number | null;
}

/**
 * The runs the service did not answer (uncertain, pending) scored by the machine's guess: how a
 * team learns from its reviews whether the doubtful guesses were right and where to set the
 * threshold. They never count in accuracy or coverage.
 */
export interface DoubtfulMetrics {
	count: number;
	/** Of those, items with a guess (an uncertain route run carries its probabilities). */
	guessed: number;
	guessRight: number;
	/** guessRight / guessed; null when nothing was guessed. */
	guessAccuracy: number | null;
	/** For each threshold under the decision's: what lowering it there would have routed, and how many right. */
	byThreshold: DoubtfulRow[];
}

interface CommonMetrics {
	/** Evaluated items (those with a problem are left out). */
	total: number;
	answered: number;
	/** answered / total; null when total is 0. */
	coverage: number | null;
	statuses: { ok: number; uncertain: number; pending: number; other: number };
	uncertainRate: number | null;
	pendingRate: number | null;
	/** Status ok with an answer the decision does not know, or an unknown status. */
	otherRate: number | null;
	/** Correct / answered (route: choice; score: exact level; classify: exact label set). */
	accuracy: number | null;
	engines: NameCount[];
	models: NameCount[];
	units: { charged: number; fresh: number; reused: number };
	targetAccuracy: number;
	coverageByConfidence: CoverageRow[];
	coverageByGap: CoverageRow[];
	/** The lowest threshold whose accuracy reaches the target, or null. */
	recommended: { confidence: CoverageRow | null; gap: CoverageRow | null };
	doubtful: DoubtfulMetrics;
	items: ItemOutcome[];
}

export interface RouteMetrics extends CommonMetrics {
	type: 'route';
	classes: ClassMetrics[];
	/** Mean F1 over classes whose F1 is defined; null when none is. */
	macroF1: number | null;
	confusion: Confusion;
}

export interface ScoreMetrics extends CommonMetrics {
	type: 'score';
	/** Same as accuracy: the exact level. */
	exactAccuracy: number | null;
	/** Mean |predicted level − expected level|, in level steps. */
	meanAbsoluteError: number | null;
	/** Share of answered items at most one level off. */
	withinOneAccuracy: number | null;
	/** Signed error (predicted − expected, in levels) → answered items, from −(N−1) to N−1. */
	errorHistogram: Array<{ error: number; count: number }>;
	classes: ClassMetrics[];
	macroF1: number | null;
	confusion: Confusion;
}

export interface ClassifyMetrics extends CommonMetrics {
	type: 'classify';
	labels: ClassMetrics[];
	macroF1: number | null;
	/** Same as accuracy: the label set exactly as expected. */
	exactSetMatch: number | null;
	/** Wrong label decisions / (answered items × labels); null when nothing answered. */
	hammingLoss: number | null;
}

export type Metrics = RouteMetrics | ScoreMetrics | ClassifyMetrics;

export interface Evaluation {
	metrics: Metrics;
	/** Items left out, one problem each, in item order. */
	problems: ItemProblem[];
}

/** 0.00, 0.05 … 0.95, as k / 20 so that 0.15 is the same number as the literal 0.15. */
export const DEFAULT_THRESHOLDS: readonly number[] = Array.from({ length: 20 }, (_, k) => k / 20);
export const DEFAULT_TARGET_ACCURACY = 0.9;

const ratio = (numerator: number, denominator: number): number | null =>
	denominator > 0 ? numerator / denominator : null;

function knownKeysOf(decision: EvaluationDecision): string[] {
	return [...new Set(decision.keys)];
}

type Expected = { ok: true; value: string | string[] } | { ok: false; problem: ItemProblem };

/**
 * Checks one expected answer against the decision (src/kinds.ts `readExpected`: classify takes a
 * list or labels separated by commas): the node calls it before a decide, so an item with a typo
 * fails without spending a unit. The message does not number the item: n8n's error says which.
 */
export function checkExpected(
	decision: EvaluationDecision,
	expected: unknown,
	index: number,
): Expected {
	const knownKeys = knownKeysOf(decision);
	const kind = kindOf(decision.type);
	if (!kind) {
		return {
			ok: false,
			problem: {
				code: 'invalid_expected',
				index,
				knownKeys,
				message: `The decision's type "${String(decision.type)}" is not one this package knows.`,
			},
		};
	}
	const read = readExpected(kind, expected, knownKeys);
	if (read.ok) return { ok: true, value: kind.shown(read.keys) };
	const message = read.message.charAt(0).toUpperCase() + read.message.slice(1) + '.';
	return {
		ok: false,
		problem:
			read.key !== undefined
				? { code: 'unknown_expected_key', index, key: read.key, knownKeys, message }
				: { code: 'invalid_expected', index, knownKeys, message },
	};
}

interface Judged {
	outcome: ItemOutcome;
	/** The column of the confusion matrix (route/score). */
	column: 'answer' | 'uncertain' | 'pending' | 'other';
}

function judgeItem(
	decision: EvaluationDecision,
	known: ReadonlySet<string>,
	item: ScoredItem,
	expected: string | string[],
	index: number,
): Judged {
	const run = item.run;
	const status = run.status;
	const kind = kindOf(decision.type);
	const gap = marginOf(decision, { ...run, answer: run.answer ?? run.guess }) ?? null;
	const predicted = kind && run.answer ? kind.shown(run.answer) : undefined;
	const doubtful = status === 'uncertain' || status === 'pending';
	const guess = doubtful && kind && run.guess ? kind.shown(run.guess) : undefined;
	const outcome: ItemOutcome = {
		index,
		status,
		answered: false,
		correct: null,
		expected,
		...(predicted === undefined ? {} : { predicted }),
		...(guess === undefined ? {} : { guess }),
		guessRight: guess === undefined ? null : sameKeys(guess, expected),
		confidence: run.confidence ?? null,
		gap,
		charged: item.charged,
	};
	if (doubtful) return { outcome, column: status };
	if (status !== 'ok' || predicted === undefined) return { outcome, column: 'other' };
	const placeable = Array.isArray(predicted)
		? predicted.every((label) => known.has(label))
		: known.has(predicted);
	if (!placeable) return { outcome, column: 'other' };
	outcome.answered = true;
	outcome.correct = sameKeys(predicted, expected);
	return { outcome, column: 'answer' };
}

/** Same answer: the key, or the same set of labels. */
function sameKeys(a: string | string[], b: string | string[]): boolean {
	if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
	const got = new Set(a);
	return got.size === new Set(b).size && b.every((label) => got.has(label));
}

/** The doubtful items scored by their guesses, and what lowering the threshold would have done. */
function doubtfulMetrics(
	outcomes: readonly ItemOutcome[],
	thresholds: readonly number[],
	confidenceThreshold: number | undefined,
): DoubtfulMetrics {
	const doubtful = outcomes.filter((o) => o.status === 'uncertain' || o.status === 'pending');
	const guessed = doubtful.filter((o) => o.guessRight !== null);
	const guessRight = guessed.filter((o) => o.guessRight).length;
	const below = thresholds.filter(
		(threshold) => confidenceThreshold === undefined || threshold < confidenceThreshold,
	);
	return {
		count: doubtful.length,
		guessed: guessed.length,
		guessRight,
		guessAccuracy: ratio(guessRight, guessed.length),
		byThreshold: below.map((threshold) => {
			const routed = guessed.filter((o) => (o.confidence ?? 0) >= threshold);
			const right = routed.filter((o) => o.guessRight).length;
			return { threshold, routed: routed.length, right, accuracy: ratio(right, routed.length) };
		}),
	};
}

function classMetrics(
	key: string,
	counts: { support: number; answeredSupport: number; predicted: number; truePositives: number },
): ClassMetrics {
	const precision = ratio(counts.truePositives, counts.predicted);
	const recall = ratio(counts.truePositives, counts.answeredSupport);
	const f1 =
		precision === null || recall === null
			? null
			: precision + recall === 0
				? 0
				: (2 * precision * recall) / (precision + recall);
	return { key, ...counts, precision, recall, f1 };
}

function macro(classes: readonly ClassMetrics[]): number | null {
	const defined = classes.map((c) => c.f1).filter((f1): f1 is number => f1 !== null);
	return defined.length ? defined.reduce((a, b) => a + b, 0) / defined.length : null;
}

function tally(values: ReadonlyArray<string | null>): NameCount[] {
	const counts = new Map<string | null, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return [...counts.entries()]
		.map(([name, count]) => ({ name, count }))
		.sort((a, b) => {
			if (a.count !== b.count) return b.count - a.count;
			if (a.name === b.name) return 0;
			if (a.name === null) return 1;
			if (b.name === null) return -1;
			return a.name < b.name ? -1 : 1;
		});
}

function coverageTable(
	outcomes: readonly ItemOutcome[],
	thresholds: readonly number[],
	measure: (outcome: ItemOutcome) => number | null,
): CoverageRow[] {
	const total = outcomes.length;
	return thresholds.map((threshold) => {
		let count = 0;
		let correct = 0;
		for (const outcome of outcomes) {
			if (!outcome.answered) continue;
			// A missing confidence or gap counts as 0: such an item is only covered at threshold 0.
			if ((measure(outcome) ?? 0) < threshold) continue;
			count += 1;
			if (outcome.correct) correct += 1;
		}
		return {
			threshold,
			count,
			coverage: total ? count / total : 0,
			accuracy: ratio(correct, count),
		};
	});
}

function recommend(rows: readonly CoverageRow[], target: number): CoverageRow | null {
	const sorted = [...rows].sort((a, b) => a.threshold - b.threshold);
	return sorted.find((row) => row.accuracy !== null && row.accuracy >= target) ?? null;
}

/** Route and score: per-key counts and the confusion matrix over the decision's keys. */
function singleAnswerTables(keys: readonly string[], judged: readonly Judged[]) {
	const position = new Map<string, number>();
	keys.forEach((key, i) => position.set(key, i));
	const rows: ConfusionRow[] = keys.map((expected) => ({
		expected,
		predicted: keys.map(() => 0),
		uncertain: 0,
		pending: 0,
		other: 0,
		total: 0,
	}));
	const predictedCount = keys.map(() => 0);
	for (const { outcome, column } of judged) {
		const row = rows[position.get(outcome.expected as string) as number];
		row.total += 1;
		if (column === 'answer') {
			const p = position.get(outcome.predicted as string) as number;
			row.predicted[p] += 1;
			predictedCount[p] += 1;
		} else {
			row[column] += 1;
		}
	}
	const classes = keys.map((key, i) => {
		const row = rows[i];
		const answeredSupport = row.predicted.reduce((a, b) => a + b, 0);
		return classMetrics(key, {
			support: row.total,
			answeredSupport,
			predicted: predictedCount[i],
			truePositives: row.predicted[i],
		});
	});
	return { classes, confusion: { keys: [...keys], rows } };
}

/**
 * Evaluates labeled items: items whose expected answer the decision does not know are left out
 * and listed in `problems`; the others are measured. Pure: the same input gives the same figures.
 */
export function evaluate(
	decision: EvaluationDecision,
	items: readonly ScoredItem[],
	options: EvaluateOptions = {},
): Evaluation {
	const keys = knownKeysOf(decision);
	const known = new Set(keys);
	const problems: ItemProblem[] = [];
	const judged: Judged[] = [];
	items.forEach((item, index) => {
		const expected = checkExpected(decision, item.expected, index);
		if (!expected.ok) {
			problems.push(expected.problem);
			return;
		}
		judged.push(judgeItem(decision, known, item, expected.value, index));
	});
	const outcomes = judged.map((j) => j.outcome);
	const total = outcomes.length;
	const answered = outcomes.filter((o) => o.answered);
	const correct = answered.filter((o) => o.correct).length;
	const statuses = { ok: 0, uncertain: 0, pending: 0, other: 0 };
	for (const { outcome } of judged) {
		if (outcome.status === 'ok' || outcome.status === 'uncertain' || outcome.status === 'pending') {
			statuses[outcome.status] += 1;
		} else {
			statuses.other += 1;
		}
	}
	const others = judged.filter((j) => j.column === 'other').length;
	const targetAccuracy = options.targetAccuracy ?? DEFAULT_TARGET_ACCURACY;
	const coverageByConfidence = coverageTable(
		outcomes,
		options.thresholds ?? DEFAULT_THRESHOLDS,
		(o) => o.confidence,
	);
	const coverageByGap = coverageTable(outcomes, options.gaps ?? DEFAULT_THRESHOLDS, (o) => o.gap);
	const fresh = outcomes.filter((o) => o.charged > 0).length;
	const common: CommonMetrics = {
		total,
		answered: answered.length,
		coverage: ratio(answered.length, total),
		statuses,
		uncertainRate: ratio(statuses.uncertain, total),
		pendingRate: ratio(statuses.pending, total),
		otherRate: ratio(others, total),
		accuracy: ratio(correct, answered.length),
		engines: tally(judged.map(({ outcome }) => items[outcome.index].run.engine ?? null)),
		models: tally(judged.map(({ outcome }) => items[outcome.index].run.model ?? null)),
		units: {
			charged: outcomes.reduce((sum, o) => sum + (Number.isFinite(o.charged) ? o.charged : 0), 0),
			fresh,
			reused: total - fresh,
		},
		targetAccuracy,
		coverageByConfidence,
		coverageByGap,
		recommended: {
			confidence: recommend(coverageByConfidence, targetAccuracy),
			gap: recommend(coverageByGap, targetAccuracy),
		},
		doubtful: doubtfulMetrics(
			outcomes,
			options.thresholds ?? DEFAULT_THRESHOLDS,
			options.confidenceThreshold,
		),
		items: outcomes,
	};

	if (decision.type === 'route') {
		const { classes, confusion } = singleAnswerTables(keys, judged);
		return {
			metrics: { ...common, type: 'route', classes, macroF1: macro(classes), confusion },
			problems,
		};
	}

	if (decision.type === 'score') {
		const { classes, confusion } = singleAnswerTables(keys, judged);
		const level = new Map<string, number>();
		keys.forEach((key, i) => level.set(key, i));
		const histogram = new Map<number, number>();
		for (let e = -(keys.length - 1); e <= keys.length - 1; e += 1) histogram.set(e, 0);
		let absolute = 0;
		let withinOne = 0;
		for (const outcome of answered) {
			const error =
				(level.get(outcome.predicted as string) as number) -
				(level.get(outcome.expected as string) as number);
			histogram.set(error, (histogram.get(error) ?? 0) + 1);
			absolute += Math.abs(error);
			if (Math.abs(error) <= 1) withinOne += 1;
		}
		return {
			metrics: {
				...common,
				type: 'score',
				exactAccuracy: common.accuracy,
				meanAbsoluteError: ratio(absolute, answered.length),
				withinOneAccuracy: ratio(withinOne, answered.length),
				errorHistogram: [...histogram.entries()].map(([error, count]) => ({ error, count })),
				classes,
				macroF1: macro(classes),
				confusion,
			},
			problems,
		};
	}

	// classify: one yes/no question per label.
	const counts = new Map(
		keys.map((key) => [key, { support: 0, answeredSupport: 0, predicted: 0, truePositives: 0 }]),
	);
	let wrongDecisions = 0;
	for (const outcome of outcomes) {
		const expected = new Set(outcome.expected as string[]);
		for (const label of expected) (counts.get(label) as { support: number }).support += 1;
		if (!outcome.answered) continue;
		const predicted = new Set(outcome.predicted as string[]);
		for (const key of keys) {
			const entry = counts.get(key) as {
				answeredSupport: number;
				predicted: number;
				truePositives: number;
			};
			const isExpected = expected.has(key);
			const isPredicted = predicted.has(key);
			if (isExpected) entry.answeredSupport += 1;
			if (isPredicted) entry.predicted += 1;
			if (isExpected && isPredicted) entry.truePositives += 1;
			if (isExpected !== isPredicted) wrongDecisions += 1;
		}
	}
	const labels = keys.map((key) =>
		classMetrics(key, counts.get(key) as Parameters<typeof classMetrics>[1]),
	);
	return {
		metrics: {
			...common,
			type: 'classify',
			labels,
			macroF1: macro(labels),
			exactSetMatch: common.accuracy,
			hammingLoss: ratio(wrongDecisions, answered.length * keys.length),
		},
		problems,
	};
}
