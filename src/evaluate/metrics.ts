// The pure core of the Evaluate operation: labeled items and their runs in, figures out. Its steps
// live beside it: judge.ts judges each item, type-metrics.ts adds each decision type's figures.
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
// - Every rate has its 95 % Wilson interval beside it (`accuracyInterval`: low, high, n), null
//   when the rate is. A recommended threshold is one the data supports: the interval's lower
//   bound of the kept answers' accuracy reaches the target (tables.ts `supports`).
// - Accuracy over all traffic weighs the doubtful and audited rows by the traffic they stand for
//   (all-traffic.ts, with the items nobody reviewed: `notReviewed`); a row is right by its answer,
//   or on a doubtful run by its guess (`rightOf`); a row with neither counts as not right.
// - An expected answer the decision does not know fails that item (a problem naming the item's
//   index, the key and the decision's keys); the other items are still evaluated.

import { allTrafficOf } from './all-traffic';
import type { EvaluationDecision } from '../answer/close-call';
import { judgeAll, knownKeysOf } from './judge';
import type {
	CommonMetrics,
	EvaluateOptions,
	Evaluation,
	ItemOutcome,
	Judged,
	ScoredItem,
} from './metrics-types';
import {
	coverageTable,
	doubtfulMetrics,
	notYetRecommended,
	rateInterval,
	ratio,
	recommend,
	tally,
} from './tables';
import { classifyMetrics, routeMetrics, scoreMetrics } from './type-metrics';

export type * from './metrics-types';
export { rightOf } from './all-traffic';
export { checkExpected } from './judge';

/** 0.00, 0.05 … 0.95, as k / 20 so that 0.15 is the same number as the literal 0.15. */
export const DEFAULT_THRESHOLDS: readonly number[] = Array.from({ length: 20 }, (_, k) => k / 20);
export const DEFAULT_TARGET_ACCURACY = 0.9;

/**
 * Which runs the scored items' people reviewed: see CommonMetrics.reviewedFrom. `audited`: rows
 * in the all-traffic estimate picked by Audit Share; with one, the figures are not only the hard
 * cases.
 */
function reviewedFromOf(
	scored: readonly ScoredItem[],
	audited: number,
): CommonMetrics['reviewedFrom'] {
	const told = scored.filter(
		(item) => typeof item.reviewedFrom === 'string' && item.reviewedFrom.trim() !== '',
	);
	const doubtful = told.filter((item) =>
		['uncertain', 'pending'].includes(String(item.reviewedFrom).trim().toLowerCase()),
	).length;
	return {
		told: told.length,
		doubtful,
		doubtfulOnly:
			audited === 0 && told.length > 0 && told.length === scored.length && doubtful === told.length,
	};
}

/** How many runs had each status; a status this code does not know counts as other. */
function statusesOf(judged: readonly Judged[]): CommonMetrics['statuses'] {
	const statuses = { ok: 0, uncertain: 0, pending: 0, other: 0 };
	for (const { outcome } of judged) {
		if (outcome.status === 'ok' || outcome.status === 'uncertain' || outcome.status === 'pending') {
			statuses[outcome.status] += 1;
		} else {
			statuses.other += 1;
		}
	}
	return statuses;
}

/** The coverage tables by confidence and by gap, and the settings they support (or not yet). */
function settingsOf(outcomes: readonly ItemOutcome[], options: EvaluateOptions, target: number) {
	const coverageByConfidence = coverageTable(
		outcomes,
		options.thresholds ?? DEFAULT_THRESHOLDS,
		(o) => o.confidence,
	);
	// An answered run with no probabilities (scored from a stored answer) has no gap: left out of
	// the gap table rather than counted as kept at gap 0 only (summary.ts says how many).
	const coverageByGap = coverageTable(
		outcomes.filter((o) => !(o.answered && o.gap === null)),
		options.gaps ?? DEFAULT_THRESHOLDS,
		(o) => o.gap,
	);
	return {
		coverageByConfidence,
		coverageByGap,
		recommended: {
			confidence: recommend(coverageByConfidence, target),
			gap: recommend(coverageByGap, target),
			notYet: {
				confidence: notYetRecommended(coverageByConfidence, target),
				gap: notYetRecommended(coverageByGap, target),
			},
		},
	};
}

/** The rates over all judged items, each with its interval (the figures every type shares). */
function ratesOf(judged: readonly Judged[]) {
	const outcomes = judged.map((j) => j.outcome);
	const total = outcomes.length;
	const answered = outcomes.filter((o) => o.answered).length;
	const correct = outcomes.filter((o) => o.answered && o.correct).length;
	const statuses = statusesOf(judged);
	const others = judged.filter((j) => j.column === 'other').length;
	return {
		total,
		answered,
		coverage: ratio(answered, total),
		coverageInterval: rateInterval(answered, total),
		statuses,
		uncertainRate: ratio(statuses.uncertain, total),
		uncertainRateInterval: rateInterval(statuses.uncertain, total),
		pendingRate: ratio(statuses.pending, total),
		pendingRateInterval: rateInterval(statuses.pending, total),
		otherRate: ratio(others, total),
		otherRateInterval: rateInterval(others, total),
		accuracy: ratio(correct, answered),
		accuracyInterval: rateInterval(correct, answered),
	};
}

/** The figures every decision type has: rates, engines, units, settings, doubtful, all traffic. */
function commonMetricsOf(
	items: readonly ScoredItem[],
	judged: readonly Judged[],
	options: EvaluateOptions,
): CommonMetrics {
	const outcomes = judged.map((j) => j.outcome);
	const targetAccuracy = options.targetAccuracy ?? DEFAULT_TARGET_ACCURACY;
	const fresh = outcomes.filter((o) => o.charged > 0).length;
	const scoredItems = judged.map(({ outcome }) => items[outcome.index]);
	const { allTraffic, confidentAccuracy } = allTrafficOf(
		scoredItems,
		outcomes,
		targetAccuracy,
		options.notReviewed,
	);
	return {
		...ratesOf(judged),
		engines: tally(judged.map(({ outcome }) => items[outcome.index].run.engine ?? null)),
		models: tally(judged.map(({ outcome }) => items[outcome.index].run.model ?? null)),
		units: {
			charged: outcomes.reduce((sum, o) => sum + (Number.isFinite(o.charged) ? o.charged : 0), 0),
			fresh,
			reused: outcomes.length - fresh,
		},
		targetAccuracy,
		...settingsOf(outcomes, options, targetAccuracy),
		doubtful: doubtfulMetrics(
			outcomes,
			options.thresholds ?? DEFAULT_THRESHOLDS,
			options.confidenceThreshold,
		),
		confidenceThreshold: options.confidenceThreshold ?? null,
		reviewedFrom: reviewedFromOf(scoredItems, allTraffic.rows.audited),
		allTraffic,
		confidentAccuracy,
		items: outcomes,
	};
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
	const { judged, problems } = judgeAll(decision, items);
	const common = commonMetricsOf(items, judged, options);
	if (decision.type === 'route') return { metrics: routeMetrics(common, keys, judged), problems };
	if (decision.type === 'score') return { metrics: scoreMetrics(common, keys, judged), problems };
	return { metrics: classifyMetrics(common, keys, judged), problems };
}
