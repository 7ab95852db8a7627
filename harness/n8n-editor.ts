/**
 * n8n's editor in Chromium, as the UI tests drive it (test/ui): the browser (Debian's chromium,
 * harness/chromium.ts), a page that closes n8n's first-run dialogs by itself, the steps of a test
 * that run only while every earlier one passed, and what a user sees and does in the editor: the
 * nodes on the canvas and their output labels and item counts, the node's panel (NDV), its
 * Outputs list, a select's chosen option. Screenshots go to a temporary folder, or to
 * docs/screenshots/ with UPDATE_SCREENSHOTS=1, so that `npm test` never rewrites tracked files.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	selectors,
	type Browser,
	type BrowserContext,
	type Locator,
	type Page,
} from 'playwright-core';
import { launchHeadlessChromium } from './chromium';
import {
	OWNER,
	freePort,
	packTarball,
	prepareN8n,
	projectRoot,
	startN8n,
	type N8nInstance,
} from './n8n-env';
import type { OwnerSession } from './n8n-executions';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from './sandbox';
import type { SandboxOptions } from '../sandbox/server';

/** Longest wait for one thing to appear in the page (a 2-core machine running other suites). */
export const UI_TIMEOUT = 45_000;

export const screenshotDir =
	process.env.UPDATE_SCREENSHOTS === '1'
		? join(projectRoot, 'docs', 'screenshots')
		: join(tmpdir(), 'decision-service-ui-screenshots');

/** Polls `read` until `check` passes (jest assertions inside), then fails with the last assertion error. */
export async function eventually<T>(
	read: () => Promise<T>,
	check: (value: T) => void,
	timeoutMs = UI_TIMEOUT,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		let value: T | undefined;
		try {
			value = await read();
			check(value);
			return value;
		} catch (error) {
			if (Date.now() > deadline) throw error;
		}
		await new Promise((resolveWait) => setTimeout(resolveWait, 250));
	}
}

/** The page as it is, as `<name>.png` in the screenshot folder. */
export async function screenshot(page: Page, name: string): Promise<void> {
	mkdirSync(screenshotDir, { recursive: true });
	await page.screenshot({ path: join(screenshotDir, `${name}.png`), animations: 'disabled' });
}

/** Debian's chromium, headless, with n8n's `data-test-id` as the test id attribute. */
export async function launchChromium(): Promise<Browser> {
	selectors.setTestIdAttribute('data-test-id');
	return await launchHeadlessChromium();
}

/** n8n's pop-ups a test closes whenever they get in the way (Editor.keepDialogs stops that). */
const DISMISSED_DIALOGS =
	'[data-test-id="nps-survey-modal"]:visible, [data-test-id="whats-new-modal"]:visible, .el-overlay-dialog .el-dialog:visible';

/**
 * A page for n8n's editor: its own context (English, UTC), the errors it throws collected in
 * `pageErrors`, and n8n's first-run modals, surveys and "what's new" dialogs closed whenever they
 * would cover an action (the NDV is a native <dialog>, never matched here).
 */
export async function openEditorPage(
	browser: Browser,
	viewport = { width: 1440, height: 900 },
): Promise<{ context: BrowserContext; page: Page; pageErrors: string[] }> {
	const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
	const page = await context.newPage();
	page.setDefaultTimeout(UI_TIMEOUT);
	const pageErrors: string[] = [];
	page.on('pageerror', (error) => pageErrors.push(error.message));
	await page.addLocatorHandler(page.locator(DISMISSED_DIALOGS).first(), async (overlay) => {
		const close = overlay
			.locator('.el-dialog__headerbtn, [data-test-id="close-button"], [aria-label="Close"]')
			.first();
		if (await close.isVisible()) await close.click();
		else await page.keyboard.press('Escape');
	});
	return { context, page, pageErrors };
}

/** What a UI test drives: the sandbox, real n8n with the package and the examples, an editor page. */
export interface EditorRig {
	sandbox: TestSandbox;
	n8n: N8nInstance;
	browser: Browser;
	context: BrowserContext;
	page: Page;
	ui: Editor;
	/** Stops everything; with `failedTest`, first prints the screenshots' folder, the page's errors and n8n's last output. */
	stop(failedTest?: string): Promise<void>;
}

/**
 * Starts the rig of a UI test: the browser first (a missing one fails before n8n is started),
 * the sandbox, n8n with the package from its packed tarball, the Pro key's credential and the
 * example workflows, then a signed-out editor page.
 */
export async function startEditorRig(options: {
	name: string;
	sandbox?: SandboxOptions;
	viewport?: { width: number; height: number };
}): Promise<EditorRig> {
	const n8nLog: string[] = [];
	let pageErrors: string[] = [];
	const started: Partial<Omit<EditorRig, 'stop' | 'ui'>> = {};
	const work = mkdtempSync(join(tmpdir(), `decision-service-ui-${options.name}-`));
	const stop = async (failedTest?: string) => {
		if (failedTest) {
			console.log(
				`${failedTest} failed. Screenshots: ${screenshotDir}\nPage errors:\n${pageErrors.join('\n') || '(none)'}\nLast n8n output:\n${n8nLog.join('').slice(-6000)}`,
			);
		}
		await started.context?.close().catch(() => undefined);
		await started.browser?.close().catch(() => undefined);
		await started.n8n?.stop();
		await started.sandbox?.close();
		rmSync(work, { recursive: true, force: true });
	};
	try {
		started.browser = await launchChromium();
		started.sandbox = await startTestSandbox(options.sandbox);
		started.n8n = await startN8n(
			prepareN8n({
				userFolder: join(work, 'user'),
				tarball: packTarball(join(work, 'pack')),
				sandboxBaseUrl: started.sandbox.baseUrl,
				apiKey: DEMO_KEYS.pro,
				port: await freePort(),
				workflowsDir: join(projectRoot, 'examples'),
			}),
			{
				log: (chunk) => {
					n8nLog.push(chunk);
					if (n8nLog.length > 300) n8nLog.shift();
				},
			},
		);
		const opened = await openEditorPage(started.browser, options.viewport);
		started.context = opened.context;
		started.page = opened.page;
		pageErrors = opened.pageErrors;
		const { sandbox, n8n, browser, context, page } = started as Required<typeof started>;
		return { sandbox, n8n, browser, context, page, ui: new Editor(page), stop };
	} catch (error) {
		await stop(`Starting the ${options.name} test`);
		throw error;
	}
}

/**
 * The steps of a test file: each runs only when every earlier one passed (a broken page would only
 * add timeouts); the first that fails leaves a screenshot of the page named after it.
 */
export function stepsOn(pageOf: () => Page | undefined) {
	let failed = false;
	return {
		/** Whether a step (or the set-up, through `fail`) failed. */
		failed: () => failed,
		fail: () => {
			failed = true;
		},
		step(name: string, body: () => Promise<void>): void {
			it(name, async () => {
				if (failed) throw new Error('skipped: an earlier step failed');
				try {
					await body();
				} catch (error) {
					failed = true;
					mkdirSync(screenshotDir, { recursive: true });
					await pageOf()
						?.screenshot({
							path: join(screenshotDir, `failed-${name.replace(/\W+/g, '-').slice(0, 60)}.png`),
						})
						.catch(() => undefined);
					throw error;
				}
			});
		},
	};
}

/**
 * Where each output of `node` leads, as the editor saved the workflow (n8n's REST API): one entry
 * per output index, the names of the nodes it is wired to joined by ", ", '' for an unwired one.
 * n8n connects by index, so this is what says whether a wire still starts at the same output.
 */
export async function savedWires(
	session: OwnerSession,
	workflowId: string,
	node: string,
): Promise<string[]> {
	const response = await fetch(`${session.url}/rest/workflows/${workflowId}`, {
		headers: { cookie: session.cookie, 'browser-id': 'decision-service-setup' },
	});
	if (!response.ok) throw new Error(`GET /workflows/${workflowId} answered ${response.status}`);
	const { data } = (await response.json()) as {
		data: { connections: Record<string, { main: Array<Array<{ node: string }> | null> }> };
	};
	return (data.connections[node]?.main ?? []).map((targets) =>
		(targets ?? []).map((target) => target.node).join(', '),
	);
}

type Box = { x: number; y: number; width: number; height: number };

/** What a user sees and does in n8n's editor, on one page. */
export class Editor {
	constructor(readonly page: Page) {}

	/** The node panel's names, in order, as the last searchNodePanel read them. */
	lastListed: string[] = [];

	/** Signs in at /signin as the owner, through the form. */
	async signIn(url: string): Promise<void> {
		await this.page.goto(`${url}/signin`);
		await this.page.getByTestId('emailOrLdapLoginId').locator('input').fill(OWNER.email);
		await this.page.getByTestId('password').locator('input').fill(OWNER.password);
		await this.page.getByTestId('form-submit-button').click();
		await this.page.waitForURL((at) => !at.pathname.startsWith('/signin'), {
			timeout: UI_TIMEOUT,
		});
	}

	/** The editor as it is, as `<name>.png` in the screenshot folder. */
	async screenshot(name: string): Promise<void> {
		// Off the canvas (onto the Logs bar), and off the button just clicked, whose hover state
		// hides its label.
		const size = this.page.viewportSize() ?? { width: 1440, height: 900 };
		await this.page.mouse.move(size.width / 2, size.height - 3);
		await screenshot(this.page, name);
	}

	/** Saves the open workflow as a user does (Ctrl+S) and waits until n8n stored it. */
	async save(workflowId: string): Promise<void> {
		const saved = this.page.waitForResponse(
			(response) =>
				response.url().includes(`/rest/workflows/${workflowId}`) &&
				response.request().method() === 'PATCH',
		);
		await this.page.keyboard.press('Control+s');
		expect((await saved).status()).toBe(200);
	}

	/** From now on, dialogs stay open (a test that works in the credential modal, say). */
	async keepDialogs(): Promise<void> {
		await this.page.removeLocatorHandler(this.page.locator(DISMISSED_DIALOGS).first());
	}

	canvasNode(name: string): Locator {
		return this.page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`);
	}

	outputHandles(name: string): Locator {
		return this.page.locator(
			`[data-test-id="canvas-node-output-handle"][data-node-name="${name}"]`,
		);
	}

	/** The label n8n shows on the wire between two nodes: the item count of the last run, or ''. */
	async edgeLabel(source: string, target: string): Promise<string> {
		const label = this.page.locator(
			`[data-test-id="edge-label"][data-source-node-name="${source}"][data-target-node-name="${target}"]`,
		);
		return (await label.innerText()).trim();
	}

	ndv(): Locator {
		return this.page.getByTestId('ndv');
	}

	/** Each output handle of a node on the canvas: its label and the item count n8n shows beside it. */
	async outputsOnCanvas(name: string): Promise<Array<{ label: string; items?: string }>> {
		const texts = await this.outputHandles(name).allInnerTexts();
		return texts.map((text) => {
			const [label = '', ...rest] = text
				.split('\n')
				.map((line) => line.trim())
				.filter(Boolean);
			const items = rest.find((line) => /^\d+ items?$/.test(line));
			return items ? { label, items } : { label };
		});
	}

	/** The rows of the open node's Outputs list, in order. */
	async outputRows(): Promise<string[]> {
		const texts = await this.ndv()
			.getByTestId('mapping-fields-container')
			.last()
			.locator('label[for^="value["]')
			.allInnerTexts();
		return texts.map((text) => text.split('\n')[0].trim());
	}

	/** The option a select (n8n's element-plus combobox) shows as chosen. */
	selectedOption(select: Locator): Promise<string> {
		return select.locator('input[role="combobox"]').first().inputValue();
	}

	async chooseOption(parameter: string, option: string): Promise<void> {
		await this.ndv().getByTestId(`parameter-input-${parameter}`).click();
		// An option's accessible name is its label followed by its description.
		await this.page.getByRole('option', { name: new RegExp(`^${option}`) }).click();
		await eventually(
			() => this.selectedOption(this.ndv().getByTestId(`parameter-input-${parameter}`)),
			(value) => expect(value).toBe(option),
		);
	}

	/** n8n's node panel (opened by a +), once it is shown. */
	async nodePanel(): Promise<Locator> {
		const panel = this.page.getByTestId('node-creator');
		await panel.waitFor({ timeout: UI_TIMEOUT });
		return panel;
	}

	/** Types `words` in the node panel's search until `name` is listed; its place, from 1. */
	async searchNodePanel(words: string, name: string): Promise<number> {
		await this.page.getByTestId('node-creator-search-bar').fill(words);
		const read = async () =>
			(await this.page.getByTestId('node-creator-item-name').allInnerTexts()).map((each) =>
				each.trim(),
			);
		// The panel filters as it goes (on a busy machine the previous words' list is still shown for
		// a moment): the place counts once the list holds the name and stays the same for a moment.
		const listed = await eventually(
			async () => {
				const first = await read();
				await this.page.waitForTimeout(400);
				return { first, second: await read() };
			},
			({ first, second }) => {
				expect(second).toContain(name);
				expect(second).toEqual(first);
			},
		);
		this.lastListed = listed.second;
		return listed.second.indexOf(name) + 1;
	}

	/** Clicks `name` in the node panel's list. */
	async pickInNodePanel(name: string): Promise<void> {
		await this.page
			.getByTestId('node-creator-item-name')
			.filter({ hasText: new RegExp(`^${name}$`) })
			.first()
			.click();
	}

	/**
	 * Drags with the mouse as a user does (press, move in steps, release): n8n's mapping starts a
	 * drag on a press followed by movement and drops on release over a field.
	 */
	async drag(source: Locator, target: Locator): Promise<void> {
		await source.scrollIntoViewIfNeeded();
		const from = await source.boundingBox();
		if (!from) throw new Error('the item to drag is not on the page');
		await this.page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
		await this.page.mouse.down();
		await this.page.mouse.move(from.x + from.width / 2 + 20, from.y + from.height / 2, {
			steps: 5,
		});
		await target.scrollIntoViewIfNeeded();
		const to = await target.boundingBox();
		if (!to) throw new Error('the field to drop on is not on the page');
		await this.page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 15 });
		await this.page.mouse.up();
	}

	/**
	 * Turns a field of `container` to an expression (the Fixed / Expression switch shown on hover)
	 * and types `text` in n8n's expression editor, which closes `{{` by itself.
	 */
	async typeExpression(container: Locator, parameter: string, text: string): Promise<void> {
		const field = container.getByTestId(`parameter-input-${parameter}`);
		// Off any field still focused (its switch stays shown), then onto this one: its switch shows.
		await this.clickAside();
		await field.scrollIntoViewIfNeeded();
		await field.hover();
		// Each field has its Fixed / Expression switch just above it, beside its label.
		const fieldBox = await field.boundingBox();
		if (!fieldBox) throw new Error(`the field ${parameter} is not on the page`);
		/** The switch just above the field, beside its label. */
		const switchTo = async (mode: 'fixed' | 'expression'): Promise<Locator> => {
			let nearestSwitch: Locator | undefined;
			let nearest = -Infinity;
			for (const each of await container.getByTestId(`radio-button-${mode}`).all()) {
				const box = await each.boundingBox();
				if (box && box.y < fieldBox.y && box.y > nearest) {
					nearest = box.y;
					nearestSwitch = each;
				}
			}
			if (!nearestSwitch)
				throw new Error(`no Fixed / Expression switch above the field ${parameter}`);
			return nearestSwitch;
		};
		const editor = field.getByTestId('inline-expression-editor-input');
		// A field that holds an expression already (dragged there, say) goes to Fixed and back, as a
		// user retyping it does: n8n 2.41.1 kept the old expression of such a field when only its
		// text was replaced.
		if (await editor.count()) await (await switchTo('fixed')).click();
		await (await switchTo('expression')).click();
		await editor.click();
		await this.page.keyboard.press('ControlOrMeta+A');
		await this.page.keyboard.press('Delete');
		await editor.pressSequentially(text);
		await this.clickAside();
	}

	/** A click on the output panel's empty top: it takes the focus off a field and changes nothing. */
	private async clickAside(): Promise<void> {
		await this.ndv()
			.getByTestId('output-panel')
			.click({ position: { x: 12, y: 60 } });
	}

	async openNode(name: string): Promise<void> {
		await this.canvasNode(name).dblclick();
		await this.ndv().waitFor({ state: 'visible', timeout: UI_TIMEOUT });
	}

	async closeNode(): Promise<void> {
		await this.page.getByTestId('ndv-close-button').click();
		await this.ndv().waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
	}

	/**
	 * Drags the parameters panel's left edge over the (empty) input panel, for readable screenshots:
	 * at n8n's default width a field label as long as "customer_email (personal data)" is cut.
	 * Cosmetic only: nothing is asserted on the width.
	 */
	async widenParameters(pixels: number): Promise<void> {
		const handle = this.ndv()
			.locator('[data-test-id="resize-handle"][class*="_left_"]:visible')
			.first();
		const box = (await handle.count()) ? await handle.boundingBox() : null;
		if (!box) return;
		await this.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
		await this.page.mouse.down();
		await this.page.mouse.move(box.x - pixels, box.y + box.height / 2, { steps: 10 });
		await this.page.mouse.up();
	}

	/**
	 * Zooms and pans the canvas as a user does (Ctrl + wheel, a middle-button drag) until these nodes
	 * and their output labels fill it, centred: for a readable screenshot of part of a large
	 * workflow. Cosmetic only, in a few bounded moves; nothing is asserted on the result.
	 */
	async frameNodes(names: string[]): Promise<void> {
		await this.page.getByTestId('zoom-to-fit').click();
		const canvas = await this.page.locator('.vue-flow').first().boundingBox();
		if (!canvas) return;
		const unionOf = async (): Promise<Box | undefined> => {
			const boxes: Box[] = [];
			for (const name of names)
				for (const part of [this.canvasNode(name), this.outputHandles(name)])
					for (const each of await part.all()) {
						const box = await each.boundingBox();
						if (box) boxes.push(box);
					}
			if (!boxes.length) return undefined;
			const left = Math.min(...boxes.map((box) => box.x));
			const top = Math.min(...boxes.map((box) => box.y));
			const right = Math.max(...boxes.map((box) => box.x + box.width));
			const bottom = Math.max(...boxes.map((box) => box.y + box.height));
			return { x: left, y: top, width: right - left, height: bottom - top };
		};
		const centre = { x: canvas.x + canvas.width / 2, y: canvas.y + canvas.height / 2 - 20 };
		for (let move = 0; move < 6; move++) {
			await this.page.waitForTimeout(400);
			const box = await unionOf();
			if (!box) return;
			// Room for node names under the nodes, the canvas buttons and the Execute button.
			const factor = Math.min((canvas.width - 160) / box.width, (canvas.height - 170) / box.height);
			const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
			if (Math.abs(factor - 1) >= 0.03) {
				// n8n's canvas zooms by 2^(-deltaY / 500) per Ctrl + wheel.
				await this.page.mouse.move(at.x, at.y);
				await this.page.keyboard.down('Control');
				await this.page.mouse.wheel(0, -500 * Math.log2(factor));
				await this.page.keyboard.up('Control');
			} else if (Math.abs(at.x - centre.x) > 8 || Math.abs(at.y - centre.y) > 8) {
				await this.page.mouse.move(at.x, at.y);
				await this.page.mouse.down({ button: 'middle' });
				await this.page.mouse.move(centre.x, centre.y, { steps: 8 });
				await this.page.mouse.up({ button: 'middle' });
			} else break;
		}
		// Off every wire and node in one jump, then past the delay after which n8n hides a wire's
		// buttons (+ and delete), so that no hover state is left in the picture.
		await this.page.mouse.move(canvas.x + 8, canvas.y + 8);
		await this.page.waitForTimeout(1500);
	}
}
