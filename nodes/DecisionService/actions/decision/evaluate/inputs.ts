/**
 * What each item brings to an evaluation, read before anything is spent: its expected answer
 * (checked against the decision), the answer it already carries (scored free), whether its run was
 * already counted on an earlier item, and, after the decides, what is scored.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { ownValue, type RunAnswer } from '../../../../../src/contract';
import { readAnswer, type ItemAnswer } from '../../../../../src/answer';
import {
	checkExpected,
	type EvaluationDecision,
	type ScoredItem,
} from '../../../../../src/evaluate';
import { slugOf } from '../../../pipeline/input';

/** Marks an item that needs no decide (it failed already, or carries its run). */
export class NotAsked extends Error {}

/** The answer an earlier Decide (or Review) left on the item, compact or whole (src/answer.ts). */
export function carriedAnswer(
	json: IDataObject,
	field: string,
	decision: EvaluationDecision,
): ItemAnswer | undefined {
	return readAnswer(ownValue(json, field), decision.type, decision.keys);
}

export interface Checked {
	expected: Array<string | string[] | undefined>;
	errors: Array<Error | undefined>;
}

/** Every item's expected answer checked before any decide; one evaluation measures one decision. */
export function checkAll(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	decision: EvaluationDecision,
	slug: string,
): Checked {
	const continueOnFail = context.continueOnFail();
	const checked: Checked = { expected: [], errors: [] };
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		let error: NodeOperationError | undefined;
		const itemSlug = slugOf(context, itemIndex);
		if (itemSlug !== slug) {
			error = new NodeOperationError(
				context.getNode(),
				`This item evaluates "${itemSlug}", the first item "${slug}"; one evaluation measures one decision`,
				{ itemIndex, description: 'Nothing was sent for this item, so nothing was charged.' },
			);
		} else {
			const raw = context.getNodeParameter('expected', itemIndex, undefined) as unknown;
			const result = checkExpected(decision, raw, itemIndex);
			if (result.ok) checked.expected[itemIndex] = result.value;
			else
				error = new NodeOperationError(context.getNode(), result.problem.message, {
					itemIndex,
					description:
						'Set Expected Answer to the key the item should get. Nothing was sent for this item, so nothing was charged.',
				});
		}
		if (error && !continueOnFail) throw error;
		checked.errors[itemIndex] = error;
	}
	return checked;
}

/**
 * Items whose run an earlier item already carries (a classify item Review put on two outputs,
 * merged): each such item and the item its run is counted on.
 */
export function repeatsOf(carried: ReadonlyArray<ItemAnswer | undefined>): Map<number, number> {
	const firstWithRun = new Map<string, number>();
	const repeats = new Map<number, number>();
	carried.forEach((answer, itemIndex) => {
		if (!answer) return;
		const first = firstWithRun.get(answer.runId);
		if (first === undefined) firstWithRun.set(answer.runId, itemIndex);
		else repeats.set(itemIndex, first);
	});
	return repeats;
}

export interface Scoring {
	scored: ScoredItem[];
	/** The input item of each scored item. */
	scoredIndexes: number[];
	failures: Map<number, Error>;
}

/** The scored items: the carried answer or the fresh run; failures and repeats stay apart. */
export function scoreItems(
	itemCount: number,
	checked: Checked,
	carried: ReadonlyArray<ItemAnswer | undefined>,
	repeats: ReadonlyMap<number, number>,
	results: ReadonlyArray<RunAnswer | Error>,
	readRun: (run: RunAnswer) => ItemAnswer,
): Scoring {
	const scoring: Scoring = { scored: [], scoredIndexes: [], failures: new Map() };
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		const error = checked.errors[itemIndex];
		const result = results[itemIndex];
		const carriedHere = carried[itemIndex];
		if (error) scoring.failures.set(itemIndex, error);
		else if (repeats.has(itemIndex)) continue;
		else if (carriedHere) {
			scoring.scored.push({ expected: checked.expected[itemIndex], run: carriedHere, charged: 0 });
			scoring.scoredIndexes.push(itemIndex);
		} else if (result instanceof Error) scoring.failures.set(itemIndex, result);
		else {
			scoring.scored.push({
				expected: checked.expected[itemIndex],
				run: readRun(result),
				charged: 1,
			});
			scoring.scoredIndexes.push(itemIndex);
		}
	}
	return scoring;
}
