/** What a failed Decide item carries, with the error output and without. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

/** What a failed item carries under `error`: the message, the hint, the code, whether it was charged. */
export function errorObject(error: Error): IDataObject {
	const described = error as Error & { description?: string | null; context?: IDataObject };
	const object: IDataObject = { message: error.message };
	if (described.description) object.description = described.description;
	const charged = described.context?.mayHaveBeenCharged;
	object.may_have_been_charged = charged === true;
	const code = described.context?.serviceCode;
	if (typeof code === 'string') object.code = code;
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
