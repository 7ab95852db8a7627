/**
 * The harness of the review tests, proven on n8n's own Wait node (resume on a webhook call) in a
 * started n8n: the ticket-routing example triggered through a webhook, its doubtful outputs to a
 * Set node that writes `$execution.resumeUrl` into a message and to the Wait node. The execution
 * is found through the REST API, waits, its link is read from the run data (flatted), a browser's
 * form post resumes it, and every item is found where it went; n8n refuses the link without its
 * signature, with another signature, and once the execution has finished.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	freePort,
	outputNamesOf,
	packTarball,
	prepareN8n,
	startN8n,
	type N8nInstance,
} from '../../harness/n8n-env';
import {
	ownerSession,
	publishWorkflows,
	readExample,
	readExecution,
	triggerWebhook,
	waitForExecution,
	withWebhookTrigger,
	writeWorkflows,
	type Execution,
	type OwnerSession,
	type WorkflowJson,
} from '../../harness/n8n-executions';
import { n8nMajor } from '../../harness/n8n-install';
import { formBody, parseForm, submitForm, waitingLinkIn } from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';

jest.setTimeout(600_000);

const WORKFLOW_ID = 'dsWaitHarness1';
const WEBHOOK_PATH = 'decision-service-wait-harness';
const ROUTE = 'Route ticket';
const MESSAGE = 'Message for reviewers';
const WAIT = 'Wait for a person';
const AFTER = 'After the wait';
/** Pro: a vague ticket goes to Pending Review (human review). */
const KEY = DEMO_KEYS.pro;

const TICKETS = [
	{
		subject: 'Charged twice',
		body: 'I was charged twice on my invoice for March, please refund the duplicate payment.',
	},
	{ subject: 'Upload fails', body: 'The upload fails' },
	{ subject: 'hello', body: 'hello' },
	{ subject: 'Invoice and crash', body: 'My invoice is wrong and the app crashes' },
].map((ticket, index) => ({ ...ticket, email: `customer-${index}@example.com`, plan: 'pro' }));

/** The example with a webhook, and its doubtful outputs to a message and to n8n's Wait node. */
function harnessWorkflow(): WorkflowJson {
	const workflow = withWebhookTrigger(readExample('ticket-routing.json'), {
		id: WORKFLOW_ID,
		name: 'Harness: wait for a person (Wait node)',
		path: WEBHOOK_PATH,
	});
	const route = workflow.nodes.find((node) => node.name === ROUTE)!;
	const names = outputNamesOf(route.parameters);
	const doubtful = ['Uncertain', 'Pending Review', 'Other'].map((name) => names.indexOf(name));
	const main = workflow.connections[ROUTE].main.map((targets, index) =>
		doubtful.includes(index)
			? [
					{ node: MESSAGE, type: 'main', index: 0 },
					{ node: WAIT, type: 'main', index: 0 },
				]
			: targets,
	);
	return {
		...workflow,
		nodes: [
			...workflow.nodes,
			{
				id: '5a0c2f4e-1111-4c2b-9d3e-7f6a5b4c3d21',
				name: MESSAGE,
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [1000, -200],
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{
								id: 'b1d2c3e4-0000-4a5b-8c7d-1e2f3a4b5c6d',
								name: 'text',
								type: 'string',
								value: '=Please review {{ $json.subject }}: {{ $execution.resumeUrl }}',
							},
						],
					},
					options: {},
				},
			},
			{
				id: '5a0c2f4e-2222-4c2b-9d3e-7f6a5b4c3d21',
				name: WAIT,
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				position: [1000, 1200],
				webhookId: '7c3e1d2a-3333-4b5c-8d9e-0f1a2b3c4d5e',
				parameters: {
					resume: 'webhook',
					httpMethod: 'POST',
					responseMode: 'onReceived',
					limitWaitTime: true,
					limitType: 'afterTimeInterval',
					resumeAmount: 1,
					resumeUnit: 'hours',
					options: {},
				},
			},
			{
				id: '5a0c2f4e-3333-4c2b-9d3e-7f6a5b4c3d21',
				name: AFTER,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [1250, 1200],
				parameters: {},
			},
		] as WorkflowJson['nodes'],
		connections: {
			...workflow.connections,
			[ROUTE]: { main },
			[WAIT]: { main: [[{ node: AFTER, type: 'main', index: 0 }]] },
		},
	};
}

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance;
let session: OwnerSession;
let executionId: string;
let waiting: Execution;
let link: string;
let finished: Execution;
const refused: Record<string, number> = {};
let resumeStatus: number;
let again: number;

beforeAll(async () => {
	sb = await startTestSandbox();
	work = mkdtempSync(join(tmpdir(), 'decision-service-wait-harness-'));
	const prepared = prepareN8n({
		userFolder: join(work, 'user'),
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflowsDir: writeWorkflows(join(work, 'workflows'), [harnessWorkflow()]),
		port: await freePort(),
	});
	publishWorkflows(prepared, [WORKFLOW_ID]);
	n8n = await startN8n(prepared);
	session = await ownerSession(n8n.url);
	executionId = await triggerWebhook(session, WORKFLOW_ID, WEBHOOK_PATH, { tickets: TICKETS });
	waiting = await waitForExecution(session, executionId, ['waiting']);
	link = waitingLinkIn(waiting, MESSAGE);

	// Links a person could guess: no signature, a wrong one. The Wait node resumes on any
	// POST that n8n lets through, so these go first and must change nothing.
	const url = new URL(link);
	const bare = `${url.origin}${url.pathname}`;
	const wrong = new URL(link);
	wrong.searchParams.set('signature', 'x'.repeat(url.searchParams.get('signature')?.length ?? 8));
	for (const [name, target] of [
		['no signature', bare],
		['a wrong signature', wrong.toString()],
	]) {
		const response = await fetch(target, { method: 'POST', body: new URLSearchParams() });
		refused[name] = response.status;
	}
	// The form a page would hold: one radio group, one note; submitted as a browser does.
	const form = parseForm(
		'<form method="post"><input type="radio" name="pick" value="later" checked>' +
			'<input type="radio" name="pick" value="billing"><textarea name="note">\n</textarea>' +
			'<button type="submit">Send</button></form>',
	);
	form.controls[1].checked = true;
	form.controls[0].checked = false;
	resumeStatus = (await submitForm(link, form)).status;
	finished = await waitForExecution(session, executionId, ['success']);
	again = (await submitForm(link, form)).status;
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

describe('the review harness on n8n’s Wait node', () => {
	it('finds the execution, sees it wait, and reads its link from the run data', () => {
		expect(waiting.status).toBe('waiting');
		expect(waiting.lastNodeExecuted).toBe(WAIT);
		const signature = n8nMajor(n8n.version) >= 2 ? '\\?signature=[^&\\s]+' : '';
		expect(link).toMatch(
			new RegExp(`^${n8n.url.replace(/\./g, '\\.')}/webhook-waiting/${executionId}${signature}$`),
		);
	});

	it('n8n refuses the link without its signature or with a wrong one', () => {
		expect(refused).toEqual({ 'no signature': 401, 'a wrong signature': 401 });
	});

	it('resumes on the form post, and every item is found where it went', async () => {
		expect(resumeStatus).toBe(200);
		expect(finished.status).toBe('success');
		const names = outputNamesOf(harnessWorkflow().nodes.find((n) => n.name === ROUTE)!.parameters);
		const route = Object.fromEntries(
			names.map((name, index) => [name, finished.outputs[ROUTE][index] ?? []]),
		);
		const subjects = (items: Execution['outputs'][string][number]) =>
			items.map((item) => item.json.subject);
		expect(subjects(route.billing)).toEqual(['Charged twice']);
		expect(subjects(route.technical)).toEqual(['Upload fails']);
		expect(subjects(route['Pending Review'])).toEqual(['hello', 'Invoice and crash']);
		expect(finished.outputs[MESSAGE][0].map((item) => item.json.text)).toEqual([
			`Please review hello: ${link}`,
			`Please review Invoice and crash: ${link}`,
		]);
		// Resumed by the form post: n8n's Wait node passes on the request, with the form's fields.
		expect(finished.runData[WAIT]).toHaveLength(1);
		expect(finished.outputs[AFTER][0].map((item) => item.json.body)).toEqual([
			{ pick: 'billing', note: '' },
		]);
		expect(subjects(finished.outputs['Billing team'][0])).toEqual(['Charged twice']);
		expect(finished.raw).not.toContain(KEY);
		const reread = await readExecution(session, executionId);
		expect(reread.status).toBe('success');
	});

	it('refuses the link once the execution has finished', () => {
		expect(again).toBe(409);
	});

	it('serialises a form as a browser does', () => {
		const form = parseForm(
			`<form method="post"><input type="hidden" name="a" value="1&amp;2">` +
				`<input type="radio" name="r" value="x"><input type="radio" name="r" value="y" checked>` +
				`<input type="checkbox" name="c" value="p" checked><input type="checkbox" name="c" value="q">` +
				`<input type="checkbox" name="d"><input name="t" value="typed" disabled>` +
				`<textarea name="n">\nline one\nline two</textarea>` +
				`<select name="s"><option value="1">one</option><option selected>two</option></select>` +
				`<button name="go" value="send">Send</button><button name="no" value="x">No</button></form>`,
		);
		expect(formBody(form).toString()).toBe(
			'a=1%262&r=y&c=p&n=line+one%0D%0Aline+two&s=two&go=send',
		);
	});
});
