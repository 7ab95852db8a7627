/**
 * Where an item goes: the one place that says which outputs a run (Decide), a failed item, or a
 * person's pick (Review) goes to, given the layout of the saved Outputs list (layout.ts). Pure: no
 * n8n context, so every status and kind is unit-tested (test/unit/routing).
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { RUN_STATUSES, jsonCopy, type RunAnswer } from '../../../src/contract';
import { kindOfRun } from '../../../src/answer/kinds';
import type { OutputsLayout, ReviewLayout } from './layout';

const KNOWN_STATUSES: readonly string[] = RUN_STATUSES;

function outside(value: number | undefined, min: number, max: number): boolean {
	return value !== undefined && !(value >= min && value <= max);
}

/**
 * Why a run cannot be routed by its answer (a status this node does not know, numbers out of
 * their range), or undefined when it can. Such a run goes to Other with the note.
 */
export function anomalyOf(run: RunAnswer): string | undefined {
	if (!KNOWN_STATUSES.includes(run.status)) {
		return `status "${run.status}" is not one this node knows (${RUN_STATUSES.join(', ')}); update the package`;
	}
	if (outside(run.confidence, 0, 1)) return `confidence ${run.confidence} is outside 0 to 1`;
	if (outside(run.score, 0, 100)) return `score ${run.score} is outside 0 to 100`;
	const probability = Object.entries(run.probabilities ?? {}).find(([, value]) =>
		outside(value, 0, 1),
	);
	if (probability)
		return `probability of "${probability[0]}" (${probability[1]}) is outside 0 to 1`;
	return undefined;
}

/** The run's answer as keys (src/answer/kinds.ts): undefined when it gave none. */
function answerKeys(run: RunAnswer): string[] | undefined {
	return kindOfRun(run)?.answerOf(run);
}

/**
 * The outputs a run goes to, lowest index first. Pending and uncertain runs go to their outputs;
 * a classify run to every retained label (No Label when none); a route run to its choice; a score
 * run to its level. A key the layout does not know, or a run anomalyOf refuses, goes to Other, so
 * nothing is dropped.
 */
export function targetsFor(run: RunAnswer, layout: OutputsLayout, closeCall = false): number[] {
	if (anomalyOf(run) !== undefined) return [layout.other];
	// Close Call Gap: a near tie goes to Uncertain, whatever it answered.
	if (closeCall) return [layout.uncertain];
	if (run.status === 'pending') return [layout.pending];
	if (run.status === 'uncertain') return [layout.uncertain];
	const keys = answerKeys(run);
	if (keys === undefined) return [layout.other];
	if (keys.length === 0) return [layout.noLabel ?? layout.other];
	const targets = new Set(keys.map((key) => layout.indexOf.get(key) ?? layout.other));
	return [...targets].sort((a, b) => a - b);
}

/** Why a run reached Other, in words for the item; undefined when it did not. */
export function otherNote(run: RunAnswer, layout: OutputsLayout): string | undefined {
	const anomaly = anomalyOf(run);
	if (anomaly) return `Sent to Other: ${anomaly}.`;
	if (!targetsFor(run, layout).includes(layout.other)) return undefined;
	const keys = answerKeys(run);
	if (keys === undefined) {
		return 'Sent to Other: the run gave no answer this node can read; refresh the Outputs list or update the package.';
	}
	const unknown = keys.filter((key) => !layout.indexOf.has(key));
	const named = unknown.map((key) => `"${key}"`).join(', ');
	return `Sent to Other: ${named || 'no label'} is not in the Outputs list; refresh it to route such answers.`;
}

/**
 * The item for each of its target outputs: the first as given, the others deep copies, so a
 * branch that edits its item (a Code node mutating it, say) cannot change another branch's.
 * Copied as JSON: n8n's deepCopy would drop fields named `constructor` or `__proto__`.
 */
export function itemPerTarget(
	item: INodeExecutionData,
	targets: readonly number[],
): Array<[number, INodeExecutionData]> {
	return targets.map((target, index) => [
		target,
		index === 0 ? item : { ...item, json: jsonCopy(item.json) },
	]);
}

/**
 * Where a failed item goes (continue-on-fail): Other, and with n8n's error output also every
 * output kept where the error output used to be (each holds what n8n's error output would).
 */
export function failedTargets(
	layout: OutputsLayout,
	usesErrorOutput: boolean,
): { other: number; keepers: number[] } {
	return { other: layout.other, keepers: usesErrorOutput ? layout.errorKeepers : [] };
}

/**
 * Where an item goes in Review: with no pick (left for later, or still waiting) Not Reviewed; else
 * each picked key's output, lowest first (classify: every label picked), No Label for no label;
 * Not Reviewed for a key the list does not have (removed from the list since the page was built).
 */
export function pickTargets(keys: readonly string[] | undefined, layout: ReviewLayout): number[] {
	if (keys === undefined) return [layout.notReviewed];
	const targets = keys.length
		? [...new Set(keys.map((key) => layout.indexOf.get(key) ?? layout.notReviewed))]
		: [layout.noLabel ?? layout.notReviewed];
	return targets.sort((a, b) => a - b);
}
