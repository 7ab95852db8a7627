/**
 * The examples' Decide and Review nodes open with their *Output names* boxes filled, in n8n's
 * editor in a real browser (Debian's chromium driven by playwright-core), real n8n (the pinned
 * 2.x) with this package from its packed tarball and the examples imported: each box holds its
 * output's name, as a node added anew shows it. Before, the examples were saved with an empty
 * `routes.value` and every box was empty. test/unit/example-output-names.test.ts checks every
 * example's saved list without a browser.
 *
 * Screenshot: example-output-names (docs/screenshots/ with UPDATE_SCREENSHOTS=1).
 */
import type { Page } from 'playwright-core';
import {
	Editor,
	UI_TIMEOUT,
	eventually,
	startEditorRig,
	stepsOn,
	type EditorRig,
} from '../../harness/n8n-editor';

jest.setTimeout(600_000);

const TEAMS = ['billing', 'technical', 'sales', 'account'];
const FIXED = ['Uncertain', 'Pending Review', 'Other'];

let rig: EditorRig | undefined;
let page: Page;
let ui: Editor;
const { step, failed, fail } = stepsOn(() => page);

/** Each row of the open node's Outputs list: its label and what its box holds. */
async function boxes(): Promise<Array<[string, string]>> {
	const list = ui.ndv().getByTestId('mapping-fields-container').last();
	const labels = await ui.outputRows();
	const values = await Promise.all(
		(await list.locator('input').all()).map((input) => input.inputValue()),
	);
	return labels.map((label, index) => [label, values[index] ?? '']);
}

async function openExampleNode(workflowId: string, node: string): Promise<void> {
	await page.goto(`${rig!.n8n.url}/workflow/${workflowId}`);
	await ui.canvasNode(node).waitFor({ timeout: UI_TIMEOUT });
	await ui.openNode(node);
	await ui.widenParameters(200);
}

beforeAll(async () => {
	try {
		rig = await startEditorRig({ name: 'example-output-names' });
		({ page, ui } = rig);
	} catch (error) {
		fail();
		throw error;
	}
});

afterAll(async () => {
	await rig?.stop(failed() ? 'Example output names test' : undefined);
});

describe("the examples' Output names boxes in the n8n editor (real browser)", () => {
	step('signs in', async () => {
		await ui.signIn(rig!.n8n.url);
	});

	step("ticket routing's Decide: every box holds its output's name", async () => {
		await openExampleNode('dsExTicketRoute1', 'Route ticket');
		await eventually(
			() => boxes(),
			(rows) =>
				expect(rows).toEqual([...TEAMS, ...FIXED].map((name) => [name, name] as [string, string])),
		);
		await ui.closeNode();
	});

	step("the review example's Review: every box holds its output's name", async () => {
		await openExampleNode('dsExTicketReview', 'Review doubtful tickets');
		// Review lists its answers only (a person's answer is never uncertain or pending).
		await eventually(
			() => boxes(),
			(rows) => expect(rows).toEqual(TEAMS.map((name) => [name, name] as [string, string])),
		);
		await ui.ndv().getByTestId('mapping-fields-container').last().scrollIntoViewIfNeeded();
		await ui.screenshot('example-output-names');
		await ui.closeNode();
	});
});
