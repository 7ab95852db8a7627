/** What an item carries after a decide: its answer (src/answer/item-answer.ts), or its error. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { writeAnswer } from '../../../src/answer/item-answer';
import type { RunAnswer } from '../../../src/contract';
import { mayHaveBeenCharged, serviceCodeOf } from '../errors';

/** What a failed item carries under `error`: the message, the hint, the code, whether it was charged. */
export function errorObject(error: Error): IDataObject {
	const object: IDataObject = { message: error.message };
	const description = 'description' in error ? error.description : undefined;
	if (typeof description === 'string' && description) object.description = description;
	object.may_have_been_charged = mayHaveBeenCharged(error);
	const code = serviceCodeOf(error);
	if (code !== undefined) object.code = code;
	return object;
}

/**
 * A failed item: its own fields plus an `error` object. With the error output, n8n moves an item
 * whose only field is `error` there and merges the input item's fields back in itself (an item
 * flagged with `.error` would lose them: n8n rewrites it to the message alone).
 */
export function failedItemJson(
	item: INodeExecutionData,
	error: Error,
	errorOutput: boolean,
): IDataObject {
	return errorOutput ? { error: errorObject(error) } : { ...item.json, error: errorObject(error) };
}

/**
 * What is written on the item: the compact answer (Simplify) or the whole run, as src/answer/item-answer.ts's
 * contract says (Evaluate, Review and Send Feedback read it back with `readAnswer`).
 */
export function answerOf(run: RunAnswer, simplify: boolean): IDataObject {
	// Written from parsed JSON: every value is JSON, what IDataObject holds.
	return writeAnswer(run, simplify) as IDataObject;
}
