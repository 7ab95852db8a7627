/**
 * Audit Share in n8n's editor (real n8n 2.x, Chromium), the way a user sets it up:
 *
 *  1. on an empty canvas, the + adds the Decision Service's Decide (n8n adds a manual trigger
 *     before it); the trigger's output is pinned with 40 tickets of the sandbox's labeled set and
 *     one ticket without a body;
 *  2. the ticket-routing decision is picked; billing is wired to a "Billing team" node and n8n's
 *     Error output (Settings → On Error → Continue (using error output)) to "Failed tickets";
 *  3. Options → Audit Share 20, a run before the list is refreshed: the output pane warns that
 *     there is no Audit output yet and names Refresh Output List, in the ⋮ menu beside Output
 *     names, as the editor shows them; no copy is sent;
 *  4. the ⋮ menu beside Output names → Refresh Output List: the old outputs stay in place, then
 *     "Error (kept in place)", then Audit; every saved wire leaves the output index it left before;
 *  5. a run of the workflow: Audit holds one flat row per confident answer the draw picks
 *     (`inAuditSample` on the input as sent), each of those tickets also on its team's output and
 *     marked audit_share 0.2; the failed ticket still reaches Failed tickets; the output pane
 *     counts the copies;
 *  6. a node whose decision is picked after the share is set: Audit right after Other.
 *
 * UPDATE_SCREENSHOTS=1 writes docs/screenshots/audit-share.png (the canvas after the run).
 */
import type { Page } from 'playwright-core';
import { CREDENTIAL_NAME, signIn } from '../../harness/n8n-env';
import {
	FINISHED_STATUSES,
	waitForExecution,
	type Execution,
	type Item,
	type OwnerSession,
} from '../../harness/n8n-executions';
import {
	UI_TIMEOUT,
	eventually,
	savedWires,
	startEditorRig,
	stepsOn,
	type Editor,
	type EditorRig,
} from '../../harness/n8n-editor';
import { inAuditSample } from '../../src/answer/audit';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';

jest.setTimeout(600_000);

const SLUG = 'ticket-routing';
/** What n8n names the node added from the "Decide on items" action, and the trigger it adds. */
const DECIDE = 'Decide on items';
const TRIGGER = 'When clicking ‘Execute workflow’';
const TEAMS = ['billing', 'technical', 'sales', 'account'];
const SHARE = 20;
/** 40 labeled tickets as a user would paste them (subject and body), and one that must fail. */
const TICKETS = makeLabeledSet()
	.slice(0, 40)
	.map(({ subject, body }) => ({ subject, body }));
const NO_BODY = { subject: 'A ticket without a body' };
/** Where n8n's Error output is once the decision is picked (after the seven routed outputs). */
const ERROR_INDEX = TICKET_ROUTING_OUTPUTS.length;
/** The saved wires after step 2: billing and n8n's Error, each to its node. */
const WIRES = ['Billing team', '', '', '', '', '', '', 'Failed tickets'];
/** The menu item and the label the run's notice names, read from the notice. */
let menuItem = '';
let label = '';

let rig: EditorRig | undefined;
let page: Page;
let ui: Editor;
let session: OwnerSession;
let workflowId: string;
const { step, failed, fail } = stepsOn(() => page);

beforeAll(async () => {
	try {
		rig = await startEditorRig({ name: 'audit' });
		({ page, ui } = rig);
		session = { url: rig.n8n.url, cookie: await signIn(rig.n8n.url) };
		await ui.signIn(rig.n8n.url);
	} catch (error) {
		fail();
		throw error;
	}
});

afterAll(async () => {
	await rig?.stop(failed() ? 'Audit Share UI test' : undefined);
});

/** Adds a node from the + at the end of one of `source`'s outputs and gives it `name` (F2). */
async function addNoOpAfter(source: string, output: RegExp, name: string): Promise<void> {
	await ui.canvasNode(source).hover();
	const handle = ui.outputHandles(source).filter({ hasText: output }).first();
	await handle.hover();
	await handle.getByTestId('canvas-handle-plus').click();
	await ui.nodePanel();
	await ui.searchNodePanel('No Operation', 'No Operation, do nothing');
	await ui.pickInNodePanel('No Operation, do nothing');
	await ui.ndv().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
	await ui.closeNode();
	await ui.canvasNode('No Operation, do nothing').click();
	await page.keyboard.press('F2');
	// n8n's rename dialog opens with the name selected: typing replaces it.
	await page.getByText('Rename Node', { exact: false }).first().waitFor({ timeout: UI_TIMEOUT });
	await page.keyboard.type(name);
	await page.keyboard.press('Enter');
	await ui.canvasNode(name).waitFor({ timeout: UI_TIMEOUT });
}

/** Picks the ticket-routing decision in the open node's Decision list. */
async function pickTicketRouting(): Promise<void> {
	const locator = ui.ndv().getByTestId('resource-locator-decision');
	await locator.getByTestId('rlc-input-container').click();
	await page.getByTestId('rlc-item').filter({ hasText: 'Ticket routing (route)' }).click();
	await eventually(
		() => locator.getByTestId('rlc-input').inputValue(),
		(value) => expect(value).toBe('Ticket routing (route)'),
	);
}

/** Options → Add Option → Audit Share (%), typed in, in the open node. */
async function setAuditShare(percent: number): Promise<void> {
	const add = ui.ndv().getByTestId('collection-parameter-add');
	await add.scrollIntoViewIfNeeded();
	await add.click();
	await page.getByRole('option', { name: /^Audit Share \(%\)/ }).click();
	const input = ui.ndv().getByTestId('parameter-input-auditShare').locator('input').first();
	await input.fill(String(percent));
	// Off the field (a Tab would open the Add Option list that follows it).
	await ui
		.ndv()
		.getByTestId('output-panel')
		.click({ position: { x: 12, y: 60 } });
	await eventually(
		() => input.inputValue(),
		(value) => expect(Number(value)).toBe(percent),
	);
}

/** Execute step in the open node; the execution as n8n stored it. */
async function executeStep(): Promise<Execution> {
	const started = page.waitForResponse(
		(response) =>
			response.request().method() === 'POST' &&
			/\/rest\/workflows\/[^/]+\/run/.test(response.url()),
	);
	await ui.ndv().getByTestId('node-execute-button').click();
	const { data } = (await (await started).json()) as { data: { executionId: string } };
	return await waitForExecution(session, data.executionId, FINISHED_STATUSES);
}

/** The output pane's text once it shows the run's receipt. */
async function outputPaneText(): Promise<string> {
	return await eventually(
		() => ui.ndv().getByTestId('output-panel').innerText(),
		(text) => expect(text).toContain('Items per output:'),
	);
}

type Decision = { run_id?: string; status?: string; choice?: string; audit_share?: number };
const decisionOf = (item: Item) => item.json.decision as Decision | undefined;

/** Subjects of the tickets that carry Audit Share's mark, over the team outputs. */
function markedSubjects(outputs: Item[][]): string[] {
	return outputs
		.slice(0, TEAMS.length)
		.flat()
		.filter((item) => decisionOf(item)?.audit_share !== undefined)
		.map((item) => String(item.json.subject))
		.sort();
}

describe('Audit Share in the n8n editor (real browser)', () => {
	step('adds Decide from the + on an empty canvas, the tickets pinned on the trigger', async () => {
		await page.goto(`${rig!.n8n.url}/workflow/new`);
		await page.getByTestId('canvas-add-button').click();
		await ui.nodePanel();
		await ui.searchNodePanel('Decision Service', 'Decision Service');
		await ui.pickInNodePanel('Decision Service');
		await page
			.getByTestId('node-creator')
			.getByText('Decide on items', { exact: true })
			.first()
			.click();
		await ui.ndv().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
		await eventually(
			() => ui.selectedOption(ui.ndv().getByTestId('node-credentials-select')),
			(value) => expect(value).toBe(CREDENTIAL_NAME),
		);
		await ui.closeNode();
		// A first step that is not a trigger: n8n puts a manual trigger before it.
		await ui.canvasNode(TRIGGER).waitFor({ timeout: UI_TIMEOUT });
		workflowId = /\/workflow\/([^/?]+)/.exec(page.url())![1];
		// The trigger's output, edited and pinned as a user pastes test data.
		await ui.openNode(TRIGGER);
		const output = ui.ndv().getByTestId('output-panel');
		await output.getByTestId('ndv-edit-pinned-data').click();
		const editor = output.locator('.cm-content');
		await editor.click();
		await page.keyboard.press('ControlOrMeta+A');
		await page.keyboard.press('Delete');
		await editor.fill(JSON.stringify([...TICKETS, NO_BODY]));
		await output.getByRole('button', { name: 'Save' }).click();
		await eventually(
			() => output.innerText(),
			(text) => expect(text).toContain(`${TICKETS.length + 1} items`),
		);
		await ui.closeNode();
	});

	step(
		"picks ticket-routing, wires billing to Billing team and n8n's Error output to Failed tickets",
		async () => {
			await ui.openNode(DECIDE);
			await pickTicketRouting();
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual([...TICKET_ROUTING_OUTPUTS]),
			);
			await ui.ndv().getByTestId('tab-settings').click();
			await ui.ndv().getByTestId('parameter-input-onError').click();
			await page.getByRole('option', { name: /^Continue \(using error output\)/ }).click();
			await ui.ndv().getByTestId('tab-params').click();
			await ui.closeNode();
			await eventually(
				() => ui.outputsOnCanvas(DECIDE),
				(outputs) =>
					expect(outputs.map((each) => each.label)).toEqual([...TICKET_ROUTING_OUTPUTS, 'Error']),
			);
			await addNoOpAfter(DECIDE, /^billing$/, 'Billing team');
			await addNoOpAfter(DECIDE, /^Error$/, 'Failed tickets');
			await ui.save(workflowId);
			// n8n 2.x also autosaves: the PATCH ui.save waits for may be an autosave from before the
			// rename, so the stored wires are read until the rename is in.
			await eventually(
				() => savedWires(session, workflowId, DECIDE),
				(wires) => expect(wires).toEqual(WIRES),
			);
		},
	);

	step(
		'Audit Share 20 without a refresh: the output pane says to Refresh Output List, no copy is sent',
		async () => {
			await ui.openNode(DECIDE);
			await setAuditShare(SHARE);
			const run = await executeStep();
			expect(run.status).toBe('success');
			const outputs = run.outputs[DECIDE];
			// The seven outputs and n8n's Error: no Audit output, so nowhere to copy to.
			expect(outputs).toHaveLength(ERROR_INDEX + 1);
			expect(outputs[ERROR_INDEX].map((item) => item.json.subject)).toEqual([NO_BODY.subject]);
			const marked = markedSubjects(outputs);
			expect(marked.length).toBeGreaterThan(0);
			const text = await outputPaneText();
			expect(text).toContain(
				`Audit Share ${SHARE} % is set but there is no Audit output yet: add it with Refresh Output List, in the ⋮ menu beside Output names (${marked.length} answers marked audit_share, no copy sent).`,
			);
			expect(text).not.toContain('Audit Branch');
			// The words name what the editor shows (issue 45): the menu item and the label it is beside.
			[, menuItem, label] = /add it with (.+?), in the ⋮ menu beside (.+?) \(/.exec(text)!;
		},
	);

	step(
		'Refresh Output List: the old outputs in place, then Error (kept in place), then Audit; every wire where it was',
		async () => {
			const outputsList = ui.ndv().getByTestId('mapping-fields-container').last();
			// The label the notice names stands above the list, its ⋮ menu beside it.
			expect(await ui.ndv().getByText(label, { exact: true }).first().isVisible()).toBe(true);
			await outputsList.hover();
			await outputsList.getByTestId('action-toggle').first().click();
			await page.getByText(menuItem, { exact: true }).click();
			const refreshed = [...TICKET_ROUTING_OUTPUTS, 'Error (kept in place)', 'Audit'];
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual(refreshed),
			);
			await ui.closeNode();
			// n8n's own Error output moves after the node's outputs; the kept place holds its index.
			await eventually(
				() => ui.outputsOnCanvas(DECIDE),
				(outputs) => expect(outputs.map((each) => each.label)).toEqual([...refreshed, 'Error']),
			);
			await ui.save(workflowId);
			const wires = await savedWires(session, workflowId, DECIDE);
			expect(wires.slice(0, WIRES.length)).toEqual(WIRES);
			expect(wires.slice(WIRES.length).filter(Boolean)).toEqual([]);
		},
	);

	step(
		'a run: one flat Audit row per picked confident answer, each ticket also on its team; the pane counts them',
		async () => {
			const started = page.waitForResponse(
				(response) =>
					response.request().method() === 'POST' &&
					/\/rest\/workflows\/[^/]+\/run/.test(response.url()),
			);
			await page.getByTestId('execute-workflow-button').click();
			const { data } = (await (await started).json()) as { data: { executionId: string } };
			const run = await waitForExecution(session, data.executionId, FINISHED_STATUSES);
			expect(run.status).toBe('success');
			const outputs = run.outputs[DECIDE];
			const auditIndex = ERROR_INDEX + 1;
			const audit = outputs[auditIndex].map((item) => item.json);
			expect(audit.length).toBeGreaterThan(0);
			const onTeams = outputs.slice(0, TEAMS.length);
			for (const row of audit) {
				// A flat row (texts and numbers), as a Data Table stores it.
				for (const [column, value] of Object.entries(row))
					expect({ column, type: typeof value }).toEqual({
						column,
						type: expect.stringMatching(/^(string|number)$/),
					});
				expect(row).toMatchObject({
					audit_id: `${run.id}/${String(row.run_id)}`,
					decision: SLUG,
					audit_share: SHARE / 100,
					item: expect.any(String),
				});
				const item = JSON.parse(String(row.item)) as { subject: string; decision: Decision };
				expect(item.decision).toMatchObject({ run_id: row.run_id, audit_share: SHARE / 100 });
				// The same ticket reached its team's output, marked.
				const team = TEAMS.indexOf(String(row.machine_answer));
				expect(team).toBeGreaterThanOrEqual(0);
				const routed = onTeams[team].find((each) => decisionOf(each)?.run_id === row.run_id);
				expect({ subject: routed?.json.subject, mark: decisionOf(routed!)?.audit_share }).toEqual({
					subject: item.subject,
					mark: SHARE / 100,
				});
			}
			// Exactly the confident answers the draw picks: the hash of the decision and the input sent.
			const picked = onTeams
				.flat()
				.filter((each) =>
					inAuditSample(SLUG, { subject: each.json.subject, body: each.json.body }, SHARE / 100),
				)
				.map((each) => String(each.json.subject))
				.sort();
			const audited = audit.map(
				(row) => (JSON.parse(String(row.item)) as { subject: string }).subject,
			);
			expect(audited.sort()).toEqual(picked);
			expect(markedSubjects(outputs)).toEqual(picked);
			// Doubtful answers are never copied.
			const pending = outputs[TICKET_ROUTING_OUTPUTS.indexOf('Pending Review')];
			expect(pending.every((each) => decisionOf(each)?.audit_share === undefined)).toBe(true);
			// The failed ticket still reaches Failed tickets, through the kept error place.
			expect(run.outputs['Failed tickets']?.[0]?.map((each) => each.json.subject)).toEqual([
				NO_BODY.subject,
			]);
			expect(run.outputs['Billing team'][0]).toHaveLength(onTeams[0].length);
			// On the canvas: the Audit output's count beside it.
			await eventually(
				() => ui.outputsOnCanvas(DECIDE),
				(shown) =>
					expect(shown[auditIndex]).toEqual({
						label: 'Audit',
						items: `${audit.length} item${audit.length === 1 ? '' : 's'}`,
					}),
			);
			await ui.frameNodes([DECIDE, 'Billing team', 'Failed tickets']);
			await ui.screenshot('audit-share');
			await ui.openNode(DECIDE);
			const text = await outputPaneText();
			expect(text).toContain(
				`Audit Share ${SHARE} %: ${audit.length} confident answers also sent to Audit for a person to check.`,
			);
			expect(text).toContain(`Audit Branch (${audit.length} items)`);
			await ui.closeNode();
		},
	);

	step(
		'a node whose decision is picked after the share is set: Audit right after Other',
		async () => {
			await page.goto(`${rig!.n8n.url}/workflow/new`);
			await page.getByTestId('canvas-add-button').click();
			await ui.nodePanel();
			await ui.searchNodePanel('Decision Service', 'Decision Service');
			await ui.pickInNodePanel('Decision Service');
			await page
				.getByTestId('node-creator')
				.getByText('Decide on items', { exact: true })
				.first()
				.click();
			await ui.ndv().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
			await setAuditShare(5);
			await pickTicketRouting();
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual([...TICKET_ROUTING_OUTPUTS, 'Audit']),
			);
			await ui.closeNode();
			await eventually(
				() => ui.outputsOnCanvas(DECIDE),
				(outputs) =>
					expect(outputs.map((each) => each.label)).toEqual([...TICKET_ROUTING_OUTPUTS, 'Audit']),
			);
		},
	);
});
