/**
 * A submitted review resumes with each item paired with its own input item. n8n 2.41.1 resumes a
 * waiting node disabled and forwards its webhook's lists, rewriting every item's lineage to its
 * place in its list (docs/what-happens-when.md, "Review and item lineage"); so the webhook hands
 * the items in one list and where each goes (routeOnResume), and n8n runs the node's execute once
 * more, which puts them back on their outputs (resumedOutputs). When the execution is not as n8n
 * 2.41.1 hands it, n8n's own lineage stays and every item says so (markLineageNotKept).
 */
import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IWebhookFunctions,
} from 'n8n-workflow';
import { ownValue } from '../../../../../src/contract';

/**
 * The key, on the metadata of the stack entry n8n resumes, that tells this node's run on resume
 * which input item each item is, per output: `{ outputs: number[][] }` (routeOnResume).
 */
export const RESUME_ROUTES = 'decisionServiceReview';

/** The field each item gets when its lineage could not be kept, and what it says. */
export const LINEAGE_WARNING_FIELD = 'lineageWarning';
export const LINEAGE_NOT_KEPT =
	"Review could not pair this item with its own input item: this n8n resumes a review differently from n8n 2.41.1, the version Review was tested with. After Review, $('an earlier node').item may give another item's data; read this item's own fields instead. See the package's docs/compatibility.md.";

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The entry n8n resumes this node from, as n8n 2.41.1 hands a waiting node's webhook its
 * execution, or undefined when it is not so. n8n's cli (webhooks/waiting-webhooks.js,
 * getWebhookExecutionData) disables `nodeExecutionStack[0]`, the waiting node, clears `waitTill`
 * and pops the waiting run before the webhook runs; n8n-core's WebhookContext keeps that data as
 * `runExecutionData` (node-execution-context.js), the same object n8n resumes from afterwards
 * (webhook-helpers.js, prepareExecutionData: the entry's `data.main` becomes the webhook's
 * `workflowData`, its `metadata` is spread and `forwardAllOutputs` added).
 */
function resumingEntry(n8n: IWebhookFunctions): Record<string, unknown> | undefined {
	const data = ownValue(n8n, 'runExecutionData');
	if (!isObject(data) || ownValue(data, 'waitTill') !== undefined) return undefined;
	const stack = ownValue(ownValue(data, 'executionData'), 'nodeExecutionStack');
	const entry: unknown = Array.isArray(stack) ? stack[0] : undefined;
	if (!isObject(entry)) return undefined;
	const node = ownValue(entry, 'node');
	if (!isObject(node) || node.name !== n8n.getNode().name || node.disabled !== true)
		return undefined;
	const metadata = ownValue(entry, 'metadata');
	return metadata === undefined || isObject(metadata) ? entry : undefined;
}

/**
 * What a submitted review's webhook hands n8n: `outputs` (each item's `pairedItem` its index on
 * Review's one input) made to keep that lineage. n8n resumes a waiting node disabled and forwards
 * the webhook's lists as its outputs, after n8n-core's addPairedItemLineage (workflow-execute.js,
 * on every entry taken from the stack) set each item's `pairedItem` to `{ item: its place in its
 * list, input: the list's index }`: an item left for later would name the first ticket, a
 * reviewed one an input Review does not have. So when the execution is as n8n 2.41.1 hands it
 * (resumingEntry), the node is enabled again, the items go in one list and where each goes in the
 * entry's metadata: n8n then runs execute, which routes them (resumedOutputs). Otherwise the lists
 * go as they are, each item marked, and n8n forwards them (docs/what-happens-when.md, "Review and
 * item lineage"): the node's code does not run again, so the mark on the items and a line in
 * n8n's log are all it can leave.
 */
export function routeOnResume(
	n8n: IWebhookFunctions,
	outputs: INodeExecutionData[][],
): INodeExecutionData[][] {
	const indexes = outputs.map((items) =>
		items.map((item) => {
			const paired = item.pairedItem;
			return typeof paired === 'number' ? paired : isObject(paired) ? paired.item : undefined;
		}),
	);
	const all = indexes.flat();
	if (!all.length) return outputs;
	if (!all.every((index) => Number.isInteger(index) && Number(index) >= 0))
		return markLineageNotKept(n8n, outputs);
	const entry = resumingEntry(n8n);
	if (!entry) return markLineageNotKept(n8n, outputs);
	entry.metadata = {
		...(entry.metadata as Record<string, unknown> | undefined),
		[RESUME_ROUTES]: { outputs: indexes },
	};
	(entry.node as Record<string, unknown>).disabled = false;
	return [outputs.flat()];
}

/**
 * The lists as n8n will forward them, each item carrying LINEAGE_WARNING_FIELD: n8n resumes the
 * node disabled and runs none of its code, so no execution hint can be added to that run
 * (n8n-core workflow-execute.js, handleDisabledNode); the field shows on every item in the output
 * panel, and the log line in n8n's log.
 */
function markLineageNotKept(
	n8n: IWebhookFunctions,
	outputs: INodeExecutionData[][],
): INodeExecutionData[][] {
	n8n.logger.warn(
		`Decision Service Review "${n8n.getNode().name}": the items' lineage could not be kept (this n8n resumes a waiting node differently from n8n 2.41.1); each item carries "${LINEAGE_WARNING_FIELD}".`,
	);
	return outputs.map((items) =>
		items.map((item) => ({
			...item,
			json: { ...item.json, [LINEAGE_WARNING_FIELD]: LINEAGE_NOT_KEPT },
		})),
	);
}

/**
 * This node's run on resume after routeOnResume: the items, in one list, back on their outputs,
 * each paired with its own input item. Undefined on any other run (no routes on the entry).
 */
export function resumedOutputs(
	n8n: IExecuteFunctions,
	items: INodeExecutionData[],
	count: number,
): INodeExecutionData[][] | undefined {
	// getExecuteData is n8n-core's (ExecuteContext); a context without it has no routes either.
	const executeData = typeof n8n.getExecuteData === 'function' ? n8n.getExecuteData() : undefined;
	const routes = ownValue(ownValue(executeData?.metadata, RESUME_ROUTES), 'outputs');
	if (routes === undefined) return undefined;
	const valid =
		Array.isArray(routes) &&
		routes.length === count &&
		routes.every(
			(indexes) =>
				Array.isArray(indexes) &&
				indexes.every((index) => Number.isInteger(index) && (index as number) >= 0),
		) &&
		(routes as number[][]).flat().length === items.length;
	if (!valid) {
		throw new NodeOperationError(
			n8n.getNode(),
			'The reviewed items could not be put on their outputs',
			{
				description: `n8n resumed the review with ${items.length} items that do not match what the page sent. Run the workflow again.`,
			},
		);
	}
	let next = 0;
	return (routes as number[][]).map((indexes) =>
		indexes.map((index) => ({ ...items[next++], pairedItem: { item: index } })),
	);
}
