/**
 * Review, first half: check what can be checked before anyone is asked (a secret link, the
 * decision), then put the execution to wait on n8n's own machinery (as its Wait node does), until
 * a person submits the page (webhook.ts) or the time limit passes: n8n then hands the items to the
 * first output, Not Reviewed, without running the node again. While it waits, the node's output
 * shows each item with `review.status` "waiting"; n8n keeps the input with the execution, and
 * the page is built from it when it is opened, in whichever process serves the link.
 *
 * On a submit, n8n runs this node once more (routeOnResume, resumedOutputs): it puts each item on
 * its output, paired with its own input item, which n8n's pass-through of a resumed node does not.
 */
import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IWebhookFunctions,
	type ResourceMapperValue,
} from 'n8n-workflow';
import { ownValue } from '../../../../../src/contract';
import { toNodeError } from '../../../errors';
import { OUTPUTS_LIST_PARAMETER, reviewLayout } from '../../../outputs/list';
import { createDecisionClient } from '../../../transport';
import { slugOf } from '../../../pipeline/input';
import { runsAsTool } from '../../../pipeline/tool';
import { timeLimitMs } from './description';

/** Most items on one page: two form fields each, and n8n reads at most 1000 fields of a form. */
export const MAX_REVIEW_ITEMS = 300;

/** The field each item's review state is written to. */
export const REVIEW_FIELD = 'review';

/** The execution's custom data key that keeps when unreviewed items move on (shown on the page). */
export const REVIEW_UNTIL = 'reviewUntil';

/** n8n 2 adds the execution's secret to its resume URL (`?signature=`); n8n 1 has none. */
function hasSecretLink(resumeUrl: string): boolean {
	try {
		return new URL(resumeUrl).searchParams.has('signature');
	} catch {
		return false;
	}
}

/**
 * The key, on the metadata of the stack entry n8n resumes, that tells this node's run on resume
 * which input item each item is, per output: `{ outputs: number[][] }` (routeOnResume).
 */
export const RESUME_ROUTES = 'decisionServiceReview';

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
 * go as they are and n8n forwards them (docs/what-happens-when.md, "Review and item lineage").
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
	if (!all.length || !all.every((index) => Number.isInteger(index) && Number(index) >= 0))
		return outputs;
	const entry = resumingEntry(n8n);
	if (!entry) return outputs;
	entry.metadata = {
		...(entry.metadata as Record<string, unknown> | undefined),
		[RESUME_ROUTES]: { outputs: indexes },
	};
	(entry.node as Record<string, unknown>).disabled = false;
	return [outputs.flat()];
}

/**
 * This node's run on resume after routeOnResume: the items, in one list, back on their outputs,
 * each paired with its own input item. Undefined on any other run (no routes on the entry).
 */
function resumedOutputs(
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

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	if (runsAsTool(this)) {
		throw new NodeOperationError(node, 'Review cannot run as an AI tool', {
			description: 'A review waits for a person; use Decide as the tool.',
		});
	}
	const routes = this.getNodeParameter(OUTPUTS_LIST_PARAMETER, 0) as ResourceMapperValue;
	const layout = reviewLayout(routes.schema ?? []);
	const resumed = resumedOutputs(this, items, layout.count);
	if (resumed) return resumed;
	const outputs: INodeExecutionData[][] = Array.from({ length: layout.count }, () => []);
	if (!items.length) return outputs;

	if (items.length > MAX_REVIEW_ITEMS) {
		throw new NodeOperationError(node, `Review takes at most ${MAX_REVIEW_ITEMS} items at once`, {
			description: `${items.length} items arrived. A page with more is hard to review, and n8n reads at most 1000 form fields. Split them with Loop Over Items (batch size ${MAX_REVIEW_ITEMS} or less) before this node.`,
		});
	}
	const resumeUrl = String(this.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	if (!hasSecretLink(resumeUrl)) {
		throw new NodeOperationError(node, 'Review needs n8n 2.0 or later', {
			description:
				'Its page is served on the execution’s resume link. From n8n 2.0 that link carries a secret; before, it is the execution’s number, which anyone could guess. Update n8n, or handle the Uncertain output with your own steps.',
		});
	}
	const slug = slugOf(this, 0);
	if (!slug) throw new NodeOperationError(node, 'No decision selected');
	try {
		// The page needs the decision; a wrong slug or key fails now, not when a reviewer opens it.
		await (await createDecisionClient(this)).getDecision(slug);
	} catch (error) {
		throw toNodeError(node, error);
	}
	const amount = this.getNodeParameter('timeLimit', 0, 24) as number;
	const unit = this.getNodeParameter('timeLimitUnit', 0, 'hours') as string;
	const waitTill = new Date(Date.now() + timeLimitMs(amount, unit));
	this.customData.set(REVIEW_UNTIL, waitTill.toISOString());
	await this.putExecutionToWait(waitTill);
	outputs[layout.notReviewed] = items.map((item, index) => ({
		json: { ...item.json, [REVIEW_FIELD]: { status: 'waiting', until: waitTill.toISOString() } },
		binary: item.binary,
		pairedItem: { item: index },
	}));
	return outputs;
}
