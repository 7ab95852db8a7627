/**
 * Review's resume in n8n-core, without a server: the execution as n8n 2.41.1's cli hands a waiting
 * node's webhook (the entry of the Review node disabled, `waitTill` cleared; waiting-webhooks.js),
 * routeOnResume on n8n-core's WebhookContext, what the cli's prepareExecutionData then does to the
 * entry (`data.main` the webhook's lists, `forwardAllOutputs` added), and n8n-core's WorkflowExecute
 * resuming it. Every item on every output must be paired with its own input item. Also: when the
 * execution is not so (a later n8n), the execution is left untouched and every item says its
 * lineage could not be kept (field and n8n log), and a run whose routes do not match its items
 * fails with a message instead of putting an item on the wrong output.
 * The same in real n8n, through expressions after Review: test/e2e/review-lineage.test.ts.
 */
import { ExecutionLifecycleHooks, WebhookContext, WorkflowExecute } from 'n8n-core';
import {
	Workflow,
	createRunExecutionData,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type IRun,
	type IRunExecutionData,
	type IWebhookData,
} from 'n8n-workflow';
import {
	LINEAGE_NOT_KEPT,
	LINEAGE_WARNING_FIELD,
	RESUME_ROUTES,
	routeOnResume,
} from '../../nodes/DecisionService/actions/decision/review/resume';
import { reviewWebhooks } from '../../nodes/DecisionService/actions/decision/review/description';
import { reviewLayout } from '../../nodes/DecisionService/outputs/layout';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import {
	SingleNodeTypes,
	additionalDataFor,
	decisionNode,
	lifecycleHooks,
} from '../../harness/n8n-engine';

const REVIEW = 'Review';
const SCHEMA = [
	{ id: 'billing', displayName: 'billing' },
	{ id: 'technical', displayName: 'technical' },
	{ id: 'account', displayName: 'account' },
];
const COUNT = reviewLayout(SCHEMA).count;
const CREDENTIALS = { apiKey: 'unused', baseUrl: 'https://api.example.com/v1' };

const INPUT = ['hello', 'Invoice and crash', 'Bill and login', 'Password and payment'];

function reviewWorkflow() {
	const node = decisionNode(
		{
			parameters: {
				resource: 'decision',
				operation: 'review',
				decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
				routes: { mappingMode: 'defineBelow', value: {}, matchingColumns: [], schema: SCHEMA },
			},
		},
		REVIEW,
	);
	const workflow = new Workflow({
		id: 'review-lineage',
		nodes: [node],
		connections: {},
		nodeTypes: new SingleNodeTypes(new DecisionService()),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	return { workflow, node: workflow.getNode(REVIEW)! };
}

/** The item the webhook puts out for input item `index` (as webhook.ts's itemWith does). */
const reviewed = (index: number, review: IDataObject): INodeExecutionData => ({
	json: { subject: INPUT[index], review },
	pairedItem: { item: index },
});

/**
 * What the webhook assembles for the picks: Bill and login (index 2) left for later, hello to
 * billing, Invoice and crash and Password and payment to account.
 */
function submittedOutputs(): INodeExecutionData[][] {
	const outputs: INodeExecutionData[][] = Array.from({ length: COUNT }, () => []);
	outputs[0].push(reviewed(2, { status: 'not_reviewed' }));
	outputs[1].push(reviewed(0, { status: 'reviewed', answer: 'billing' }));
	outputs[3].push(reviewed(1, { status: 'reviewed', answer: 'account' }));
	outputs[3].push(reviewed(3, { status: 'reviewed', answer: 'account' }));
	return outputs;
}

/** The execution as n8n 2.41.1's cli hands the webhook of the waiting Review node. */
function waitingExecution(node: INode, change: (run: IRunExecutionData) => void = () => {}) {
	const run = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: { ...node, disabled: true },
					data: { main: [INPUT.map((subject) => ({ json: { subject } }))] },
					source: null,
				},
			],
		},
		resultData: { runData: {}, lastNodeExecuted: REVIEW },
	});
	run.waitTill = undefined;
	change(run);
	return run;
}

function webhookOn(workflow: Workflow, node: INode, run: IRunExecutionData | null) {
	const hooks = new ExecutionLifecycleHooks('webhook', 'review-lineage', {} as never);
	const additionalData = additionalDataFor(CREDENTIALS, hooks);
	const webhookData = {
		httpMethod: 'POST',
		node: REVIEW,
		path: '',
		webhookDescription: reviewWebhooks[0],
		workflowId: 'review-lineage',
		workflowExecuteAdditionalData: additionalData,
	} as IWebhookData;
	return new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], run);
}

/** What the cli's prepareExecutionData does with the webhook's answer, then n8n-core resuming it. */
async function resume(
	workflow: Workflow,
	run: IRunExecutionData,
	workflowData: INodeExecutionData[][],
): Promise<IRun> {
	const entry = run.executionData!.nodeExecutionStack[0];
	entry.data.main = workflowData;
	entry.metadata = { ...entry.metadata, forwardAllOutputs: true };
	const { hooks, finished } = lifecycleHooks(workflow, 'webhook', 'review-lineage');
	const returned = await new WorkflowExecute(
		additionalDataFor(CREDENTIALS, hooks),
		'webhook',
		run,
	).processRunExecutionData(workflow);
	return finished() ?? returned;
}

const shape = (outputs: Array<INodeExecutionData[] | null> | undefined) =>
	(outputs ?? []).map((items) =>
		(items ?? []).map((item) => ({ subject: item.json.subject, pairedItem: item.pairedItem })),
	);

const EXPECTED = [
	[{ subject: 'Bill and login', pairedItem: { item: 2 } }],
	[{ subject: 'hello', pairedItem: { item: 0 } }],
	[],
	[
		{ subject: 'Invoice and crash', pairedItem: { item: 1 } },
		{ subject: 'Password and payment', pairedItem: { item: 3 } },
	],
];

describe('Review resumed by a submitted review', () => {
	it('pairs every item on every output with its own input item', async () => {
		const { workflow, node } = reviewWorkflow();
		const run = waitingExecution(node);
		const workflowData = routeOnResume(webhookOn(workflow, node, run), submittedOutputs());
		const entry = run.executionData!.nodeExecutionStack[0];
		expect(workflowData).toHaveLength(1);
		expect(entry.node.disabled).toBe(false);
		expect(entry.metadata).toEqual({ [RESUME_ROUTES]: { outputs: [[2], [0], [], [1, 3]] } });

		const done = await resume(workflow, run, workflowData);
		expect(done.data.resultData.error).toBeUndefined();
		const tasks = done.data.resultData.runData[REVIEW];
		expect(tasks).toHaveLength(1);
		expect(shape(tasks[0].data?.main)).toEqual(EXPECTED);
		// The review written by the webhook rides along unchanged.
		expect(tasks[0].data?.main[3]?.[1].json.review).toEqual({
			status: 'reviewed',
			answer: 'account',
		});
	});

	it("without the routing, n8n's pass-through: what this fixes (positions, input = output)", async () => {
		const { workflow, node } = reviewWorkflow();
		const run = waitingExecution(node);
		const done = await resume(workflow, run, submittedOutputs());
		expect(shape(done.data.resultData.runData[REVIEW][0].data?.main)).toEqual([
			[{ subject: 'Bill and login', pairedItem: { item: 0 } }],
			[{ subject: 'hello', pairedItem: { item: 0, input: 1 } }],
			[],
			[
				{ subject: 'Invoice and crash', pairedItem: { item: 0, input: 3 } },
				{ subject: 'Password and payment', pairedItem: { item: 1, input: 3 } },
			],
		]);
	});

	/** Each item's subject and whether it carries the lineage warning. */
	const marks = (outputs: Array<INodeExecutionData[] | null> | undefined) =>
		(outputs ?? []).map((items) =>
			(items ?? []).map((item) => [item.json.subject, item.json[LINEAGE_WARNING_FIELD]]),
		);
	const ALL_MARKED = shape(submittedOutputs()).map((items) =>
		items.map((item) => [item.subject, LINEAGE_NOT_KEPT]),
	);

	it.each<[string, (run: IRunExecutionData) => void]>([
		[
			'the execution still has its waitTill (n8n did not clear it)',
			(run) => {
				run.waitTill = new Date();
			},
		],
		[
			'the entry is not disabled',
			(run) => {
				run.executionData!.nodeExecutionStack[0].node.disabled = false;
			},
		],
		[
			'the entry is another node',
			(run) => {
				run.executionData!.nodeExecutionStack[0].node.name = 'Other';
			},
		],
		[
			'the stack is empty',
			(run) => {
				run.executionData!.nodeExecutionStack = [];
			},
		],
	])('when %s: the execution untouched, every item marked, a warning in n8n’s log', (_, change) => {
		const { workflow, node } = reviewWorkflow();
		const run = waitingExecution(node, change);
		const before = JSON.stringify(run);
		const context = webhookOn(workflow, node, run);
		const warn = jest.spyOn(context.logger, 'warn');
		const returned = routeOnResume(context, submittedOutputs());
		expect(JSON.stringify(run)).toBe(before);
		// The lists as the page assembled them, each item saying its lineage was not kept.
		expect(shape(returned)).toEqual(EXPECTED);
		expect(marks(returned)).toEqual(ALL_MARKED);
		expect(warn).toHaveBeenCalledWith(expect.stringContaining('lineage could not be kept'));
	});

	it('marks every item without execution data', () => {
		const { workflow, node } = reviewWorkflow();
		expect(marks(routeOnResume(webhookOn(workflow, node, null), submittedOutputs()))).toEqual(
			ALL_MARKED,
		);
	});

	it('marks nothing when the lineage is kept', () => {
		const { workflow, node } = reviewWorkflow();
		const run = waitingExecution(node);
		const workflowData = routeOnResume(webhookOn(workflow, node, run), submittedOutputs());
		expect(workflowData.flat().some((item) => LINEAGE_WARNING_FIELD in item.json)).toBe(false);
	});

	it('a later n8n that clears waitTill only after the webhook: n8n’s lineage, every item on every output says it', async () => {
		// The fallback forced: the webhook sees the execution still waiting, so it leaves it as it
		// is; n8n then resumes the disabled node and forwards the lists (its own lineage).
		const { workflow, node } = reviewWorkflow();
		const run = waitingExecution(node, (execution) => {
			execution.waitTill = new Date();
		});
		const workflowData = routeOnResume(webhookOn(workflow, node, run), submittedOutputs());
		run.waitTill = undefined;
		const done = await resume(workflow, run, workflowData);
		expect(done.data.resultData.error).toBeUndefined();
		const main = done.data.resultData.runData[REVIEW][0].data?.main;
		// What n8n gives: positions in each list, not the items' own input items.
		expect(shape(main)[3]).toEqual([
			{ subject: 'Invoice and crash', pairedItem: { item: 0, input: 3 } },
			{ subject: 'Password and payment', pairedItem: { item: 1, input: 3 } },
		]);
		expect(marks(main)).toEqual(ALL_MARKED);
	});

	it('fails with a message, putting nothing out, when the routes do not match the items', async () => {
		const { workflow, node } = reviewWorkflow();
		const run = waitingExecution(node);
		const workflowData = routeOnResume(webhookOn(workflow, node, run), submittedOutputs());
		workflowData[0].pop();
		const done = await resume(workflow, run, workflowData);
		expect(done.data.resultData.error?.message).toBe(
			'The reviewed items could not be put on their outputs',
		);
		expect(done.data.resultData.runData[REVIEW][0].data).toBeUndefined();
	});
});
