import { BOUNDS, ownValue, type DecisionType } from '../contract';
import { kindOf, type KeyedDecision } from './kinds';

/**
 * What the evaluation needs to know about a decision: its type and its keys, as
 * `GET /decisions/{slug}` gives them (route: option keys; score: level labels, lowest first;
 * classify: label keys). Label thresholds are not in that answer: pass them when known (a decision
 * created from a definition), otherwise every label is taken at the API's default, 0.5.
 */
export interface EvaluationDecision {
	type: DecisionType;
	keys: readonly string[];
	/** classify only: the threshold of each label; a label missing here uses 0.5. */
	thresholds?: ReadonlyMap<string, number>;
}

/**
 * The evaluation's view of a decision as `GET /decisions/{slug}` (or the node's saved outputs)
 * gives it: the keys of its kind. Thresholds are not in that answer; pass them when known.
 */
export function evaluationDecisionOf(
	decision: KeyedDecision,
	thresholds?: ReadonlyMap<string, number>,
): EvaluationDecision {
	const kind = kindOf(decision.type);
	return {
		type: decision.type,
		keys: kind ? kind.keysOf(decision) : [],
		...(thresholds ? { thresholds } : {}),
	};
}

/**
 * What the close-call rule reads of a run: its status, its probabilities and its answer as keys
 * (the service's answer, or the machine's guess on a run without one; see src/answer/kinds.ts). A whole
 * run and an item's answer read back (src/answer/item-answer.ts) both give it.
 */
export interface JudgedRun {
	status: string;
	probabilities?: unknown;
	/** route and score: one key; classify: the labels the run kept. */
	answer?: readonly string[];
}

/** The two most probable answers of a run and the gap between them. */
export interface CloseCallJudged {
	verdict: 'close' | 'clear';
	/**
	 * route and score: the most probable key (the run's own answer when it is among those tied
	 * for the top). classify: the label nearest its threshold.
	 */
	leader: string;
	leaderProbability: number;
	/**
	 * route and score: the next most probable key. classify: the same label as `leader` (the
	 * answer that would flip is that label in or out); `runnerUpRetained` says which way.
	 */
	runnerUp: string;
	runnerUpProbability: number;
	/** classify only: whether the label nearest its threshold was retained by the run. */
	runnerUpRetained?: boolean;
	/** route/score: leader − runner-up; classify: |p − threshold| of the label nearest its threshold. */
	gap: number;
}

export type CloseCall =
	| CloseCallJudged
	/** The service sent the run to its review queue: it stays pending, it is not judged again. */
	| { verdict: 'pending' }
	/** Fewer than two keys with a probability (route, score) or none (classify): nothing to compare. */
	| { verdict: 'unknown'; reason: string };

/**
 * A difference of probabilities without float noise: 0.55 − 0.45 is 0.10000000000000003 in
 * binary floating point, which would miss a gap of 0.1. Probabilities have 4 decimals on the wire;
 * 10 keep every real difference.
 */
export const clean = (value: number): number => Math.round(value * 1e10) / 1e10;

/** Ranks keys by probability, highest first; ties by the decision's key order, then by code units. */
function rank(
	decision: EvaluationDecision,
	probabilities: ReadonlyMap<string, number>,
	answer?: string,
) {
	const order = new Map<string, number>();
	decision.keys.forEach((key, index) => {
		if (!order.has(key)) order.set(key, index);
	});
	const entries = [...probabilities.entries()];
	entries.sort(([keyA, pA], [keyB, pB]) => {
		if (pA !== pB) return pB - pA;
		// On a tie the run's own answer comes first, so the runner-up is never the answer itself.
		if (answer !== undefined && (keyA === answer || keyB === answer))
			return keyA === answer ? -1 : 1;
		const oA = order.get(keyA);
		const oB = order.get(keyB);
		if (oA !== undefined && oB !== undefined) return oA - oB;
		if (oA !== undefined) return -1;
		if (oB !== undefined) return 1;
		return keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
	});
	return entries;
}

/** The run's probabilities as a Map of finite numbers (own keys only: `constructor` is a key like any other). */
export function probabilitiesOf(run: JudgedRun): Map<string, number> {
	const out = new Map<string, number>();
	const record = run.probabilities;
	if (typeof record !== 'object' || record === null) return out;
	for (const key of Object.keys(record)) {
		const value = ownValue(record, key);
		if (typeof value === 'number' && Number.isFinite(value)) out.set(key, value);
	}
	return out;
}

/** The threshold of a label: given, else the API's default (0.5). */
export function thresholdOf(decision: EvaluationDecision, label: string): number {
	const given = decision.thresholds?.get(label);
	return typeof given === 'number' && Number.isFinite(given) ? given : BOUNDS.labelThresholdDefault;
}

/**
 * The margin of a run without the verdict: the gap of `closeCall`, or undefined when the run has
 * nothing to compare (and for a pending run, whose probabilities still count here: the coverage
 * table only uses answered runs anyway).
 */
export function marginOf(decision: EvaluationDecision, run: JudgedRun): number | undefined {
	const judged = judge(decision, run);
	return 'gap' in judged ? judged.gap : undefined;
}

function judge(
	decision: EvaluationDecision,
	run: JudgedRun,
): CloseCallJudged | { verdict: 'unknown'; reason: string } {
	const probabilities = probabilitiesOf(run);
	if (kindOf(decision.type)?.many) {
		// Each label is its own yes/no question: the closest call is the label nearest its threshold.
		// Ties: the decision's label order, then code units (labels not in the decision).
		const labels = rank(decision, new Map([...probabilities.keys()].map((key) => [key, 0])));
		let best: CloseCallJudged | undefined;
		for (const [label] of labels) {
			const p = probabilities.get(label) ?? 0;
			const t = thresholdOf(decision, label);
			const gap = clean(Math.abs(p - t));
			if (best === undefined || gap < best.gap) {
				const retained = run.answer ? run.answer.includes(label) : p >= t;
				best = {
					verdict: 'clear',
					leader: label,
					leaderProbability: p,
					runnerUp: label,
					runnerUpProbability: p,
					runnerUpRetained: retained,
					gap,
				};
			}
		}
		return best ?? { verdict: 'unknown', reason: 'the run has no label probabilities' };
	}
	const ranked = rank(decision, probabilities, run.answer?.[0]);
	if (ranked.length < 2) {
		return { verdict: 'unknown', reason: 'the run has fewer than two probabilities' };
	}
	const [[leader, leaderProbability], [runnerUp, runnerUpProbability]] = ranked;
	return {
		verdict: 'clear',
		leader,
		leaderProbability,
		runnerUp,
		runnerUpProbability,
		gap: clean(leaderProbability - runnerUpProbability),
	};
}

/**
 * The close-call rule: whether a run's two most probable answers are within `gap` of each other
 * (`close` when the gap is at or below it).
 *
 * - route and score: keys ranked by probability, highest first. Ties: the run's own answer
 *   (choice, or the level of `legend[round(raw_score)]`) first, then the decision's key order
 *   (levels lowest first), then keys the decision does not list, by code units. The gap is the
 *   first probability minus the second.
 * - classify: every label is its own yes/no question, so the close call is the label nearest its
 *   threshold: gap = |p − threshold| (threshold from `decision.thresholds`, else 0.5). Ties: the
 *   decision's label order. Leader and runner-up name that label; `runnerUpRetained` says whether
 *   the run kept it (so the other answer is "without it").
 * - A run the service marked pending stays pending: the verdict is `pending` whatever the gap.
 *   An uncertain run is judged (uncertain runs keep their probabilities).
 */
export function closeCall(decision: EvaluationDecision, run: JudgedRun, gap: number): CloseCall {
	if (run.status === 'pending') return { verdict: 'pending' };
	const judged = judge(decision, run);
	if (judged.verdict === 'unknown') return judged;
	return { ...judged, verdict: judged.gap <= gap ? 'close' : 'clear' };
}
