/**
 * Where a run goes, and what is written on its item: pure functions of the run and the saved
 * Outputs list, with no n8n context, so every status and type is unit-tested (test/unit/routing).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { RUN_STATUSES, jsonCopy, type RunAnswer } from '../../../../../src/contract';
import { writeAnswer } from '../../../../../src/answer';
import { kindOfRun } from '../../../../../src/kinds';
import type { OutputsLayout } from '../../../outputs-list';

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

/** The run's answer as keys (src/kinds.ts): undefined when it gave none. */
function answerKeys(run: RunAnswer): string[] | undefined {
	return kindOfRun(run)?.answerOf(run);
}

/**
 * The outputs a run goes to, lowest index first. Pending and uncertain runs go to their outputs;
 * a classify run to every retained label (No Label when none); a route run to its choice; a score
 * run to its level. A key the layout does not know, or a run anomalyOf refuses, goes to Other, so
 * nothing is dropped.
 */
export function targetsFor(run: RunAnswer, layout: OutputsLayout): number[] {
	if (anomalyOf(run) !== undefined) return [layout.other];
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
 * What is written on the item: the compact answer (Simplify) or the whole run, as src/answer.ts's
 * contract says (Evaluate, Review and Send Feedback read it back with `readAnswer`).
 */
export function answerOf(run: RunAnswer, simplify: boolean): IDataObject {
	// Written from parsed JSON: every value is JSON, what IDataObject holds.
	return writeAnswer(run, simplify) as IDataObject;
}
