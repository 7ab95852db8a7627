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
} from './metrics-types';

/** A ratio, null (never NaN) when there is nothing to divide by. */
export const ratio = (numerator: number, denominator: number): number | null =>
	denominator > 0 ? numerator / denominator : null;

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
		byThreshold: below.map((threshold) => {
			const routed = guessed.filter((o) => (o.confidence ?? 0) >= threshold);
			const right = routed.filter((o) => o.guessRight).length;
			return { threshold, routed: routed.length, right, accuracy: ratio(right, routed.length) };
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
	return { key, ...counts, precision, recall, f1 };
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
			accuracy: ratio(correct, count),
		};
	});
}

export function recommend(rows: readonly CoverageRow[], target: number): CoverageRow | null {
	const sorted = [...rows].sort((a, b) => a.threshold - b.threshold);
	return sorted.find((row) => row.accuracy !== null && row.accuracy >= target) ?? null;
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
