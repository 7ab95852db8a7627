/**
 * The labeled row of one reviewed item (src/answer/labeled-row.ts): the pick, and beside it what
 * the decision was asked, the version that answered, why a person saw it, the workflow, all read
 * from the waiting context (context.ts) and the page. Nothing here throws.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { ownValue } from '../../../../../src/contract';
import { readAnswer } from '../../../../../src/answer/item-answer';
import { kindOf } from '../../../../../src/answer/kinds';
import {
	notReviewedRow,
	reviewRow,
	type ReviewStratum,
} from '../../../../../src/answer/labeled-row';
import { agreedWith, type ReviewPick } from '../../../../../src/review';
import type { WaitingContext } from './context';
import { machineAnswerOf } from './page-data';

/** Of the submit, the same on every row. */
export interface SubmitStamp {
	reviewedAt: string;
	executionId: string;
}

/** One flat row (src/answer/labeled-row.ts): n8n's Data Table node stores it as it is. */
export function labeledRowOf(
	context: WaitingContext,
	pick: ReviewPick,
	feedback: IDataObject | undefined,
	stamp: SubmitStamp,
): IDataObject {
	const { page, resultField } = context;
	const item = context.items[pick.index];
	const shown = page.items[pick.index];
	return reviewRow({
		picked: pick.keys,
		labels: kindOf(page.decision.type)?.many === true,
		agreed: agreedWith(shown, pick),
		note: pick.note,
		feedback,
		decision: page.decision.slug,
		version: versionOf(item, resultField) ?? context.decision.live_version ?? undefined,
		runId: shown?.runId,
		machineStatus: shown?.status,
		machineAnswer: shown?.machineAnswer ?? [],
		confidence: shown?.confidence,
		...strataOf(item, resultField),
		input: context.asked[pick.index],
		reviewedAt: stamp.reviewedAt,
		executionId: stamp.executionId,
		workflowId: context.workflowId,
	});
}

/** What a row needs of the waiting items, on a submit (WaitingContext) and before the wait alike. */
export type RowSource = Pick<
	WaitingContext,
	'items' | 'decision' | 'asked' | 'resultField' | 'workflowId'
>;

/** When an item was left without a review, and in which execution. */
export interface LeftStamp {
	leftAt: string;
	executionId: string;
}

/**
 * The row of an item nobody reviewed (src/answer/labeled-row.ts, notReviewedRow): the machine's
 * side read from the answer Decide wrote on the item, as the page reads it (page-data.ts).
 */
export function notReviewedRowOf(source: RowSource, index: number, stamp: LeftStamp): IDataObject {
	const { decision, resultField } = source;
	const item = source.items[index];
	const answer = ownValue(item.json, resultField);
	const machine = machineAnswerOf(
		typeof answer === 'object' && answer !== null ? (answer as IDataObject) : undefined,
		decision,
	);
	return notReviewedRow({
		labels: kindOf(decision.type)?.many === true,
		decision: decision.slug,
		version: versionOf(item, resultField) ?? decision.live_version ?? undefined,
		runId: machine.runId,
		machineStatus: machine.status,
		machineAnswer: machine.machineAnswer ?? [],
		confidence: machine.confidence,
		...strataOf(item, resultField),
		input: source.asked[index],
		leftAt: stamp.leftAt,
		executionId: stamp.executionId,
		workflowId: source.workflowId,
	});
}

/**
 * Whether an item's `review` is the row Review put on it before waiting (execute.ts,
 * leftWhenTimeIsUp) in this execution: read past when the page is built, as it was not asked.
 */
export function isOwnLeftRow(review: unknown, executionId: string): boolean {
	return (
		typeof review === 'object' &&
		review !== null &&
		ownValue(review, 'status') === 'not_reviewed' &&
		ownValue(review, 'execution_id') === executionId
	);
}

/** The version a whole run (Decide's Simplify off) names. */
export function versionOf(item: INodeExecutionData, resultField: string): number | undefined {
	const version = ownValue(ownValue(item.json, resultField), 'version');
	return typeof version === 'number' && Number.isInteger(version) ? version : undefined;
}

/**
 * Why a person saw the item, from the answer Decide wrote on it: `audited` when Audit Share picked
 * it (with its share), `doubtful` when Decide sent it to Uncertain or Pending Review (a close call
 * included); neither for an item that did not come from Decide that way (a failed item, Other).
 */
export function strataOf(
	item: INodeExecutionData,
	resultField: string,
): { stratum?: ReviewStratum; auditShare?: number } {
	const answer = readAnswer(ownValue(item.json, resultField));
	if (!answer) return {};
	if (answer.auditShare !== undefined) return { stratum: 'audited', auditShare: answer.auditShare };
	if (answer.status === 'uncertain' || answer.status === 'pending' || answer.closeCall)
		return { stratum: 'doubtful' };
	return {};
}
