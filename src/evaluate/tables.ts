// The tables an evaluation is made of: per-key counts and the confusion matrix, the coverage
// tables and their recommendation, the engine and model mix, the doubtful items' guesses. Pure.
import type {
	ClassMetrics,
	ConfusionRow,
	CoverageRow,
	DoubtfulMetrics,
	ItemOutcome,
	Judged,
	NameCount,
	NotYetSupported,
	RateInterval,
} from './metrics-types';
import { itemsNeededToReach, wilsonInterval } from './stats';

/** A ratio, null (never NaN) when there is nothing to divide by. */
export const ratio = (numerator: number, denominator: number): number | null =>
	denominator > 0 ? numerator / denominator : null;

/** The level of every interval the report prints. */
export const REPORT_LEVEL = 0.95;

/** A rate's 95 % Wilson interval and count; null (like the rate) when there is nothing to divide by. */
export function rateInterval(successes: number, n: number): RateInterval | null {
	if (!(n > 0)) return null;
	const { low, high } = wilsonInterval(successes, n, REPORT_LEVEL);
	return { low, high, n, level: REPORT_LEVEL };
}

/**
 * An interval in words: "86–97%", whole percents (one decimal when the two would read the same),
 * "–" when there is none.
 */
export function intervalWords(interval: RateInterval | null | undefined): string {
	if (!interval) return '–';
	const digits = interval.high - interval.low < 0.02 ? 1 : 0;
	const at = (value: number) =>
		(Math.round(value * 100 * 10 ** digits) / 10 ** digits).toFixed(digits);
	return `${at(interval.low)}–${at(interval.high)}%`;
}

/** "1 item", "91 items". */
export const itemCount = (count: number): string => `${count} ${count === 1 ? 'item' : 'items'}`;

/**
 * Whether the data supports a setting: the 95 % Wilson lower bound of the accuracy of the answers
 * it keeps reaches the target. A point estimate at the target is a coin toss that the true rate is
 * below it; the lower bound makes that chance about 2.5 % (one-sided).
 */
export const supports = (interval: RateInterval | null, target: number): boolean =>
	interval !== null && interval.low >= target;

/**
 * A setting that reaches the target on its figures but is not supported yet: its items, its
 * accuracy and interval, and about how many items at that accuracy the lower bound needs.
 */
export function notYetSupported(
	threshold: number,
	right: number,
	kept: number,
	target: number,
): NotYetSupported | null {
	const interval = rateInterval(right, kept);
	if (!interval) return null;
	return {
		threshold,
		items: kept,
		accuracy: right / kept,
		accuracyInterval: interval,
		needed: itemsNeededToReach(target, right / kept, REPORT_LEVEL),
	};
}

/** The doubtful items scored by their guesses, and what lowering the threshold would have done. */
export function doubtfulMetrics(
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
		guessAccuracyInterval: rateInterval(guessRight, guessed.length),
		byThreshold: below.map((threshold) => {
			const routed = guessed.filter((o) => (o.confidence ?? 0) >= threshold);
			const right = routed.filter((o) => o.guessRight).length;
			return {
				threshold,
				routed: routed.length,
				right,
				accuracy: ratio(right, routed.length),
				accuracyInterval: rateInterval(right, routed.length),
			};
		}),
	};
}

export function classMetrics(
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
	return {
		key,
		...counts,
		precision,
		precisionInterval: rateInterval(counts.truePositives, counts.predicted),
		recall,
		recallInterval: rateInterval(counts.truePositives, counts.answeredSupport),
		f1,
	};
}

export function macro(classes: readonly ClassMetrics[]): number | null {
	const defined = classes.map((c) => c.f1).filter((f1): f1 is number => f1 !== null);
	return defined.length ? defined.reduce((a, b) => a + b, 0) / defined.length : null;
}

export function tally(values: ReadonlyArray<string | null>): NameCount[] {
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

export function coverageTable(
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
			coverageInterval: rateInterval(count, total),
			accuracy: ratio(correct, count),
			accuracyInterval: rateInterval(correct, count),
		};
	});
}

/** The lowest threshold the data supports (`supports`), or null. */
export function recommend(rows: readonly CoverageRow[], target: number): CoverageRow | null {
	const sorted = [...rows].sort((a, b) => a.threshold - b.threshold);
	return sorted.find((row) => supports(row.accuracyInterval, target)) ?? null;
}

/**
 * When no threshold is supported: the lowest whose accuracy reaches the target on these items
 * alone, with what it lacks; null when one is supported or none reaches the target at all.
 */
export function notYetRecommended(
	rows: readonly CoverageRow[],
	target: number,
): NotYetSupported | null {
	if (recommend(rows, target)) return null;
	const sorted = [...rows].sort((a, b) => a.threshold - b.threshold);
	const row = sorted.find((each) => each.accuracy !== null && each.accuracy >= target);
	if (!row || row.accuracy === null) return null;
	return notYetSupported(row.threshold, Math.round(row.accuracy * row.count), row.count, target);
}

/** Route and score: per-key counts and the confusion matrix over the decision's keys. */
export function singleAnswerTables(keys: readonly string[], judged: readonly Judged[]) {
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
