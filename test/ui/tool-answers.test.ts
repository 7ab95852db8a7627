/**
 * The tool variant's Answers list follows its decision in n8n's editor, in a real browser (Debian's
 * chromium driven by playwright-core), as Decide's Outputs list does.
 *
 * Real n8n (the pinned 2.x) with this package installed from its packed tarball and the sandbox
 * credential, and a workflow created over the REST API: a trigger, an AI Agent and the Decision
 * Service Tool on the agent's Tool slot, with no decision yet. In the editor the owner:
 *
 *  1. opens the tool and picks "Ticket routing": the Answers list shows the teams at once, in the
 *     open panel (before: only once the panel was closed and opened again), each name in a box
 *     that cannot be typed in;
 *  2. switches the decision to "Lead scoring" and opens the panel again: the list shows its
 *     levels, with no stale-data warning (before the fix it kept the teams, marked "outdated");
 *  3. saves: the workflow's `routes` holds lead-scoring's list, and the description the agent
 *     reads (toolDescriptionOf on the saved parameters) names the levels, not the teams.
 *
 * Why the panel is opened again after a switch: n8n 2.41's editor reloads a resource mapper when a
 * field it depends on changes only if every parameter of the node resolves, and the tool's Text
 * (`$fromAI(…)`) throws "No execution data available" until the agent has run. The first pick
 * works in the open panel because the list is hidden until a decision is picked and loads when it
 * appears; after a switch the list follows its decision when the panel opens
 * (`refreshStaleSchemaOnOpen`), not while it is open.
 *
 * n8n draws a delete icon on each row of a resource mapper unless the row is a matching column or
 * a mandatory one in "add" mode (MappingFields.vue); neither fits a list of answers (docs/ai-tool.md).
 *
 * Screenshots: tool-answers-after-pick, tool-answers (docs/screenshots/ with UPDATE_SCREENSHOTS=1,
 * harness/n8n-editor.ts).
 */
import type { INodeParameters } from 'n8n-workflow';
import type { Page } from 'playwright-core';
import { CREDENTIAL_ID, CREDENTIAL_NAME, NODE_TYPE, signIn } from '../../harness/n8n-env';
import {
	Editor,
	UI_TIMEOUT,
	eventually,
	startEditorRig,
	stepsOn,
	type EditorRig,
} from '../../harness/n8n-editor';
import { toolDescriptionOf } from '../../nodes/DecisionService/pipeline/tool-description';
import { HIDDEN_ENTRY } from '../../nodes/DecisionService/outputs/list';

jest.setTimeout(600_000);

const WORKFLOW_NAME = 'Decision Service tool answers test';
const TOOL = 'Decide';
const AGENT = 'AI Agent';
const FIXED = ['Uncertain', 'Pending Review', 'Other'];
const TEAMS = ['billing', 'technical', 'sales', 'account'];
const LEVELS = ['cold', 'warm', 'hot', 'sales-ready'];
/** How long the reopened panel may take to reload the list (Decide's follows in about 1.5 s). */
const FOLLOWS_WITHIN = 15_000;

let rig: EditorRig | undefined;
let page: Page;
let ui: Editor;
let cookie: string;
let workflowId: string;
const { step, failed, fail } = stepsOn(() => page);

const restHeaders = () => ({
	cookie,
	'browser-id': 'decision-service-setup',
	'content-type': 'application/json',
});

async function createWorkflow(url: string): Promise<string> {
	const response = await fetch(`${url}/rest/workflows`, {
		method: 'POST',
		headers: restHeaders(),
		body: JSON.stringify({
			name: WORKFLOW_NAME,
			active: false,
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: 'tool-start',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'tool-agent',
					name: AGENT,
					type: '@n8n/n8n-nodes-langchain.agent',
					typeVersion: 1.7,
					position: [240, 0],
					parameters: {},
				},
				{
					id: 'tool-decide',
					name: TOOL,
					type: `${NODE_TYPE}Tool`,
					typeVersion: 1,
					position: [400, 220],
					parameters: {},
					credentials: { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				},
			],
			connections: {
				Start: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
				[TOOL]: { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] },
			},
		}),
	});
	if (!response.ok)
		throw new Error(`creating the workflow answered ${response.status}: ${await response.text()}`);
	const { data } = (await response.json()) as { data: { id: string } };
	return data.id;
}

/** The tool node's parameters as n8n saved them. */
async function savedToolParameters(): Promise<INodeParameters> {
	const response = await fetch(`${rig!.n8n.url}/rest/workflows/${workflowId}`, {
		headers: restHeaders(),
	});
	if (!response.ok) throw new Error(`reading the workflow answered ${response.status}`);
	const { data } = (await response.json()) as {
		data: { nodes: Array<{ name: string; parameters: INodeParameters }> };
	};
	return data.nodes.find((node) => node.name === TOOL)!.parameters;
}

/** Opens the Decision list of the open node and picks `name`. */
async function pickDecision(name: string): Promise<void> {
	const locator = ui.ndv().getByTestId('resource-locator-decision');
	await locator.getByTestId('rlc-input-container').click();
	const item = page.getByTestId('rlc-item').filter({ hasText: name });
	await item.first().waitFor({ timeout: UI_TIMEOUT });
	await item.first().click();
	await eventually(
		() => locator.getByTestId('rlc-input').inputValue(),
		(value) => expect(value).toBe(name),
	);
}

/** The tool's Answers list in the open panel. */
const answersList = () => ui.ndv().getByTestId('mapping-fields-container');

const staleWarnings = () => ui.ndv().locator('[class*="staleDataWarning"]').count();

beforeAll(async () => {
	try {
		rig = await startEditorRig({ name: 'tool-answers' });
		({ page, ui } = rig);
		cookie = await signIn(rig.n8n.url);
		workflowId = await createWorkflow(rig.n8n.url);
	} catch (error) {
		fail();
		throw error;
	}
});

afterAll(async () => {
	await rig?.stop(failed() ? 'Tool answers test' : undefined);
});

/** Closes the node's panel and opens it again: n8n reloads a stale list when the panel opens. */
async function reopen(): Promise<void> {
	await ui.closeNode();
	await ui.openNode(TOOL);
	await ui.widenParameters(200);
}

describe("the tool's Answers list in the n8n editor (real browser)", () => {
	step('signs in and opens the tool on the AI Agent', async () => {
		await ui.signIn(rig!.n8n.url);
		await page.goto(`${rig!.n8n.url}/workflow/${workflowId}`);
		await ui.canvasNode(TOOL).waitFor({ timeout: UI_TIMEOUT });
		await ui.openNode(TOOL);
		await ui.widenParameters(200);
	});

	step(
		'picks Ticket routing: the Answers list shows the teams at once, names that cannot be edited',
		async () => {
			// Before a pick the list is not there: the node's notice says to pick a decision.
			expect(await answersList().count()).toBe(0);
			await pickDecision('Ticket routing (route)');
			// No reopen: the list appears in the open panel.
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual([...TEAMS, ...FIXED]),
				FOLLOWS_WITHIN,
			);
			// Each box shows its answer's name and takes no typing.
			const boxes = answersList().locator('input');
			expect(await boxes.count()).toBe(TEAMS.length + FIXED.length);
			for (const box of await boxes.all()) {
				expect(await box.isEditable()).toBe(false);
			}
			expect(await Promise.all((await boxes.all()).map((box) => box.inputValue()))).toEqual([
				...TEAMS,
				...FIXED,
			]);
			await answersList().scrollIntoViewIfNeeded();
			await ui.screenshot('tool-answers-after-pick');
		},
	);

	step(
		'switches to Lead scoring: the list shows its levels, with no "outdated" warning',
		async () => {
			await pickDecision('Lead scoring (score)');
			// Before the fix: the teams stayed, marked "outdated", and the agent was told them.
			// When the panel opens, n8n asks the node for the list and compares it with the saved one:
			// the warning, if any, comes after that answer.
			const compared = page.waitForResponse(
				(response) => response.url().includes('/resource-mapper-fields'),
				{ timeout: FOLLOWS_WITHIN },
			);
			await reopen();
			await compared;
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual([...LEVELS, ...FIXED]),
				FOLLOWS_WITHIN,
			);
			expect(await staleWarnings()).toBe(0);
			await ui.ndv().getByTestId('mapping-fields-container').last().scrollIntoViewIfNeeded();
			await ui.screenshot('tool-answers');
		},
	);

	step(
		'saved: routes holds lead-scoring’s list, and the description names its levels',
		async () => {
			await ui.closeNode();
			const saved = page.waitForResponse(
				(response) =>
					response.url().includes(`/rest/workflows/${workflowId}`) &&
					response.request().method() === 'PATCH',
			);
			await page.keyboard.press('Control+s');
			expect((await saved).status()).toBe(200);

			const parameters = await savedToolParameters();
			const schema = (parameters.routes as { schema: Array<{ id: string; displayName: string }> })
				.schema;
			expect(schema.find((field) => field.id === HIDDEN_ENTRY.decision)?.displayName).toBe(
				'lead-scoring',
			);
			const ids = schema.map((field) => field.id);
			for (const level of LEVELS) expect(ids).toContain(level);
			for (const team of TEAMS) expect(ids).not.toContain(team);

			const description = toolDescriptionOf(parameters);
			expect(description).toContain(
				'"lead-scoring": How ready to buy is this lead? It scores on levels, lowest first: cold, warm, hot, sales-ready.',
			);
		},
	);
});
