// The pure core of the Evaluate operation: labeled items and their runs in, figures out. Over 260
// lines because the rules below and the function that applies them (`evaluate`) read as one.
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
//   (all-traffic.ts); a row is right by its answer, or on a doubtful run by its guess (`rightOf`).
// - An expected answer the decision does not know fails that item (a problem naming the item's
//   index, the key and the decision's keys); the other items are still evaluated.

import { kindOf, readExpected } from '../answer/kinds';
import { allTrafficOf } from './all-traffic';
import { marginOf, type EvaluationDecision } from '../answer/close-call';
import type {
	CommonMetrics,
	EvaluateOptions,
	Evaluation,
	ItemOutcome,
	ItemProblem,
	Judged,
	ScoredItem,
} from './metrics-types';
import {
	classMetrics,
	coverageTable,
	doubtfulMetrics,
	macro,
	notYetRecommended,
	rateInterval,
	ratio,
	recommend,
	singleAnswerTables,
	tally,
} from './tables';

export type * from './metrics-types';
export { rightOf } from './all-traffic';

/** 0.00, 0.05 … 0.95, as k / 20 so that 0.15 is the same number as the literal 0.15. */
export const DEFAULT_THRESHOLDS: readonly number[] = Array.from({ length: 20 }, (_, k) => k / 20);
export const DEFAULT_TARGET_ACCURACY = 0.9;

function knownKeysOf(decision: EvaluationDecision): string[] {
	return [...new Set(decision.keys)];
}

type Expected = { ok: true; value: string | string[] } | { ok: false; problem: ItemProblem };

/**
 * Checks one expected answer against the decision (src/answer/kinds.ts `readExpected`: classify takes a
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
	const scoredItems = judged.map(({ outcome }) => items[outcome.index]);
	const { allTraffic, confidentAccuracy } = allTrafficOf(scoredItems, outcomes, targetAccuracy);
	const common: CommonMetrics = {
		total,
		answered: answered.length,
		coverage: ratio(answered.length, total),
		coverageInterval: rateInterval(answered.length, total),
		statuses,
		uncertainRate: ratio(statuses.uncertain, total),
		uncertainRateInterval: rateInterval(statuses.uncertain, total),
		pendingRate: ratio(statuses.pending, total),
		pendingRateInterval: rateInterval(statuses.pending, total),
		otherRate: ratio(others, total),
		otherRateInterval: rateInterval(others, total),
		accuracy: ratio(correct, answered.length),
		accuracyInterval: rateInterval(correct, answered.length),
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
			notYet: {
				confidence: notYetRecommended(coverageByConfidence, targetAccuracy),
				gap: notYetRecommended(coverageByGap, targetAccuracy),
			},
		},
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
				withinOneAccuracyInterval: rateInterval(withinOne, answered.length),
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
			exactSetMatchInterval: common.accuracyInterval,
			hammingLoss: ratio(wrongDecisions, answered.length * keys.length),
		},
		problems,
	};
}
