/**
 * The quality-watch examples in n8n's editor (real browser, n8n 2.x): each opens with no node
 * flagged (no parameter or credential issue on the canvas), the watch's Evaluate node shows its
 * three outputs (Report, Scored Items, Drift) each wired, the review example its store branch.
 * UPDATE_SCREENSHOTS=1 writes docs/screenshots/quality-watch-on-canvas.png.
 */
import type { Page } from 'playwright-core';
import {
	eventually,
	startEditorRig,
	stepsOn,
	UI_TIMEOUT,
	type Editor,
	type EditorRig,
} from '../../harness/n8n-editor';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import { readExample } from '../../harness/n8n-executions';

jest.setTimeout(600_000);

let rig: EditorRig | undefined;
let page: Page;
let ui: Editor;
const { step, failed, fail } = stepsOn(() => page);

const EXAMPLES = [
	'quality-watch.json',
	'quality-compare-versions.json',
	'ticket-routing-review.json',
].map((file) => readExample(file));

afterAll(async () => {
	await rig?.stop(failed() ? 'Quality watch UI test' : undefined);
});

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;

on2('the quality-watch examples in the n8n editor', () => {
	beforeAll(async () => {
		try {
			rig = await startEditorRig({ name: 'quality-watch', viewport: { width: 1500, height: 900 } });
			({ page, ui } = rig);
		} catch (error) {
			fail();
			throw error;
		}
	});

	step('signs in as the owner', async () => {
		await ui.signIn(rig!.n8n.url);
	});

	for (const example of EXAMPLES)
		step(`opens "${example.name}" with every node and no node flagged`, async () => {
			await page.goto(`${rig!.n8n.url}/workflow/${String(example.id)}`);
			const shown = example.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote');
			await eventually(
				() => page.getByTestId('canvas-node').count(),
				(count) => expect(count).toBe(shown.length),
			);
			for (const node of shown) await ui.canvasNode(node.name).waitFor({ timeout: UI_TIMEOUT });
			// n8n marks a node with a parameter or credential issue, one that needs setting up, or
			// one whose parameters changed under it (n8n-editor-ui 2.41.1's canvas node status).
			const flagged = page.locator(
				'[data-test-id="node-issues"], [data-test-id="node-setup-required"], [data-test-id="canvas-node-status-warning"]',
			);
			expect(await flagged.count()).toBe(0);
		});

	step("shows the watch's Evaluate with Report, Scored Items and Drift, each wired", async () => {
		await page.goto(`${rig!.n8n.url}/workflow/dsExQualityWatch`);
		await ui.canvasNode('Watch quality').waitFor({ timeout: UI_TIMEOUT });
		await eventually(
			() => ui.outputsOnCanvas('Watch quality'),
			(outputs) =>
				expect(outputs.map((output) => output.label)).toEqual(['Report', 'Scored Items', 'Drift']),
		);
		for (const target of ['Figures row', 'Decided again', 'Alert: accuracy dropped'])
			await expect(ui.edgeLabel('Watch quality', target)).resolves.toBe('');
		await ui.screenshot('quality-watch-on-canvas');
	});
});
