/**
 * Every doubtful item Review did not get a person's answer for leaves it with a row (issue 43,
 * point 6): `review` is the flat row of src/answer/labeled-row.ts with `status: 'not_reviewed'`,
 * so the store branch keeps it and Evaluate counts the doubtful items that were not reviewed.
 *
 * In n8n-core 2.41.1 with the sandbox: Decide (Pending Review and Uncertain wired into Review) →
 * Review, which puts the execution to wait. Then, as n8n's cli does:
 * - the time limit passes: the execution is resumed from its saved data (a JSON round trip), the
 *   Review entry disabled (WorkflowExecute's handleWaitingState), and n8n hands the waiting input
 *   on to Not Reviewed without running Review: the row must already be on it;
 * - a person submits the page with one ticket picked and the others left for later: the webhook
 *   (n8n-core's WebhookContext, the entry as waiting-webhooks.js hands it), then the resume.
 */
import { ExecutionLifecycleHooks, WebhookContext, WorkflowExecute } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type IRun,
	type IRunExecutionData,
	type IWebhookData,
	type ResourceMapperField,
} from 'n8n-workflow';
import { LABELED_ROW_COLUMNS } from '../../src/answer';
import { reviewWebhooks } from '../../nodes/DecisionService/actions/decision/review/description';
import { forReview } from '../../nodes/DecisionService/outputs/list';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import {
	SingleNodeTypes,
	additionalDataFor,
	decisionNode,
	lifecycleHooks,
	outputNames,
	runInEngine,
	type EngineCredentials,
} from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { REVIEW_TICKETS } from '../support/review';
import { decideParameters, loadRoutes, locator } from './helpers';

const DECIDE = 'Route ticket';
const REVIEW = 'Review doubtful tickets';
const EXECUTION = 'left-rows-1';
const SUBJECTS = ['hello', 'Invoice and crash', 'Charged twice', 'Bill and login'];
const BODIES = Object.fromEntries(
	REVIEW_TICKETS.map((ticket): [string, string] => [ticket.subject, ticket.body]),
);
const COLUMNS = new Set(LABELED_ROW_COLUMNS.map((column) => column.name));

let sb: TestSandbox;
let credentials: EngineCredentials;

beforeAll(async () => {
	sb = await startTestSandbox();
	credentials = { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl };
});
afterAll(async () => {
	await sb?.close();
});

async function workflowOf(): Promise<Workflow> {
	const routes = await loadRoutes('ticket-routing', credentials);
	const decideParams = decideParameters('ticket-routing', routes, {
		// The whole item, n8n's default: the row Review puts on its waiting items must not be read
		// as part of what was asked (context.ts reads past it).
		inputMode: 'json',
		jsonInput: '={{ $json }}',
	});
	const names = outputNames(decideParams);
	const reviewParams = {
		resource: 'decision',
		operation: 'review',
		decision: locator('ticket-routing'),
		routes: {
			...routes,
			schema: forReview(routes.schema as unknown as ResourceMapperField[]),
		},
		timeLimit: 2,
		timeLimitUnit: 'hours',
		options: {},
	} as unknown as INodeParameters;
	const decide = { ...decisionNode({ parameters: decideParams }, DECIDE), id: 'decide' };
	const review = { ...decisionNode({ parameters: reviewParams }, REVIEW), id: 'review' };
	const toReview = [{ node: REVIEW, type: 'main' as const, index: 0 }];
	return new Workflow({
		id: 'left-rows',
		nodes: [decide, review],
		connections: {
			[DECIDE]: {
				main: names.map((name) =>
					name === 'Uncertain' || name === 'Pending Review' ? toReview : [],
				),
			},
		},
		nodeTypes: new SingleNodeTypes(new DecisionService()),
		active: false,
		settings: { executionOrder: 'v1' },
	});
}

/** Decide → Review until the execution waits; its data as n8n saves it (JSON). */
async function waiting(workflow: Workflow): Promise<IRun> {
	const items = SUBJECTS.map((subject) => ({ subject, body: BODIES[subject] }));
	const run = await runInEngine(
		workflow,
		workflow.getNode(DECIDE)!,
		items,
		credentials,
		undefined,
		EXECUTION,
	);
	expect(run.waitTill).toBeDefined();
	return JSON.parse(JSON.stringify(run)) as IRun;
}

async function resume(workflow: Workflow, data: IRunExecutionData): Promise<IRun> {
	const { hooks, finished } = lifecycleHooks(workflow, 'webhook', EXECUTION);
	const returned = await new WorkflowExecute(
		additionalDataFor(credentials, hooks, EXECUTION),
		'webhook',
		data,
	).processRunExecutionData(workflow);
	return finished() ?? returned;
}

const reviewOutputs = (run: IRun) =>
	(run.data.resultData.runData[REVIEW]?.at(-1)?.data?.main ?? []).map((items) => items ?? []);
const decideItems = (run: IRun) =>
	(run.data.resultData.runData[DECIDE]?.[0]?.data?.main ?? []).flatMap((items) => items ?? []);
const runIdOf = (item: INodeExecutionData) =>
	String((item.json.decision as IDataObject | undefined)?.run_id ?? '');

/** What a left item's row must say, beside the time it was left. */
function expectLeftRow(item: INodeExecutionData, leftAt: (at: string) => void) {
	const review = item.json.review as IDataObject;
	const runId = runIdOf(item);
	expect(runId).not.toBe('');
	expect(review).toEqual(
		expect.objectContaining({
			review_id: `${EXECUTION}/${runId}`,
			status: 'not_reviewed',
			answer: '',
			decision: 'ticket-routing',
			version: expect.any(Number),
			run_id: runId,
			machine_status: 'pending',
			confidence: expect.any(Number),
			stratum: 'doubtful',
			input: JSON.stringify({ subject: item.json.subject, body: item.json.body }),
			execution_id: EXECUTION,
			workflow_id: 'left-rows',
		}),
	);
	expect(review).not.toHaveProperty('agreed');
	expect(review).not.toHaveProperty('feedback_sent');
	for (const key of Object.keys(review)) expect(COLUMNS).toContain(key);
	for (const value of Object.values(review))
		expect(['string', 'number', 'boolean']).toContain(typeof value);
	leftAt(String(review.reviewed_at));
}

describe('Review: doubtful items nobody reviewed leave with their row', () => {
	it('the time limit passes: n8n forwards the waiting input, which carries each row', async () => {
		const workflow = await workflowOf();
		const saved = await waiting(workflow);
		const waitTill = new Date(saved.waitTill!).toISOString();
		// What Decide put out is left as it was: the rows are on Review's own copies.
		for (const item of decideItems(saved)) expect(item.json).not.toHaveProperty('review');

		const run = await resume(workflow, saved.data);
		expect(run.status).toBe('success');
		const [notReviewed, ...picked] = reviewOutputs(run);
		expect(picked.flat()).toEqual([]);
		expect(notReviewed.map((item) => item.json.subject).sort()).toEqual(
			['Bill and login', 'Invoice and crash', 'hello'].sort(),
		);
		for (const item of notReviewed) expectLeftRow(item, (at) => expect(at).toBe(waitTill));
	});

	it('a submit: the ticket picked has its review, the ones left for later their row', async () => {
		const workflow = await workflowOf();
		const saved = await waiting(workflow);
		// As n8n 2.41.1's cli hands the webhook the waiting execution (waiting-webhooks.js).
		const data = saved.data;
		data.waitTill = undefined;
		const entry = data.executionData!.nodeExecutionStack[0];
		entry.node.disabled = true;
		data.resultData.runData[REVIEW].pop();
		const waitingInput = entry.data.main[0] ?? [];
		const pickAt = waitingInput.findIndex((item) => item.json.subject === 'Invoice and crash');
		expect(pickAt).toBeGreaterThanOrEqual(0);

		const before = new Date().toISOString();
		const answer = await submit(workflow, entry.node, data, { [`pick-${pickAt}`]: 'billing' });
		const after = new Date().toISOString();
		entry.data.main = answer;
		entry.metadata = { ...entry.metadata, forwardAllOutputs: true };
		const run = await resume(workflow, data);
		expect(run.status).toBe('success');

		const [notReviewed, ...picked] = reviewOutputs(run);
		expect(notReviewed.map((item) => item.json.subject).sort()).toEqual(
			['Bill and login', 'hello'].sort(),
		);
		for (const item of notReviewed)
			expectLeftRow(item, (at) => {
				expect(at >= before && at <= after).toBe(true);
			});
		const reviewed = picked.flat();
		expect(reviewed.map((item) => item.json.subject)).toEqual(['Invoice and crash']);
		const row = reviewed[0].json.review as IDataObject;
		expect(row).toEqual(
			expect.objectContaining({
				status: 'reviewed',
				answer: 'billing',
				stratum: 'doubtful',
				review_id: `${EXECUTION}/${runIdOf(reviewed[0])}`,
			}),
		);
		// The row Review put on the waiting items is not part of what was asked.
		expect(String(row.input)).not.toContain('not_reviewed');
	});
});

/** The page's POST through the node's webhook on n8n-core's WebhookContext; its workflowData. */
async function submit(
	workflow: Workflow,
	node: INode,
	data: IRunExecutionData,
	body: IDataObject,
): Promise<INodeExecutionData[][]> {
	const hooks = new ExecutionLifecycleHooks('webhook', EXECUTION, {} as never);
	const additionalData = additionalDataFor(credentials, hooks, EXECUTION);
	let status = 0;
	Object.assign(additionalData, {
		httpRequest: { method: 'POST', body, headers: {}, query: {}, params: {} },
		httpResponse: {
			status: (code: number) => (status = code),
			setHeader: () => {},
			end: () => {},
		},
	});
	const webhookData = {
		httpMethod: 'POST',
		node: REVIEW,
		path: '',
		webhookDescription: reviewWebhooks[1],
		workflowId: 'left-rows',
		workflowExecuteAdditionalData: additionalData,
	} as IWebhookData;
	const context = new WebhookContext(
		workflow,
		node,
		additionalData,
		'webhook',
		webhookData,
		[],
		data,
	);
	const response = await new DecisionService().webhook.call(context);
	expect(status).toBe(200);
	return response.workflowData ?? [];
}
