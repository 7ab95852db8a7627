// The figures of each decision type, beside the common ones (metrics.ts): route's classes and
// confusion, score's level error, classify's per-label figures and Hamming loss (docs/evaluate.md).
// Pure. Every lookup by a level or label key goes through a Map: keys are untrusted strings.
import type {
	ClassifyMetrics,
	CommonMetrics,
	Judged,
	RouteMetrics,
	ScoreMetrics,
} from './metrics-types';
import { classMetrics, macro, rateInterval, ratio, singleAnswerTables } from './tables';

/** Route: one answer per item, per-option precision and recall, and the confusion table. */
export function routeMetrics(
	common: CommonMetrics,
	keys: readonly string[],
	judged: readonly Judged[],
): RouteMetrics {
	const { classes, confusion } = singleAnswerTables(keys, judged);
	return { ...common, type: 'route', classes, macroF1: macro(classes), confusion };
}

/** Score: route's figures, and how far off the answered levels are (the levels in key order). */
export function scoreMetrics(
	common: CommonMetrics,
	keys: readonly string[],
	judged: readonly Judged[],
): ScoreMetrics {
	const answered = common.items.filter((o) => o.answered);
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
		...common,
		type: 'score',
		exactAccuracy: common.accuracy,
		meanAbsoluteError: ratio(absolute, answered.length),
		withinOneAccuracy: ratio(withinOne, answered.length),
		withinOneAccuracyInterval: rateInterval(withinOne, answered.length),
		errorHistogram: [...histogram.entries()].map(([error, count]) => ({ error, count })),
		classes,
		macroF1: macro(classes),
		confusion,
	};
}

/** Classify: one yes/no question per label. */
export function classifyMetrics(
	common: CommonMetrics,
	keys: readonly string[],
	judged: readonly Judged[],
): ClassifyMetrics {
	const outcomes = judged.map((j) => j.outcome);
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
		...common,
		type: 'classify',
		labels,
		macroF1: macro(labels),
		exactSetMatch: common.accuracy,
		exactSetMatchInterval: common.accuracyInterval,
		hammingLoss: ratio(wrongDecisions, common.answered * keys.length),
	};
}
