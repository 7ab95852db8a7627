/**
 * Issue 22 in real n8n, from the packed tarball: Decide with Close Call Gap and Max Decides per
 * Execution. Eight tickets, a budget of five, a gap of 1 (every answered run is a close call):
 * the first five are sent and charged, each answered one goes to Uncertain with its runner-up and
 * gap, the pending one stays on Pending Review; the last three are not sent, each named on the
 * error output, and nothing is charged for them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	NODE_TYPE,
	executeWorkflow,
	freePort,
	packTarball,
	prepareN8n,
	type N8nInstance,
	type WorkflowRun,
} from '../../harness/n8n-env';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { freshOutputsList } from '../../nodes/DecisionService/outputs/list';

jest.setTimeout(600_000);

/** Pro: human review sends the vague ticket to Pending Review. */
const KEY = DEMO_KEYS.pro;
const WORKFLOW_ID = 'dsCloseBudget1';
const NODE = 'Route with a budget';
const BUDGET = 5;
const TICKETS = [
	{ subject: 'Refund', body: 'I was charged twice on my invoice, please refund the payment.' },
	{ subject: 'Crash', body: 'The app crashes with an error every time I log in.' },
	{ subject: 'Quote', body: 'We want a quote and pricing for 200 seats, can we talk to sales?' },
	{ subject: 'hello', body: 'hello' },
	{ subject: 'Password', body: 'Please reset my password and change my account e-mail.' },
	{ subject: 'Refund again', body: 'Refund the duplicate invoice payment please.' },
	{ subject: 'Login', body: 'The app crashes at login since the update.' },
	{ subject: 'Seats', body: 'Pricing for more seats, please contact sales.' },
];
/** ticket-routing's outputs: four options, Uncertain, Pending Review, Other, then n8n's error output. */
const UNCERTAIN = 4;
const PENDING = 5;
const ERROR = 7;

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance;
let run: WorkflowRun;
let charged: number;

type Item = { json: Record<string, unknown>; pairedItem?: { item: number } };

beforeAll(async () => {
	sb = await startTestSandbox();
	const decision = await sb.client(KEY).getDecision('ticket-routing');
	work = mkdtempSync(join(tmpdir(), 'decision-service-close-budget-'));
	const workflows = join(work, 'workflows');
	mkdirSync(workflows);
	const workflow = {
		id: WORKFLOW_ID,
		name: 'Close calls and a budget',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'c1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'c2',
				name: 'Tickets',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [200, 0],
				parameters: { mode: 'raw', jsonOutput: JSON.stringify({ tickets: TICKETS }), options: {} },
			},
			{
				id: 'c3',
				name: 'One item each',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [400, 0],
				parameters: { fieldToSplitOut: 'tickets', options: {} },
			},
			{
				id: 'c4',
				name: NODE,
				type: NODE_TYPE,
				typeVersion: 1,
				position: [600, 0],
				onError: 'continueErrorOutput',
				parameters: {
					resource: 'decision',
					operation: 'decide',
					decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
					inputMode: 'json',
					jsonInput: '={{ $json }}',
					outputMode: 'routeToOutputs',
					routes: {
						mappingMode: 'defineBelow',
						value: {},
						matchingColumns: [],
						schema: freshOutputsList(decision),
					},
					options: { closeCallGap: 1, maxDecides: BUDGET },
				},
				credentials: { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Tickets', type: 'main', index: 0 }]] },
			Tickets: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
			'One item each': { main: [[{ node: NODE, type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
	writeFileSync(join(workflows, 'close-budget.json'), JSON.stringify(workflow));
	n8n = prepareN8n({
		userFolder: join(work, 'user'),
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflowsDir: workflows,
		port: await freePort(),
	});
	const before = (await sb.usage(KEY)).used;
	run = await executeWorkflow(n8n, WORKFLOW_ID);
	charged = (await sb.usage(KEY)).used - before;
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

const outputs = () => run.outputs[NODE] as unknown as Item[][];
const indexes = (items: Item[] | undefined) => (items ?? []).map((item) => item.pairedItem?.item);

describe('Close Call Gap and Max Decides per Execution in real n8n', () => {
	it('charges the budget and nothing more', () => {
		expect(run.error).toBeUndefined();
		expect(charged).toBe(BUDGET);
	});

	it('refuses the items beyond the budget, each named on the error output, none sent', () => {
		const refused = outputs()[ERROR];
		expect(indexes(refused)).toEqual([5, 6, 7]);
		for (const item of refused) {
			const error = item.json.error as Record<string, unknown>;
			expect(String(error.message)).toMatch(
				new RegExp(`^Not sent: Max Decides per Execution \\(${BUDGET}\\)`),
			);
			expect(error.may_have_been_charged).toBe(false);
		}
	});

	it('sends every answered run within the gap to Uncertain with its runner-up, the pending one stays pending', () => {
		const all = outputs();
		for (let option = 0; option < UNCERTAIN; option++) expect(all[option] ?? []).toEqual([]);
		expect(indexes(all[PENDING])).toEqual([3]);
		expect(indexes(all[UNCERTAIN])).toEqual([0, 1, 2, 4]);
		for (const item of all[UNCERTAIN]) {
			const answer = item.json.decision as Record<string, unknown>;
			expect(answer).toMatchObject({ status: 'ok', close_call: true });
			expect(['billing', 'technical', 'sales', 'account']).toContain(answer.runner_up);
			expect(answer.gap as number).toBeLessThanOrEqual(1);
		}
	});
});
