/**
 * Review in n8n's editor and on its page, in a real browser (Debian's chromium driven by
 * playwright-core), as a user and a reviewer meet them.
 *
 * Real n8n (the pinned 2.x) with this package installed from its packed tarball, the sandbox
 * credential (Pro key) and the example workflows imported. In the editor the owner:
 *
 *  1. opens the example "ticket routing with a review by a person" and, from the + after one of
 *     its nodes (Unrouted, whose output is free), finds the operation: "review" in n8n's node panel
 *     lists the node, whose actions include "Wait for a person to review items" (nothing is added);
 *  2. sees the Review node's outputs, Not Reviewed first, then the teams, and Decide's two doubtful
 *     outputs (Uncertain, Pending Review) gathered into Review by the Merge "Doubtful tickets"; runs
 *     the example with the workflow's Execute button: the message for reviewers is written, then
 *     the execution waits on the Review node, with no item count on any of its wires (nothing went
 *     anywhere yet); the page's tickets are what the Merge gathered from those two outputs.
 *
 * A ticket the service sent to its own review queue carries its `review_url`: on the sandbox of
 * `npm start` that link opens a page (200, HTML) about the run.
 *
 * A sticky note beside the message node says where the review link is (its field
 * `n8n_review_page`) and that a ticket's `review_url` is the service's own page, not this review.
 *
 * A reviewer, with no n8n account (a browser context of their own), opens the link the message
 * holds (read back through n8n's REST API): at desktop width (the page says it is sent once and
 * until when, and that items left for later move on unreviewed when sent; items are numbered from
 * 1, the decision is named without its slug and no status of the service's is shown; a ticket
 * whose four teams tie at 25 % shows no leaning), then on a phone 390 px wide (no sideways
 * scrolling, the personal-data field shows no e-mail address; above the button, that sending
 * closes the link); picks a team for three tickets (a tap on the answer's row), writes a note,
 * taps Send review: two tickets are left, so a confirmation says so first (the number as a screen
 * reader hears it) and "Send anyway" sends. The execution finishes with each picked ticket on its
 * team's node and the others on the team lead's; each pick sent one feedback: a tied ticket's pick
 * is recorded `agreed: false` with the pick as its feedback, never `correct`. The store branch
 * (Store reviews, running examples/review-store.json) stores one row per doubtful ticket: reviewed
 * for a pick, not_reviewed for one left for later (the team lead's node feeds it too).
 *
 * The thank-you page says the link is now closed; opened again, n8n answers it itself (its 409,
 * the limit docs/what-happens-when.md names).
 *
 * Back in the editor, the canvas shows the finished loop with its item counts, and the Review
 * node's panel its notice (Send Link To, or `$execution.resumeUrl` from a node above), the
 * decision, Send Link To, the outputs, the time limit.
 *
 * Screenshots: review-on-canvas, review-node, review-page, review-page-phone, review-confirm-phone,
 * review-done (kept in docs/screenshots/, the first and the phone's in the README), and
 * review-find-the-action and
 * review-waiting-on-canvas and review-url-sandbox (not kept); in a temporary folder, or docs/screenshots/ with
 * UPDATE_SCREENSHOTS=1 (harness/n8n-editor.ts).
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import {
	Editor,
	UI_TIMEOUT,
	eventually,
	screenshot,
	startEditorRig,
	stepsOn,
	type EditorRig,
} from '../../harness/n8n-editor';
import { NODE_TYPE, outputNamesOf } from '../../harness/n8n-env';
import {
	listExecutions,
	ownerSession,
	readExample,
	waitForExecution,
	type Execution,
	type OwnerSession,
} from '../../harness/n8n-executions';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import {
	MESSAGE_NODE,
	NOT_REVIEWED,
	REVIEW_EXAMPLE,
	waitingLinkIn,
	whereItemsEnded,
} from '../../harness/n8n-review';
import type { SandboxExchange } from '../../sandbox/server';
import { feedbackPosts, runIdOfPost, runIdsBySubject } from '../support/review';

jest.setTimeout(600_000);

const example = readExample(REVIEW_EXAMPLE);
const ours = example.nodes.filter((node) => node.type === NODE_TYPE);
const DECIDE = ours.find((node) => node.parameters.operation === 'decide')!.name;
const reviewNode = ours.find((node) => node.parameters.operation === 'review')!;
const REVIEW = reviewNode.name;
/** Decide's outputs, in order (its error output is not named). */
const DECIDE_OUTPUTS = outputNamesOf(ours.find((node) => node.name === DECIDE)!.parameters);
/** The nodes an output of `node` is wired to (none when it is free). */
const wiredFrom = (node: string, index: number) =>
	(example.connections[node]?.main[index] ?? []).map((target) => target.node);
/** Decide's doubtful outputs: both gathered into the Review node (examples/ticket-routing-review.json). */
const DOUBTFUL_OUTPUTS = ['Uncertain', 'Pending Review'];
/** The Merge (Append) that gathers them and feeds the message and Review: one page, one wait. */
const GATHER = wiredFrom(DECIDE, DECIDE_OUTPUTS.indexOf('Pending Review'))[0];
/** The node of Decide's Other output: its output is free, so the canvas draws a + after it. */
const UNROUTED = wiredFrom(DECIDE, DECIDE_OUTPUTS.indexOf('Other'))[0];
/** What the canvas shows on the Review node: Not Reviewed, then Decide's answers. */
const REVIEW_OUTPUTS = [NOT_REVIEWED, 'billing', 'technical', 'sales', 'account'];
/** The node an output of the Review node is wired to. */
const targetOf = (output: string) =>
	example.connections[REVIEW].main[outputNamesOf(reviewNode.parameters).indexOf(output)][0].node;
/** The store branch's row node, fed by the reviewed tickets and by the team lead's (not reviewed). */
const LABELED_ROW = wiredFrom(targetOf(NOT_REVIEWED), 0)[0];
/** The Execute Workflow node after it, which stores the rows (examples/review-store.json). */
const STORE = wiredFrom(LABELED_ROW, 0)[0];
/** The example's sample tickets (its Set node's JSON): their e-mail addresses must stay hidden. */
const SAMPLE_EMAILS = example.nodes.flatMap((node) =>
	// The sample data: a JSON text (a node whose JSON output is an expression holds none).
	typeof node.parameters.jsonOutput === 'string' && !node.parameters.jsonOutput.startsWith('=')
		? (JSON.parse(node.parameters.jsonOutput) as { tickets: Array<{ email: string }> }).tickets.map(
				(ticket) => ticket.email,
			)
		: [],
);
/**
 * What the reviewer does: a team for three doubtful tickets (one the machine's answer, two not, one
 * with a note); the others (two tickets both called "Help please") are left for later.
 */
const PICKS = [
	{ subject: 'About my money', answer: 'billing' },
	{
		subject: 'Problem',
		answer: 'technical',
		note: 'Nothing happens when they click: a bug, not a bill.',
	},
	{ subject: 'Next steps', answer: 'sales' },
];
/** A phone 390 px wide (an iPhone 12 to 15's CSS width). */
const PHONE = { width: 390, height: 844 };
/** The sticky note beside the message node (examples/ticket-routing-review.json). */
const LINK_NOTE = example.nodes.find((node) => node.type === 'n8n-nodes-base.stickyNote')!;

let rig: EditorRig | undefined;
let session: OwnerSession;
let page: Page;
let ui: Editor;
const reviewerContexts: BrowserContext[] = [];
/** The page a step is on: the editor, or the reviewer's (for the screenshot of a failed step). */
let current: () => Page | undefined = () => page;
const exchanges: SandboxExchange[] = [];
const { step, failed, fail } = stepsOn(() => current());

let executionId: string;
let waiting: Execution;
let link: string;
/** Subjects of the doubtful tickets the Merge gathered into the Review node (Uncertain, then Pending Review), in order. */
let doubtful: string[];
/** Their runs, in the same order. */
let doubtfulRuns: string[];

/** A reviewer's browser: a context of its own, no n8n session. */
async function reviewerPage(
	viewport: { width: number; height: number },
	phone = false,
): Promise<Page> {
	const reviewer = await rig!.browser.newContext({
		viewport,
		locale: 'en-US',
		timezoneId: 'UTC',
		...(phone ? { isMobile: true, hasTouch: true, deviceScaleFactor: 1 } : {}),
	});
	reviewerContexts.push(reviewer);
	const opened = await reviewer.newPage();
	opened.setDefaultTimeout(UI_TIMEOUT);
	current = () => opened;
	return opened;
}

/** For each doubtful ticket, in order: whether its top probability is shared (no guess: src/answer/kinds.ts). */
let tiedAt: boolean[];
/** Whether the doubtful ticket with this (unique) subject has a tie at the top. */
const isTied = (subject: string) => tiedAt[doubtful.indexOf(subject)] === true;

/** Whether a run's top probability is shared by two options or more. */
function tiesAtTop(probabilities: Record<string, number>): boolean {
	const values = Object.values(probabilities);
	return values.filter((value) => value === Math.max(...values)).length > 1;
}

/** An accessibility node as Chromium's DevTools protocol gives it. */
interface AXNode {
	nodeId: string;
	childIds?: string[];
	role?: { value: string };
	name?: { value: string };
}

/**
 * The text of an element as a screen reader gets it: Chromium's accessibility tree, which holds
 * what CSS writes (the count of items left is a CSS counter; the DOM has no number).
 */
async function heardText(reviewPage: Page, selector: string): Promise<string> {
	const cdp = await reviewPage.context().newCDPSession(reviewPage);
	try {
		const { root } = (await cdp.send('DOM.getDocument')) as { root: { nodeId: number } };
		const { nodeId } = (await cdp.send('DOM.querySelector', {
			nodeId: root.nodeId,
			selector,
		})) as { nodeId: number };
		const partial = (await cdp.send('Accessibility.getPartialAXTree', {
			nodeId,
			fetchRelatives: false,
		})) as { nodes: AXNode[] };
		const full = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: AXNode[] };
		const byId = new Map(full.nodes.map((node) => [node.nodeId, node]));
		// The static texts under the element, in document order.
		const texts: string[] = [];
		const walk = (node: AXNode | undefined) => {
			if (!node) return;
			if (node.role?.value === 'StaticText') texts.push(node.name?.value ?? '');
			for (const child of node.childIds ?? []) walk(byId.get(child));
		};
		walk(byId.get(partial.nodes[0].nodeId));
		return texts.join('');
	} finally {
		await cdp.detach();
	}
}

/** An item of the review page, found by its subject. */
const itemOn = (reviewPage: Page, subject: string): Locator =>
	reviewPage
		.locator('section.item')
		.filter({ has: reviewPage.locator('dd', { hasText: new RegExp(`^${subject}$`) }) });

/** The value shown under each field named `name`, item by item. */
const fieldValues = (reviewPage: Page, name: string) =>
	reviewPage
		.locator('.field')
		.filter({ has: reviewPage.locator('dt', { hasText: new RegExp(`^${name}\\b`) }) })
		.locator('dd')
		.allInnerTexts();

async function setUp(): Promise<void> {
	rig = await startEditorRig({
		name: 'review',
		sandbox: { onExchange: (exchange) => exchanges.push(exchange) },
		// Tall enough for the whole review loop on the canvas at a readable zoom.
		viewport: { width: 1280, height: 960 },
	});
	({ page, ui } = rig);
	session = await ownerSession(rig.n8n.url);
}

afterAll(async () => {
	for (const reviewer of reviewerContexts) await reviewer.close().catch(() => undefined);
	await rig?.stop(failed() ? 'Review UI test' : undefined);
});

// Review's page lives on n8n 2's signed resume link (on n8n 1.x the node refuses to wait).
const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;

on2('Review in the n8n editor and on its page (real browser)', () => {
	beforeAll(async () => {
		try {
			await setUp();
		} catch (error) {
			fail();
			throw error;
		}
	});

	step('signs in as the owner', async () => {
		await ui.signIn(rig!.n8n.url);
		expect(new URL(page.url()).pathname).not.toMatch(/signin|setup/);
	});

	step(
		'finds Review from the + after a node: "review" lists the node, its action "Wait for a person to review items"',
		async () => {
			await page.goto(`${rig!.n8n.url}/workflow/${example.id}`);
			// A node with nothing after it (the team lead's node now feeds the store branch).
			expect(UNROUTED).toBe('Unrouted');
			expect(wiredFrom(UNROUTED, 0)).toEqual([]);
			await ui.canvasNode(UNROUTED).waitFor({ timeout: UI_TIMEOUT });
			const nodes = await page.getByTestId('canvas-node').count();
			await ui.canvasNode(UNROUTED).hover();
			await ui.outputHandles(UNROUTED).getByTestId('canvas-handle-plus').click();
			const creator = await ui.nodePanel();
			await ui.searchNodePanel('review', 'Decision Service');
			await ui.pickInNodePanel('Decision Service');
			// The node's own panel of actions, under its name.
			await eventually(
				() => creator.innerText(),
				(text) => {
					expect(text).toContain('Decision Service');
					expect(text).toMatch(/Decision actions[\s\S]*Wait for a person to review items/i);
				},
			);
			await ui.screenshot('review-find-the-action');
			// Not added: the example stays as it is.
			await page.keyboard.press('Escape');
			await creator.waitFor({ state: 'hidden', timeout: UI_TIMEOUT });
			expect(await page.getByTestId('canvas-node').count()).toBe(nodes);
		},
	);

	step(
		"on the example's canvas, the Review node's outputs are Not Reviewed, then the teams, each wired to its node; Uncertain and Pending Review reach it through one Merge",
		async () => {
			await ui.canvasNode(REVIEW).waitFor({ timeout: UI_TIMEOUT });
			await eventually(
				() => ui.outputsOnCanvas(REVIEW),
				(outputs) => expect(outputs.map((output) => output.label)).toEqual(REVIEW_OUTPUTS),
			);
			// Each one wired: Not Reviewed to the team lead, each team's output to its team.
			expect(REVIEW_OUTPUTS.map(targetOf)).toEqual([
				'Team lead (not reviewed)',
				'Billing team',
				'Technical support',
				'Sales team',
				'Account management',
			]);
			// Decide's two doubtful outputs meet in one Merge (Append), which feeds the message and
			// Review: n8n runs a node once per wire that has items, and only the first run would wait.
			expect(
				DOUBTFUL_OUTPUTS.map((output) => wiredFrom(DECIDE, DECIDE_OUTPUTS.indexOf(output))),
			).toEqual([[GATHER], [GATHER]]);
			expect(example.connections[DECIDE].main[DECIDE_OUTPUTS.indexOf('Uncertain')]![0].index).toBe(
				0,
			);
			expect(
				example.connections[DECIDE].main[DECIDE_OUTPUTS.indexOf('Pending Review')]![0].index,
			).toBe(1);
			expect(wiredFrom(GATHER, 0).sort()).toEqual([MESSAGE_NODE, REVIEW].sort());
			// On the canvas too: a wire from each doubtful output into the Merge, one on to Review.
			await ui.canvasNode(GATHER).waitFor({ timeout: UI_TIMEOUT });
			const wires = (source: string, target: string) =>
				page
					.locator(
						`[data-test-id="edge-label"][data-source-node-name="${source}"][data-target-node-name="${target}"]`,
					)
					.count();
			await eventually(
				async () => ({
					intoMerge: await wires(DECIDE, GATHER),
					intoReview: await wires(GATHER, REVIEW),
				}),
				(count) => expect(count).toEqual({ intoMerge: DOUBTFUL_OUTPUTS.length, intoReview: 1 }),
			);
		},
	);

	step(
		'runs it from the editor: the message for reviewers is written, then the execution waits on the Review node',
		async () => {
			const before = new Set((await listExecutions(session, example.id)).map((each) => each.id));
			await page.getByTestId('execute-workflow-button').click();
			const [started] = await eventually(
				async () =>
					(await listExecutions(session, example.id)).filter((each) => !before.has(each.id)),
				(list) => expect(list).toHaveLength(1),
				120_000,
			);
			executionId = started.id;
			waiting = await waitForExecution(session, executionId, ['waiting'], 240_000);
			expect(waiting.lastNodeExecuted).toBe(REVIEW);
			// What the Merge gathered from Route ticket's Uncertain and Pending Review outputs, in that
			// order (Append): the tickets the page must show.
			const gathered = waiting.outputs[GATHER]?.[0] ?? [];
			const subjectsOf = (items: typeof gathered) => items.map((item) => String(item.json.subject));
			doubtful = subjectsOf(gathered);
			expect(doubtful).toEqual(
				DOUBTFUL_OUTPUTS.flatMap((output) =>
					subjectsOf(waiting.outputs[DECIDE][DECIDE_OUTPUTS.indexOf(output)] ?? []),
				),
			);
			doubtfulRuns = gathered.map((item) =>
				String((item.json.decision as { run_id: string }).run_id),
			);
			tiedAt = gathered.map((item) =>
				tiesAtTop((item.json.decision as { probabilities: Record<string, number> }).probabilities),
			);
			expect(doubtful).toEqual(expect.arrayContaining(PICKS.map((pick) => pick.subject)));
			// The canvas: the message node ran, the Review node waits.
			await ui
				.canvasNode(MESSAGE_NODE)
				.getByTestId('canvas-node-status-success')
				.waitFor({ timeout: 90_000 });
			await ui
				.canvasNode(REVIEW)
				.locator('[data-test-id="canvas-default-node"].waiting')
				.waitFor({ timeout: 90_000 });
			await ui.frameNodes([DECIDE, GATHER, MESSAGE_NODE, REVIEW, ...REVIEW_OUTPUTS.map(targetOf)]);
			// No wire of the Review node claims items while it waits: none went anywhere yet.
			for (const output of REVIEW_OUTPUTS)
				expect({ output, items: await ui.edgeLabel(REVIEW, targetOf(output)) }).toEqual({
					output,
					items: '',
				});
			await ui.screenshot('review-waiting-on-canvas');
		},
	);

	step(
		"the service's own review_url on a Pending Review ticket opens a page on npm start's sandbox",
		async () => {
			const pending = DECIDE_OUTPUTS.indexOf('Pending Review');
			const text = JSON.stringify(
				(waiting.outputs[DECIDE][pending] ?? []).map((item) => item.json),
			);
			const reviewUrl = /"review_url":"([^"]+)"/.exec(text)?.[1];
			expect(reviewUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app\/reviews\/run_\w+$/);
			const visitor = await reviewerPage({ width: 1280, height: 960 });
			const response = await visitor.goto(reviewUrl!);
			expect(response?.status()).toBe(200);
			expect(response?.headers()['content-type']).toMatch(/^text\/html/);
			await expect(visitor.locator('h1').innerText()).resolves.toMatch(/^Review queue: run run_/);
			expect(await visitor.locator('body').innerText()).toContain(
				'answer the run from n8n, with the Review operation or with Send Feedback',
			);
			await screenshot(visitor, 'review-url-sandbox');
			current = () => page;
		},
	);

	step(
		"reads the review link from the message node's output: n8n_review_page, told apart from the service's review_url",
		async () => {
			link = waitingLinkIn(waiting, MESSAGE_NODE);
			expect(link).toMatch(
				new RegExp(
					`^${rig!.n8n.url.replace(/\./g, '\\.')}/webhook-waiting/${executionId}\\?signature=[0-9a-f]+$`,
				),
			);
			const message = waiting.outputs[MESSAGE_NODE][0][0].json;
			expect(String(message.message)).toContain(
				`${doubtful.length} support tickets need a person to pick their team. Open this review page (it can be sent once): ${link}`,
			);
			// One link, named for what it is; the service's own review_url is not on this item.
			expect(message.n8n_review_page).toBe(link);
			expect(Object.keys(message).sort()).toEqual(['message', 'n8n_review_page']);
			// The note on the canvas says where it is, and what the other link is.
			const note = page.getByText('Where the review link is', { exact: true });
			await note.waitFor({ timeout: UI_TIMEOUT });
			// The note's own box: the innermost element holding its title and its last words.
			const noteText = await page
				.locator('div')
				.filter({ has: note, hasText: 'not this review' })
				.last()
				.innerText();
			expect(noteText).toContain('Message for reviewers');
			expect(noteText).toContain('n8n_review_page');
			expect(noteText).toContain('review_url');
			expect(String(LINK_NOTE.parameters.content)).toContain('n8n_review_page');
			// Near the node that carries the link, below it beside Review (canvas units).
			const at = (node: object) => (node as { position: [number, number] }).position;
			const [noteX, noteY] = at(LINK_NOTE);
			const [nodeX, nodeY] = at(example.nodes.find((node) => node.name === MESSAGE_NODE)!);
			expect(Math.abs(noteX - nodeX)).toBeLessThan(400);
			expect(Math.abs(noteY - nodeY)).toBeLessThan(400);
		},
	);

	step(
		'the reviewer opens it at desktop width: every doubtful ticket, the teams to pick from, when the others move on',
		async () => {
			const reviewPage = await reviewerPage({ width: 1280, height: 960 });
			const response = await reviewPage.goto(link);
			expect(response?.status()).toBe(200);
			await expect(reviewPage.locator('h1').innerText()).resolves.toBe('Review: Ticket routing');
			// The example's instructions, then that the page is sent once, until the execution's own
			// time limit; under the button, what a submit does with the items left for later.
			const header = await reviewPage.locator('header').innerText();
			expect(header).toContain(
				(reviewNode.parameters.options as { instructions: string }).instructions,
			);
			expect(header).toMatch(
				/This page can be sent once, until .+ UTC; after that, every item moves on unreviewed\./,
			);
			await expect(reviewPage.locator('.actions').innerText()).resolves.toContain(
				'Items you leave for later move on unreviewed when you send, and get no answer from you.',
			);
			expect(await reviewPage.locator('body').innerText()).not.toMatch(
				/continue on their own|are not sent/,
			);
			// Items numbered from 1; the decision by its name; no status or slug of the service's.
			expect(await reviewPage.locator('section.item h2').allInnerTexts()).toEqual(
				doubtful.map((_subject, index) => `Item ${index + 1}`),
			);
			expect(header).toContain('Decision: Ticket routing');
			const body = await reviewPage.locator('body').innerText();
			expect(body).not.toMatch(/review queue|\bpending\b|\buncertain\b|ticket-routing/i);
			expect(await reviewPage.locator('.chip').count()).toBe(0);
			// A ticket whose four teams tie at 25 %: no leaning, no "suggested" team.
			expect(tiedAt.filter(Boolean).length).toBeGreaterThan(0);
			const sections = reviewPage.locator('section.item');
			for (const [index, tie] of tiedAt.entries()) {
				// By position: two tickets share the subject "Help please".
				const text = await sections.nth(index).innerText();
				if (tie) {
					expect(text).toContain(
						'No suggestion: billing, technical, sales and account are equally likely (25% each).',
					);
					expect(text).not.toMatch(/Leaning to|suggested/);
				} else expect(text).toMatch(/Leaning to \w+ \(\d+%\)/);
				// One rounding rule on screen (issue 45): the bars add up to 100 %, the leaning names
				// its bar's figure, and no list reads "billing , technical".
				const bars = await sections.nth(index).locator('.pct').allInnerTexts();
				if (bars.every((bar) => /^\d+%$/.test(bar)))
					expect(bars.reduce((sum, bar) => sum + Number.parseInt(bar, 10), 0)).toBe(100);
				const leaning = /Leaning to (\w+) \((\d+%)\)/.exec(text);
				if (leaning) {
					const rows = await sections.nth(index).locator('.prob').allInnerTexts();
					expect(rows.map((row) => row.replace(/\s+/g, ' ').trim())).toContain(
						`${leaning[1]} ${leaning[2]}`,
					);
				}
				expect(text).not.toMatch(/\s,/);
			}
			expect(await reviewPage.locator('header time').getAttribute('datetime')).toBe(
				waiting.waitTill,
			);
			expect(await fieldValues(reviewPage, 'subject')).toEqual(doubtful);
			for (const item of await reviewPage.locator('section.item').all()) {
				const choices = (await item.locator('label.choice').allInnerTexts()).map((text) =>
					text.replace(/\s*suggested$/, '').trim(),
				);
				expect(choices).toEqual(['Leave for later', ...REVIEW_OUTPUTS.slice(1)]);
				expect(await item.getByRole('radio', { name: 'Leave for later' }).isChecked()).toBe(true);
			}
			await screenshot(reviewPage, 'review-page');
		},
	);

	let phonePage: Page;

	step(
		'on a phone 390 px wide: no sideways scrolling, no e-mail address, no leaning on a tie, that sending closes the link',
		async () => {
			phonePage = await reviewerPage(PHONE, true);
			expect((await phonePage.goto(link))?.status()).toBe(200);
			const width = await phonePage.locator('html').evaluate((root) => ({
				scroll: root.scrollWidth,
				client: root.clientWidth,
			}));
			expect(width.client).toBe(PHONE.width);
			expect(width.scroll).toBeLessThanOrEqual(width.client);
			// customer_email is declared personal data: masked, its value not in the page at all.
			expect(await fieldValues(phonePage, 'customer_email')).toEqual(
				doubtful.map(() => 'hidden: personal data'),
			);
			expect(await phonePage.locator('body').innerText()).not.toMatch(/[\w.+-]+@[\w-]+\.\w+/);
			const html = await phonePage.content();
			for (const email of SAMPLE_EMAILS) expect(html).not.toContain(email);
			// A tied ticket on the phone too: no leaning.
			const tie = phonePage.locator('section.item').nth(tiedAt.indexOf(true));
			expect(await tie.innerText()).toMatch(/No suggestion: .+ are equally likely \(25% each\)\./);
			// Above the button, before anything is sent: the link closes once sent.
			const closes = phonePage.locator('.actions .closes');
			expect(await closes.innerText()).toBe(
				'Sending closes this link: nobody can open this page again to change or add an answer.',
			);
			// Every ticket left for later: "Send review" asks first (the plain button is hidden).
			const ask = phonePage.locator('details.confirm > summary');
			expect(await ask.innerText()).toBe('Send review');
			expect(await ask.isVisible()).toBe(true);
			expect(await phonePage.locator('button.send').isVisible()).toBe(false);
			expect((await closes.boundingBox())!.y).toBeLessThan((await ask.boundingBox())!.y);
			// The tied ticket from its heading down, the note above the button in view.
			await tie.evaluate((section) =>
				section.ownerDocument.defaultView!.scrollBy(0, section.getBoundingClientRect().top - 8),
			);
			await screenshot(phonePage, 'review-page-phone');
		},
	);

	step('picks a team for three tickets with a tap each, writes a note, sends', async () => {
		for (const pick of PICKS) {
			const item = itemOn(phonePage, pick.subject);
			await item.locator('label.choice', { hasText: new RegExp(`^\\s*${pick.answer}\\b`) }).tap();
			await eventually(
				() => item.getByRole('radio', { name: new RegExp(`^${pick.answer}\\b`) }).isChecked(),
				(checked) => expect(checked).toBe(true),
			);
			if (pick.note) await item.getByRole('textbox', { name: /Note/ }).fill(pick.note);
		}
		// Two tickets left: "Send review" opens a confirmation that says how many, nothing is sent.
		const left = doubtful.length - PICKS.length;
		await phonePage.locator('details.confirm > summary').tap();
		const confirm = phonePage.locator('.confirm-box');
		await confirm.waitFor({ state: 'visible', timeout: UI_TIMEOUT });
		expect(await heardText(phonePage, '.confirm-box p')).toBe(
			`Items left for later: ${left}. Sent now, they move on unreviewed and this link closes.`,
		);
		const sendAnyway = phonePage.getByRole('button', { name: 'Send anyway' });
		expect(await sendAnyway.isVisible()).toBe(true);
		const box = (await confirm.boundingBox())!;
		expect(box.x).toBeGreaterThanOrEqual(0);
		expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
		expect(feedbackPosts(exchanges)).toHaveLength(0);
		await screenshot(phonePage, 'review-confirm-phone');
		const answered = phonePage.waitForResponse(
			(response) =>
				response.request().method() === 'POST' && response.url().startsWith(link.split('?')[0]),
		);
		await sendAnyway.tap();
		expect((await answered).status()).toBe(200);
		await eventually(
			() => phonePage.locator('body').innerText(),
			(text) =>
				expect(text).toContain(
					`Thank you: ${PICKS.length} items reviewed, ${doubtful.length - PICKS.length} moved on unreviewed; you can close this page.`,
				),
		);
		expect(await phonePage.locator('body').innerText()).toContain(
			'This link is now closed: opened again, it shows only a short technical note from n8n.',
		);
		await screenshot(phonePage, 'review-done');
		current = () => page;
	});

	step(
		"the execution finishes: each picked ticket on its team's node, the others on the team lead's, one feedback each, a stored row each",
		async () => {
			const finished = await waitForExecution(session, executionId, ['success'], 240_000);
			const ended = whereItemsEnded(finished, REVIEW_OUTPUTS.map(targetOf));
			for (const pick of PICKS)
				expect({ ticket: pick.subject, ended: ended[pick.subject] }).toEqual({
					ticket: pick.subject,
					ended: [targetOf(pick.answer)],
				});
			// Left for later: each on the team lead's node (two of them share the subject "Help please").
			const later = doubtful.filter((subject) => !PICKS.some((pick) => pick.subject === subject));
			for (const subject of new Set(later))
				expect({ ticket: subject, ended: ended[subject] }).toEqual({
					ticket: subject,
					ended: later.filter((each) => each === subject).map(() => targetOf(NOT_REVIEWED)),
				});
			// What the Review node wrote on each picked ticket.
			const reviewed = (finished.outputs[REVIEW] ?? []).flat();
			// A tied ticket had no guess: its pick is a correction (agreed false, the pick as feedback).
			expect(PICKS.filter((pick) => isTied(pick.subject)).length).toBeGreaterThan(0);
			for (const pick of PICKS)
				expect(reviewed.find((item) => item.json.subject === pick.subject)?.json.review).toEqual(
					expect.objectContaining({
						status: 'reviewed',
						answer: pick.answer,
						...(pick.note ? { note: pick.note } : {}),
						...(isTied(pick.subject)
							? { agreed: false, feedback: pick.answer, feedback_sent: true }
							: {}),
					}),
				);
			// One feedback per pick, on that ticket's run.
			const runIds = runIdsBySubject(finished, DECIDE);
			expect(feedbackPosts(exchanges).map(runIdOfPost).sort()).toEqual(
				PICKS.map((pick) => runIds.get(pick.subject)).sort(),
			);
			// The store branch gets a row for every doubtful ticket: the picked ones reviewed, the
			// ones left for later not_reviewed (the team lead's node feeds it too); Store reviews runs
			// examples/review-store.json, which gives back each row as the Data Table stored it (its id).
			const rowsWanted = doubtful
				.map((subject, index) => [
					doubtfulRuns[index],
					PICKS.some((pick) => pick.subject === subject) ? 'reviewed' : 'not_reviewed',
				])
				.sort();
			const rows = (finished.outputs[LABELED_ROW] ?? []).flat().map((item) => item.json);
			expect(rows.map((row) => [row.run_id, row.status]).sort()).toEqual(rowsWanted);
			const stored = (finished.outputs[STORE] ?? []).flat().map((item) => item.json);
			expect(stored.map((row) => [row.run_id, row.status, typeof row.id]).sort()).toEqual(
				rowsWanted.map((row) => [...row, 'number']),
			);
		},
	);

	step(
		'the canvas shows the finished loop: the picked tickets on their teams, the others on Not Reviewed',
		async () => {
			// The item count n8n writes on each wire from the Review node (none on an empty output).
			const count = (n: number) => (n === 0 ? '' : n === 1 ? '1 item' : `${n} items`);
			const expected = REVIEW_OUTPUTS.map((output) => ({
				output,
				items: count(
					output === NOT_REVIEWED
						? doubtful.length - PICKS.length
						: PICKS.filter((pick) => pick.answer === output).length,
				),
			}));
			await ui
				.canvasNode(REVIEW)
				.getByTestId('canvas-node-status-success')
				.waitFor({ timeout: 90_000 });
			await eventually(
				async () => {
					const shown = [];
					for (const output of REVIEW_OUTPUTS)
						shown.push({ output, items: await ui.edgeLabel(REVIEW, targetOf(output)) });
					return shown;
				},
				(shown) => expect(shown).toEqual(expected),
				60_000,
			);
			await ui.frameNodes([DECIDE, GATHER, MESSAGE_NODE, REVIEW, ...REVIEW_OUTPUTS.map(targetOf)]);
			await ui.screenshot('review-on-canvas');
		},
	);

	step(
		'a colleague opens the link once the review is over: n8n answers it itself (409), as the thank-you page said',
		async () => {
			const colleague = await reviewerPage({ width: 1280, height: 960 });
			const response = await colleague.goto(link);
			// n8n 2.41.1 waiting-webhooks.js 206–215 (docs/what-happens-when.md, Review).
			expect(response?.status()).toBe(409);
			expect(await colleague.locator('body').innerText()).toMatch(/has finished already/);
			current = () => page;
		},
	);

	step(
		'opens the Review node: the notice (Send Link To, or $execution.resumeUrl from a node above), the decision, Send Link To, the outputs, the time limit',
		async () => {
			await ui.openNode(REVIEW);
			const ndv = ui.ndv();
			const notice = ndv.getByText(/^Reviewers open this execution’s link/).first();
			await notice.waitFor({ timeout: UI_TIMEOUT });
			expect(await notice.innerText()).toContain('{{ $execution.resumeUrl }}');
			expect(await notice.innerText()).toMatch(
				/Set Send Link To and Review posts it there itself before it waits, wherever it sits on the canvas\./,
			);
			await expect(
				ndv.getByTestId('parameter-input-sendLinkTo').locator('input').inputValue(),
			).resolves.toBe('');
			await eventually(
				() => ndv.getByTestId('resource-locator-decision').getByTestId('rlc-input').inputValue(),
				(value) => expect(value).toBe('Ticket routing (route)'),
			);
			await eventually(
				() => ui.outputRows(),
				(rows) => expect(rows).toEqual(REVIEW_OUTPUTS.slice(1)),
			);
			await expect(
				ndv
					.getByText(/^Not Reviewed comes first, then one output per answer/)
					.first()
					.isVisible(),
			).resolves.toBe(true);
			expect(await ndv.getByTestId('parameter-input-timeLimit').locator('input').inputValue()).toBe(
				'24',
			);
			expect(await ui.selectedOption(ndv.getByTestId('parameter-input-timeLimitUnit'))).toBe(
				'Hours',
			);
			// Its output panel: one branch per output, with the items of this run.
			const output = ndv.getByTestId('output-panel');
			await eventually(
				() => output.innerText(),
				(text) => {
					expect(text).toMatch(
						new RegExp(`Not Reviewed Branch \\(${doubtful.length - PICKS.length} items\\)`, 'i'),
					);
					for (const pick of PICKS)
						expect(text).toMatch(new RegExp(`${pick.answer} Branch \\(1 item\\)`, 'i'));
				},
			);
			// The notice at the top of the parameters, the time limit in view.
			await notice.evaluate((element) => {
				const view = element.ownerDocument.defaultView!;
				let box = element.parentElement;
				while (
					box &&
					!(
						box.scrollHeight > box.clientHeight + 4 &&
						/auto|scroll/.test(view.getComputedStyle(box).overflowY)
					)
				)
					box = box.parentElement;
				if (box)
					box.scrollTop +=
						element.getBoundingClientRect().top - box.getBoundingClientRect().top - 48;
			});
			await ui.screenshot('review-node');
		},
	);
});
