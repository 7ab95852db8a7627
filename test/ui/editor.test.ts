/**
 * The node in n8n's editor, in a real browser (Debian's chromium driven by playwright-core).
 *
 * Real n8n (the pinned version `npm run n8n:install` caches) with this package installed from its
 * packed tarball, the sandbox credential imported, and a fresh workflow created over the REST API:
 * Start → Tickets (five sample tickets) → One item each → Decide (the Decision Service node with
 * the credential and no decision yet). The test then works in the editor like a user:
 *
 *  1. signs in at /signin as the owner;
 *  1c. opens each shipped example: its Outputs list carries no "outdated" warning;
 *  1b. in a second workflow (a trigger and an AI Agent), finds the node as a new user does: the
 *     panel opened by the + after the trigger, searched for the words users type, then the panel's
 *     top-right +, then the agent's Tool slot (the tool variant); adds it from each;
 *  2. opens the workflow: the node shows only the fixed outputs (Uncertain, Pending Review, Other);
 *  3. opens the node, opens the Decision list (all three demo decisions), searches "ticket" and
 *     picks "Ticket routing (route)";
 *  4. sees the decision's context fields in the input form, the personal-data one labelled;
 *  5. switches Output to Single Output (the routed outputs stay, empty and marked ✕, the items leave
 *     on All Items) and back to Route to Outputs: the
 *     canvas shows one output per option, then Uncertain, Pending Review, Other;
 *  6. runs the nodes before from the input panel, drags subject and body from it onto their fields,
 *     types an expression for customer_email and plan; runs the workflow and reads the item counts
 *     n8n shows on each output of the node on the canvas;
 *  7. opens the node again: its output panel has one branch per output with the same counts, and
 *     each branch holds the expected ticket with the decision's answer.
 *
 * Screenshots of the meaningful steps go to a temporary folder (printed when a step fails), or to
 * docs/screenshots/ with UPDATE_SCREENSHOTS=1, so that `npm test` never rewrites tracked files.
 */
import type { Page } from 'playwright-core';
import {
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	NODE_TYPE,
	exampleWorkflows,
	freePort,
	signIn,
} from '../../harness/n8n-env';
import { FINISHED_STATUSES, waitForExecution } from '../../harness/n8n-executions';
import {
	Editor,
	UI_TIMEOUT,
	eventually,
	screenshot,
	startEditorRig,
	stepsOn,
	type EditorRig,
} from '../../harness/n8n-editor';
import { DEMO_KEYS } from '../../harness/sandbox';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';

jest.setTimeout(600_000);

const WORKFLOW_NAME = 'Decision Service editor test';
const NODE_NAME = 'Decide';
const ROUTE_OUTPUTS = TICKET_ROUTING_OUTPUTS;
/** One ticket per team, and a vague one that the Pro plan sends to human review. */
const TICKETS = [
	{
		subject: 'Charged twice',
		body: 'I was charged twice on my invoice for March, please refund the duplicate payment.',
		customer_email: 'ana@example.com',
		plan: 'pro',
	},
	{
		subject: 'App crashes on login',
		body: 'Since the last update the app crashes with an error every time I log in.',
		customer_email: 'li@example.com',
		plan: 'starter',
	},
	{
		subject: 'Pricing for 200 seats',
		body: 'We would like a quote and a demo for 200 seats, can we talk to sales?',
		customer_email: 'sam@example.org',
		plan: 'free',
	},
	{
		subject: 'Change my email',
		body: 'Please change the email address of my account and reset my password.',
		customer_email: 'jo@example.net',
		plan: 'pro',
	},
	{ subject: 'hello', body: 'hello', customer_email: 'kim@example.com', plan: 'free' },
];

let rig: EditorRig | undefined;
let page: Page;
let ui: Editor;
let workflowId: string;
let findWorkflowId: string;
/** The owner's session cookie, for reading what the editor saved over n8n's REST API. */
let cookie: string;
const { step, failed, fail } = stepsOn(() => page);

const FIND_WORKFLOW_NAME = 'Decision Service panel search test';
/** What a new user types in n8n's node panel to find the node (the README's words). */
const SEARCHES = [
	'decision',
	'Decision Service',
	'classify',
	'AI classify',
	'sort',
	'route',
	'score',
	'triage',
];

/**
 * The node's place among the panel's results for what a user typed. For the words of its own name
 * it is near the top (the first three). For the other words users type (its codex aliases: classify, route, score, sort…)
 * it is listed, and on the panel's first screen when n8n ranks it there: n8n 2.41.1's ranking of
 * alias matches against core nodes varies between runs of the same build (seen for "route": first,
 * and fourth under If, Switch and Filter; for "sort": first, and past the first screen), so only
 * being found is pinned for them.
 */
function expectNearTop(words: string, place: number, listed: string[]): void {
	const ownName = 'decision service'.includes(words.toLowerCase());
	const found = ownName ? place >= 1 && place <= 3 : place >= 1;
	expect({ words, found, listed: listed.slice(0, 6) }).toEqual({
		words,
		found: true,
		listed: listed.slice(0, 6),
	});
}

/** A workflow with a trigger and an AI Agent, where the test adds the node from n8n's panels. */
async function createFindWorkflow(url: string, cookie: string): Promise<string> {
	const response = await fetch(`${url}/rest/workflows`, {
		method: 'POST',
		headers: { cookie, 'browser-id': 'decision-service-setup', 'content-type': 'application/json' },
		body: JSON.stringify({
			name: FIND_WORKFLOW_NAME,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: 'find-start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'find-agent',
					name: 'AI Agent',
					type: '@n8n/n8n-nodes-langchain.agent',
					typeVersion: 1.7,
					position: [240, 320],
					parameters: {},
				},
			],
			connections: {},
		}),
	});
	if (!response.ok)
		throw new Error(`creating the workflow answered ${response.status}: ${await response.text()}`);
	const { data } = (await response.json()) as { data: { id: string } };
	return data.id;
}

async function createWorkflow(url: string): Promise<string> {
	cookie = await signIn(url);
	findWorkflowId = await createFindWorkflow(url, cookie);
	const response = await fetch(`${url}/rest/workflows`, {
		method: 'POST',
		// n8n checks that REST calls of a session come with the browser-id it signed in with.
		headers: { cookie, 'browser-id': 'decision-service-setup', 'content-type': 'application/json' },
		body: JSON.stringify({
			name: WORKFLOW_NAME,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: 'ui-start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'ui-tickets',
					name: 'Tickets',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					position: [220, 0],
					parameters: {
						mode: 'raw',
						jsonOutput: JSON.stringify({ tickets: TICKETS }, null, 2),
						options: {},
					},
				},
				{
					id: 'ui-split',
					name: 'One item each',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					position: [440, 0],
					parameters: { fieldToSplitOut: 'tickets', options: {} },
				},
				{
					id: 'ui-decide',
					name: NODE_NAME,
					type: NODE_TYPE,
					typeVersion: 1,
					position: [660, 0],
					parameters: { resource: 'decision', operation: 'decide' },
					credentials: { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				},
			],
			connections: {
				Start: { main: [[{ node: 'Tickets', type: 'main', index: 0 }]] },
				Tickets: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
				'One item each': { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] },
			},
		}),
	});
	if (!response.ok)
		throw new Error(`creating the workflow answered ${response.status}: ${await response.text()}`);
	const { data } = (await response.json()) as { data: { id: string } };
	return data.id;
}

beforeAll(async () => {
	try {
		await setUp();
	} catch (error) {
		fail();
		throw error;
	}
});

async function setUp(): Promise<void> {
	rig = await startEditorRig({ name: 'editor' });
	({ page, ui } = rig);
	workflowId = await createWorkflow(rig.n8n.url);
}

afterAll(async () => {
	await rig?.stop(failed() ? 'Editor test' : undefined);
});

describe('the Decision Service node in the n8n editor (real browser)', () => {
	step('signs in as the owner', async () => {
		await ui.signIn(rig!.n8n.url);
		// The owner's workflow list shows the workflow the test created as the owner.
		await page.getByText(WORKFLOW_NAME, { exact: true }).first().waitFor({ timeout: UI_TIMEOUT });
		expect(new URL(page.url()).pathname).not.toMatch(/signin|setup/);
	});

	step(
		'finds the node from the + after a node, under the words users type, and adds it',
		async () => {
			await page.goto(`${rig!.n8n.url}/workflow/${findWorkflowId}`);
			await ui.canvasNode('Start').waitFor({ timeout: UI_TIMEOUT });
			// The + at the end of the trigger's output: the usual way to add a step.
			await ui.canvasNode('Start').hover();
			await ui.outputHandles('Start').getByTestId('canvas-handle-plus').click();
			const creator = await ui.nodePanel();
			for (const words of SEARCHES) {
				expectNearTop(words, await ui.searchNodePanel(words, 'Decision Service'), ui.lastListed);
				expect(await creator.getByTestId('node-creator-no-results').count()).toBe(0);
			}
			await ui.searchNodePanel('decision', 'Decision Service');
			await ui.screenshot('00-find-the-node');
			await ui.pickInNodePanel('Decision Service');
			// Its actions, as n8n lists them for a node with operations: Decide first among them.
			const decide = creator.getByText('Decide on items', { exact: true }).first();
			await decide.waitFor({ timeout: UI_TIMEOUT });
			await decide.click();
			// Added after the trigger, opened, with the only credential of its type already chosen.
			await ui.ndv().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
			await eventually(
				() => ui.selectedOption(ui.ndv().getByTestId('node-credentials-select')),
				(value) => expect(value).toBe(CREDENTIAL_NAME),
			);
			await ui.closeNode();
			// n8n names a node added from an action after the action.
			await ui.canvasNode('Decide on items').waitFor({ timeout: UI_TIMEOUT });
		},
	);

	step("finds it from the panel's top-right + too", async () => {
		await page
			.getByTestId('node-creator-plus-button')
			.or(page.getByTestId('canvas-plus-button'))
			.first()
			.click();
		const creator = await ui.nodePanel();
		// Sub-nodes are listed here too ("OpenRouter Chat Model" has "route" in its name).
		for (const words of SEARCHES)
			expectNearTop(words, await ui.searchNodePanel(words, 'Decision Service'), ui.lastListed);
		await page.keyboard.press('Escape');
		await creator.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
	});

	step("finds the tool variant from an AI Agent's Tool slot", async () => {
		await ui.canvasNode('AI Agent').hover();
		// The agent's input handles for sub-nodes carry a + each; the Tool one is labelled "Tool".
		const toolHandle = page
			.locator('[data-test-id="canvas-node-input-handle"][data-node-name="AI Agent"]')
			.filter({ hasText: 'Tool' })
			.first();
		await toolHandle.getByTestId('canvas-handle-plus').click();
		await ui.nodePanel();
		await ui.searchNodePanel('decision', 'Decision Service Tool');
		await ui.pickInNodePanel('Decision Service Tool');
		await ui.ndv().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
		// Pre-set for an agent: the model writes the text, nothing to fill in but the decision.
		await eventually(
			() => ui.selectedOption(ui.ndv().getByTestId('parameter-input-inputMode')),
			(value) => expect(value).toBe('Text'),
		);
		expect(await ui.ndv().getByTestId('parameter-input-text').innerText()).toMatch(/\$fromAI/);
		await ui.closeNode();
		// A fourth node on the canvas: the tool, attached to the agent.
		await eventually(
			() => page.getByTestId('canvas-node').count(),
			(count) => expect(count).toBe(4),
		);
		await ui.screenshot('00-tool-added');
		// Saved, so leaving for the next workflow asks nothing.
		const saved = page.waitForResponse(
			(response) =>
				response.url().includes(`/rest/workflows/${findWorkflowId}`) &&
				response.request().method() === 'PATCH',
		);
		await page.keyboard.press('Control+s');
		expect((await saved).status()).toBe(200);
	});

	step('opens each shipped example with no "outdated" warning on its Outputs list', async () => {
		for (const example of exampleWorkflows()) {
			const decide = example.nodes.find(
				(node) =>
					node.type === NODE_TYPE &&
					(node.parameters.operation ?? 'decide') === 'decide' &&
					(node.parameters.outputMode ?? 'routeToOutputs') === 'routeToOutputs',
			);
			if (!decide) continue;
			await page.goto(`${rig!.n8n.url}/workflow/${example.id}`);
			await ui.openNode(decide.name);
			// The list loaded from the decision, its rows shown…
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toContain('Uncertain'),
			);
			// …and no stale-data triangle ("Outputs are outdated. Refresh to see the changes").
			expect(await ui.ndv().locator('[class*="staleDataWarning"]').count()).toBe(0);
			await ui.closeNode();
		}
	});

	step(
		'opens the workflow: the node has only the fixed outputs before a decision is picked',
		async () => {
			await page.goto(`${rig!.n8n.url}/workflow/${workflowId}`);
			await ui.canvasNode(NODE_NAME).waitFor({ timeout: UI_TIMEOUT });
			const names: Array<string | null> = [];
			for (const node of await page.getByTestId('canvas-node').all())
				names.push(await node.getAttribute('data-node-name'));
			expect(names).toEqual(
				expect.arrayContaining(['Start', 'Tickets', 'One item each', NODE_NAME]),
			);
			await eventually(
				() => ui.outputsOnCanvas(NODE_NAME),
				(outputs) =>
					expect(outputs.map((output) => output.label)).toEqual([
						'Uncertain',
						'Pending Review',
						'Other',
					]),
			);
		},
	);

	step('searches the Decision list and picks ticket-routing', async () => {
		await ui.openNode(NODE_NAME);
		// Nothing red before the user did anything, and one thing to do: a single notice.
		const parameters = ui.ndv().getByTestId('node-parameters');
		await eventually(
			() => parameters.innerText(),
			(text) => {
				expect(text).toContain(
					'Pick a decision above: its context fields and its outputs appear here.',
				);
				expect(text.match(/Pick a decision/g)).toHaveLength(1);
				// The outputs notice waits for a decision.
				expect(text).not.toContain('No wire ever moves');
			},
		);
		expect(await ui.ndv().getByTestId('empty-fields-notice').count()).toBe(0);
		// Only what applies before a pick: no Input, Context Fields or Output yet.
		for (const parameter of ['inputMode', 'outputMode'])
			expect({
				parameter,
				shown: await ui.ndv().getByTestId(`parameter-input-${parameter}`).count(),
			}).toEqual({ parameter, shown: 0 });
		await ui.screenshot('00-before-a-decision-is-picked');
		// The credential of the sandbox is attached to the node.
		await eventually(
			() => ui.selectedOption(ui.ndv().getByTestId('node-credentials-select')),
			(value) => expect(value).toBe(CREDENTIAL_NAME),
		);

		await ui.widenParameters(200);
		const locator = ui.ndv().getByTestId('resource-locator-decision');
		await locator.getByTestId('rlc-input-container').click();
		const items = page.getByTestId('rlc-item');
		// Opened: the account's three demo decisions, loaded from the sandbox by searchDecisions.
		await eventually(
			() => items.allInnerTexts(),
			(texts) =>
				expect(texts.map((text) => text.trim()).sort()).toEqual([
					'Content labels (classify)',
					'Lead scoring (score)',
					'Ticket routing (route)',
				]),
		);
		await page.getByTestId('rlc-search').fill('ticket');
		// The search goes to the node's list method: only the matching decision stays.
		await eventually(
			() => items.allInnerTexts(),
			(texts) => expect(texts.map((text) => text.trim())).toEqual(['Ticket routing (route)']),
		);
		await ui.screenshot('01-decision-picker');

		await items.filter({ hasText: 'Ticket routing (route)' }).click();
		await eventually(
			() => locator.getByTestId('rlc-input').inputValue(),
			(value) => expect(value).toBe('Ticket routing (route)'),
		);
	});

	step(
		"shows the decision's context fields in the input form, the personal-data one labelled",
		async () => {
			// Map Automatically first: its notice names what it reads from each item.
			await eventually(
				() => ui.ndv().getByTestId('empty-fields-notice').innerText(),
				(text) =>
					expect(text).toBe(
						'Fields read from each item: "subject", "body", "customer_email" and "plan"; an item without "subject" or "body" fails.',
					),
			);
			await ui.ndv().getByTestId('empty-fields-notice').scrollIntoViewIfNeeded();
			// n8n adds its own notice under it (issue 45): apart on screen, and ours never restates
			// n8n's rule ("named the same as the fields"), it names the fields.
			const ours = ui.ndv().getByTestId('empty-fields-notice');
			const n8ns = ui.ndv().getByText(/make sure the incoming data fields are named the same/);
			const [a, b] = [await ours.boundingBox(), await n8ns.first().boundingBox()];
			expect(a && b).toBeTruthy();
			const apart = a!.y + a!.height <= b!.y || b!.y + b!.height <= a!.y;
			expect({ apart, ours: a, n8ns: b }).toEqual({ apart: true, ours: a, n8ns: b });
			expect(await ours.innerText()).not.toMatch(/named|by these names|make sure/i);
			await ui.screenshot('02-map-automatically');
			// The form of each field: n8n's other mode.
			await ui.ndv().getByTestId('mapping-mode-select').click();
			await page.getByRole('option', { name: /^Map Each Column Manually/ }).click();
			const inputFields = ui.ndv().getByTestId('mapping-fields-container').first();
			const labels = async () =>
				(await inputFields.locator('label[for^="value["]').allInnerTexts()).map((text) =>
					text.split('\n')[0].trim(),
				);
			await eventually(labels, (texts) =>
				expect(texts).toEqual(['subject', 'body', 'customer_email (personal data)', 'plan']),
			);
			for (const field of ['subject', 'body', 'customer_email', 'plan']) {
				expect(await inputFields.getByTestId(`parameter-input-${field}`).isVisible()).toBe(true);
			}
			await inputFields.scrollIntoViewIfNeeded();
			await ui.screenshot('02-input-fields');
		},
	);

	step(
		'routes to one output per option on the canvas (switching Output back and forth)',
		async () => {
			// The choice says what it does to the wired outputs before it is made.
			await ui.ndv().getByTestId('parameter-input-outputMode').click();
			await eventually(
				() => page.getByRole('option', { name: /^Single Output/ }).innerText(),
				(text) => expect(text).toMatch(/outputs you wired stay in place, empty and marked ✕/),
			);
			await screenshot(page, '03-output-option-warns');
			await page.keyboard.press('Escape');
			await ui.chooseOption('outputMode', 'Single Output');
			// The loaded list's outputs stay in place, empty and marked; the items leave on All Items.
			await eventually(
				() => ui.outputsOnCanvas(NODE_NAME),
				(outputs) =>
					expect(outputs.map((output) => output.label)).toEqual([
						...ROUTE_OUTPUTS.map((name) => `✕ ${name}`),
						'Error (kept in place)',
						'All Items',
					]),
			);

			await ui.chooseOption('outputMode', 'Route to Outputs');
			// The Outputs list is loaded from the decision: one row per output, each can be renamed;
			// each box holds the output's name (an empty box looked like a required field).
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual(ROUTE_OUTPUTS),
			);
			const outputsList = ui.ndv().getByTestId('mapping-fields-container').last();
			await eventually(
				() =>
					outputsList
						.locator('input[type="text"], textarea')
						.evaluateAll((boxes) =>
							boxes.map((box) => (box as unknown as { value: string }).value),
						),
				(values) => expect(values).toEqual(ROUTE_OUTPUTS),
			);
			// Now that there is a decision, the outputs notice says how items go and that no wire moves.
			expect(await ui.ndv().getByTestId('node-parameters').innerText()).toContain(
				'No wire ever moves',
			);
			await ui.closeNode();
			await eventually(
				() => ui.outputsOnCanvas(NODE_NAME),
				(outputs) => expect(outputs.map((output) => output.label)).toEqual(ROUTE_OUTPUTS),
			);
			for (const label of ROUTE_OUTPUTS) {
				expect(
					await ui.outputHandles(NODE_NAME).filter({ hasText: label }).first().isVisible(),
				).toBe(true);
			}
			await page.getByTestId('zoom-to-fit').click();
			await ui.screenshot('03-outputs-on-canvas');
		},
	);

	step(
		'maps the fields as a user does: drags subject and body from the input panel, types expressions for the others',
		async () => {
			await ui.openNode(NODE_NAME);
			// The input panel is empty until the nodes before run: its button runs them.
			const input = ui.ndv().getByTestId('ndv-input-panel');
			await input.getByRole('button', { name: /Execute previous nodes/i }).click();
			const schemaItem = (name: string) =>
				input
					.getByTestId('run-data-schema-item')
					.locator('span')
					.filter({ hasText: new RegExp(`^${name}$`) })
					.first();
			await schemaItem('subject').waitFor({ timeout: UI_TIMEOUT });
			const fields = ui.ndv().getByTestId('mapping-fields-container').first();
			for (const name of ['subject', 'body']) {
				await ui.drag(schemaItem(name), fields.getByTestId(`parameter-input-${name}`));
				await eventually(
					() => fields.getByTestId(`parameter-input-${name}`).innerText(),
					(text) => expect(text).toContain(`{{ $json.${name} }}`),
				);
			}
			for (const name of ['customer_email', 'plan']) {
				// As typed: n8n's editor closes the braces itself.
				await ui.typeExpression(fields, name, `{{$json.${name}`);
				await eventually(
					() => fields.getByTestId(`parameter-input-${name}`).innerText(),
					(text) => expect(text).toMatch(new RegExp(`\\{\\{\\s*\\$json\\.${name}\\s*\\}\\}`)),
				);
			}
			await ui.screenshot('02-fields-mapped');
			await ui.closeNode();
		},
	);

	step(
		'runs the workflow: each ticket arrives on the output of its team, the vague one on Pending Review',
		async () => {
			await page.getByTestId('execute-workflow-button').click();
			const succeeded = ui.canvasNode(NODE_NAME).getByTestId('canvas-node-status-success');
			const error = page
				.locator('.el-notification--error, [data-test-id="canvas-node-status-error"]')
				.first();
			await succeeded.or(error).first().waitFor({ timeout: 90_000 });
			if (await error.isVisible())
				throw new Error(`the run failed in the editor: ${await error.innerText()}`);

			await eventually(
				() => ui.outputsOnCanvas(NODE_NAME),
				(outputs) =>
					expect(outputs).toEqual([
						{ label: 'billing', items: '1 item' },
						{ label: 'technical', items: '1 item' },
						{ label: 'sales', items: '1 item' },
						{ label: 'account', items: '1 item' },
						{ label: 'Uncertain' },
						{ label: 'Pending Review', items: '1 item' },
						{ label: 'Other' },
					]),
				30_000,
			);
			// The five tickets reached the node.
			expect(await page.getByTestId('edge-label').allInnerTexts()).toContain('5 items');
			await ui.screenshot('04-run-result');
		},
	);

	step("shows the routed tickets on the node's output branches", async () => {
		await ui.openNode(NODE_NAME);
		const output = ui.ndv().getByTestId('output-panel');
		const branches = [
			'Billing Branch (1 item)',
			'Technical Branch (1 item)',
			'Sales Branch (1 item)',
			'Account Branch (1 item)',
			'Uncertain Branch',
			'Pending Review Branch (1 item)',
			'Other Branch',
		];
		await eventually(
			async () => {
				const texts: string[] = [];
				for (let index = 0; index < branches.length + 1; index++) {
					const tab = output.getByTestId(`tab-${index}`);
					if (await tab.count()) texts.push((await tab.innerText()).trim());
				}
				return texts;
			},
			(texts) => expect(texts).toEqual(branches),
		);
		const subjects = {
			0: 'Charged twice',
			1: 'App crashes on login',
			2: 'Pricing for 200 seats',
			3: 'Change my email',
			5: 'hello',
		} as const;
		const data = output.getByTestId('ndv-data-container');
		for (const [index, subject] of Object.entries(subjects)) {
			await output.getByTestId(`tab-${index}`).click();
			await eventually(
				() => data.innerText(),
				(text) => {
					expect(text).toContain(subject);
					for (const other of Object.values(subjects))
						if (other !== subject) expect(text).not.toContain(other);
					// The routed item carries the decision's answer.
					expect(text).toMatch(
						index === '5'
							? /status\s*:\s*pending\b/
							: new RegExp(`choice\\s*:\\s*${ROUTE_OUTPUTS[Number(index)]}`),
					);
				},
			);
			if (index === '0') await ui.screenshot('05-run-output-billing');
		}
	});

	step(
		'shows "Decide: ticket-routing" under the node, and a refresh after an option was added on the service keeps every output in place',
		async () => {
			await ui.closeNode();
			await eventually(
				() => ui.canvasNode(NODE_NAME).innerText(),
				(text) => expect(text).toContain('Decide: ticket-routing'),
			);
			await rig!.sandbox.control('POST', '/decisions/ticket-routing/versions', {
				key: DEMO_KEYS.pro,
				options: [
					{
						key: 'legal',
						description: 'Legal matters: contracts, GDPR, lawyers, terms, legal notices.',
					},
					'billing',
					'technical',
					'sales',
					'account',
				],
			});
			await ui.openNode(NODE_NAME);
			// The editor's own refresh: the Outputs list's options menu, "Refresh Output List".
			const outputsList = ui.ndv().getByTestId('mapping-fields-container').last();
			await outputsList.hover();
			await outputsList.getByTestId('action-toggle').first().click();
			await page.getByText('Refresh Output List', { exact: true }).click();
			const refreshed = [...ROUTE_OUTPUTS, 'Error (kept in place)', 'legal'];
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual(refreshed),
			);
			await ui.closeNode();
			await eventually(
				() => ui.outputsOnCanvas(NODE_NAME),
				(outputs) => expect(outputs.map((output) => output.label)).toEqual(refreshed),
			);
			await page.getByTestId('zoom-to-fit').click();
			await ui.screenshot('06-outputs-after-refresh');
		},
	);

	step('an item whose field is mapped to nothing says where to map what', async () => {
		await ui.openNode(NODE_NAME);
		const fields = ui.ndv().getByTestId('mapping-fields-container').first();
		// A typo a user makes: a field the items do not have.
		const output = ui.ndv().getByTestId('output-panel');
		// n8n 2.41.1's editor sometimes runs the step with the field's previous expression when the
		// run follows the typing at once (the mapper's value reaches the workflow late): type and run
		// again, at most three times, until the run stored by n8n shows the node refused the items.
		// What is asserted is the message the node gives.
		const session = { url: rig!.n8n.url, cookie };
		let refusedInRun = false;
		for (let attempt = 1; attempt <= 3 && !refusedInRun; attempt++) {
			await ui.typeExpression(fields, 'subject', '{{$json.title');
			const started = page.waitForResponse(
				(response) =>
					response.request().method() === 'POST' &&
					/\/rest\/workflows\/[^/]+\/run/.test(response.url()),
			);
			await ui.ndv().getByTestId('node-execute-button').click();
			const { data } = (await (await started).json()) as { data: { executionId: string } };
			const run = await waitForExecution(session, data.executionId, FINISHED_STATUSES);
			refusedInRun = run.runData[NODE_NAME]?.at(-1)?.error !== undefined;
		}
		expect(refusedInRun).toBe(true);
		await eventually(
			() => output.innerText(),
			(text) => {
				expect(text).toContain('Field "subject" is required');
				expect(text).toContain(
					'Under Context Fields, map a text value to "subject", e.g. {{ $json.subject }}.',
				);
				expect(text).not.toMatch(/Item 0:/);
			},
		);
		await ui.screenshot('07-mapping-mistake');
		await ui.typeExpression(fields, 'subject', '{{$json.subject');
		await ui.closeNode();
	});

	/** The output each of a node's wires leaves from, as the editor saved the workflow. */
	async function savedWires(id: string, node: string): Promise<string[]> {
		const response = await fetch(`${rig!.n8n.url}/rest/workflows/${id}`, {
			headers: { cookie, 'browser-id': 'decision-service-setup' },
		});
		const { data } = (await response.json()) as {
			data: { connections: Record<string, { main: Array<Array<{ node: string }> | null> }> };
		};
		return data.connections[node].main.map((targets) =>
			(targets ?? []).map((target) => target.node).join(', '),
		);
	}

	async function save(id: string): Promise<void> {
		const saved = page.waitForResponse(
			(response) =>
				response.url().includes(`/rest/workflows/${id}`) && response.request().method() === 'PATCH',
		);
		await page.keyboard.press('Control+s');
		expect((await saved).status()).toBe(200);
	}

	const EXAMPLE = { id: 'dsExTicketRoute1', node: 'Route ticket' };

	step(
		'deleting a row of the Outputs list moves no wire: its output stays, empty and marked',
		async () => {
			await page.goto(`${rig!.n8n.url}/workflow/${EXAMPLE.id}`);
			await ui.canvasNode(EXAMPLE.node).waitFor({ timeout: UI_TIMEOUT });
			const before = await savedWires(EXAMPLE.id, EXAMPLE.node);
			expect(before.slice(0, 4)).toEqual([
				'Billing team',
				'Technical support',
				'Sales team',
				'Account management',
			]);
			await ui.openNode(EXAMPLE.node);
			const outputsList = ui.ndv().getByTestId('mapping-fields-container').last();
			await outputsList.getByTestId('remove-field-button-technical').click();
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).not.toContain('technical'),
			);
			await ui.closeNode();
			await eventually(
				() => ui.outputsOnCanvas(EXAMPLE.node),
				(outputs) =>
					expect(outputs.map((output) => output.label).slice(0, 4)).toEqual([
						'billing',
						'✕ technical',
						'sales',
						'account',
					]),
			);
			await save(EXAMPLE.id);
			// Every wire leaves from the output it left from before: account's is still on account.
			expect(await savedWires(EXAMPLE.id, EXAMPLE.node)).toEqual(before);
			await ui.frameNodes([EXAMPLE.node]);
			await ui.screenshot('08-output-row-deleted');
			// n8n's "Add output to send" brings the row back, in its place, and its output's name.
			await ui.openNode(EXAMPLE.node);
			await outputsList.getByTestId('add-fields-select').getByText('Add output to send').click();
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows.slice(0, 4)).toEqual(['billing', 'technical', 'sales', 'account']),
			);
			await ui.closeNode();
			await eventually(
				() => ui.outputsOnCanvas(EXAMPLE.node),
				(outputs) =>
					expect(outputs.map((output) => output.label).slice(0, 4)).toEqual([
						'billing',
						'technical',
						'sales',
						'account',
					]),
			);
			await save(EXAMPLE.id);
			expect(await savedWires(EXAMPLE.id, EXAMPLE.node)).toEqual(before);
		},
	);

	step(
		"a second credential created from the node's Credential list keeps the node's set-up",
		async () => {
			await ui.keepDialogs();
			const canvasBefore = await ui.outputsOnCanvas(EXAMPLE.node);
			await ui.openNode(EXAMPLE.node);
			const rowsBefore = await ui.outputRows();
			const locator = ui.ndv().getByTestId('resource-locator-decision');
			expect(await locator.getByTestId('rlc-input').inputValue()).toBe('Ticket routing (route)');
			await ui.ndv().getByTestId('node-credentials-select').click();
			await page.getByText('Create new credential', { exact: true }).click();
			const modal = page.getByTestId('editCredential-modal');
			await modal.getByTestId('parameter-input-apiKey').locator('input').fill(DEMO_KEYS.starter);
			await modal
				.getByTestId('parameter-input-baseUrl')
				.locator('input')
				.fill(rig!.sandbox.baseUrl);
			// Saved and tested, n8n closes the modal itself and gives the node the new credential.
			await modal.getByTestId('credential-save-button').click();
			await modal.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
			// The new credential is the node's; the decision, the mapped fields and the list stay.
			await eventually(
				() => ui.selectedOption(ui.ndv().getByTestId('node-credentials-select')),
				(value) => expect(value).not.toBe(CREDENTIAL_NAME),
			);
			expect(await locator.getByTestId('rlc-input').inputValue()).toBe('Ticket routing (route)');
			const fields = ui.ndv().getByTestId('mapping-fields-container').first();
			expect(await fields.getByTestId('parameter-input-subject').innerText()).toContain(
				'{{ $json.subject }}',
			);
			expect(await ui.outputRows()).toEqual(rowsBefore);
			await ui.closeNode();
			expect(await ui.outputsOnCanvas(EXAMPLE.node)).toEqual(canvasBefore);
		},
	);

	step(
		"the credential's Test fails on a web page and says ECONNREFUSED where nothing listens",
		async () => {
			await ui.openNode(EXAMPLE.node);
			// The credential just created: its pencil opens it.
			await ui.ndv().getByTestId('credential-edit-button').click();
			const modal = page.getByTestId('editCredential-modal');
			const baseUrl = modal.getByTestId('parameter-input-baseUrl').locator('input');
			const testOn = async (url: string, message: string) => {
				await baseUrl.fill(url);
				const tested = page.waitForResponse(
					(response) =>
						response.request().method() === 'POST' &&
						response.url().includes('/rest/credentials/test'),
				);
				await modal.getByTestId('credential-save-button').click();
				await tested;
				// n8n shows a short message whole and folds a long one behind "More details".
				await eventually(
					() => modal.innerText(),
					(text) => expect(text).toContain('Couldn’t connect with these settings'),
				);
				const details = modal.getByText('More details');
				if (await details.isVisible()) await details.click();
				await eventually(
					() => modal.innerText(),
					(text) => expect(text).toContain(message),
				);
			};
			// n8n's own editor page answers 200 at every path: not the API.
			await testOn(
				`${rig!.n8n.url}/v1`,
				'Something answered at this Base URL, but not the Decision Service API',
			);
			await ui.screenshot('09-credential-test-web-page');
			// The Base URL's hint says what n8n's bare code means.
			expect(await modal.innerText()).toContain(
				'If the Test says ECONNREFUSED, nothing answers at that host and port',
			);
			// A port where nothing listens.
			await testOn(`http://127.0.0.1:${await freePort()}/v1`, 'ECONNREFUSED');
			await modal.locator('.el-dialog__headerbtn').first().click();
			await ui.closeNode();
		},
	);
});
