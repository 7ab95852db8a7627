/**
 * Review in real n8n (issue 21), installed from the packed tarball: the example
 * examples/ticket-routing-review.json with its sample data sent through a webhook. Twenty tickets
 * are routed; the six doubtful ones (two close calls on Uncertain, four on Pending Review) go to
 * the Review node, which puts the execution to wait and serves a page on n8n's resume URL. A
 * person opens it from the message the workflow wrote, picks an answer for five of them (some the
 * machine's, some not, one with a note) and leaves one for later. Each reviewed ticket continues on
 * its pick's output and sends one feedback on its run; nothing is decided again; guessed links and
 * a second submit change nothing.
 *
 * On n8n 1.x (no signed resume URL) the Review node refuses to wait, with an error saying it needs
 * n8n 2.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	freePort,
	packTarball,
	prepareN8n,
	startN8n,
	type N8nInstance,
} from '../../harness/n8n-env';
import {
	ownerSession,
	publishWorkflows,
	readExecution,
	triggerWebhook,
	waitForExecution,
	writeWorkflows,
	type Execution,
	type OwnerSession,
} from '../../harness/n8n-executions';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import {
	MESSAGE_NODE,
	NOT_REVIEWED,
	fillReview,
	openPage,
	parseForm,
	radioGroups,
	reviewWorkflow,
	sectionsOf,
	submitForm,
	waitingLinkIn,
	whereItemsEnded,
	type HtmlForm,
	type Page,
	type ReviewWorkflow,
} from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import type { SandboxExchange } from '../../sandbox/server';
import {
	CLOSE_CALL_GAP,
	REVIEW_TICKETS,
	decidePosts as decidesOfSandbox,
	expectedEnds,
	expectedFeedback,
	feedbackPosts as feedbackOfSandbox,
	isDoubtful,
	runIdOfPost,
	runIdsBySubject,
	ticketItem,
} from '../support/review';

jest.setTimeout(300_000);

/** Pro: human review sends a weak answer to Pending Review. */
const KEY = DEMO_KEYS.pro;
const WORKFLOW_ID = 'dsReviewE2e1';
const WEBHOOK_PATH = 'decision-service-review-e2e';
const OPTIONS = ['billing', 'technical', 'sales', 'account'];

const doubtful = REVIEW_TICKETS.filter(isDoubtful);
const reviewed = doubtful.filter((ticket) => ticket.pick !== undefined);
const later = doubtful.filter((ticket) => ticket.pick === undefined);
/** Another execution, waiting beside the first: its link must not open the first one's page. */
const OTHER_TICKETS = [
	{ subject: 'hello again', body: 'hello', email: 'x@example.com', plan: 'pro' },
];

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let review: ReviewWorkflow;
const exchanges: SandboxExchange[] = [];

const feedbackPosts = () => feedbackOfSandbox(exchanges);
const decidePosts = () => decidesOfSandbox(exchanges);
const subjectsOf = (items: Array<{ json: Record<string, unknown> }> | undefined) =>
	(items ?? []).map((item) => String(item.json.subject));

async function startWith(workflow: ReviewWorkflow): Promise<void> {
	sb = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
	work = mkdtempSync(join(tmpdir(), 'decision-service-review-e2e-'));
	const prepared = prepareN8n({
		userFolder: join(work, 'user'),
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflowsDir: writeWorkflows(join(work, 'workflows'), [workflow.workflow]),
		port: await freePort(),
	});
	publishWorkflows(prepared, [WORKFLOW_ID]);
	n8n = await startN8n(prepared);
	session = await ownerSession(n8n.url);
}

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;
const on1 = n8nMajor(n8nVersion()) < 2 ? describe : describe.skip;

on2(`Review in n8n ${n8nVersion()}: a person reviews the doubtful tickets`, () => {
	let executionId: string;
	let waiting: Execution;
	let link: string;
	let otherId: string;
	let otherLink: string;
	let charged: { waiting: number; after: number };
	let decidesWhileWaiting: number;
	const guessed: Record<string, { status: number; html: string }> = {};
	let feedbackBeforeSubmit: number;
	let page: Page;
	let form: HtmlForm;
	let submitted: Page;
	let finished: Execution;
	let feedbackAfterSubmit: SandboxExchange[];
	let again: Page;
	let afterAgain: Execution;

	beforeAll(async () => {
		review = reviewWorkflow({
			id: WORKFLOW_ID,
			name: 'Review e2e: ticket routing with a person for the doubtful tickets',
			path: WEBHOOK_PATH,
			decideOptions: { closeCallGap: CLOSE_CALL_GAP },
		});
		await startWith(review);
		const before = (await sb.usage(KEY)).used;
		executionId = await triggerWebhook(session, WORKFLOW_ID, WEBHOOK_PATH, {
			tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index)),
		});
		waiting = await waitForExecution(session, executionId, ['waiting']);
		link = waitingLinkIn(waiting, MESSAGE_NODE);
		otherId = await triggerWebhook(session, WORKFLOW_ID, WEBHOOK_PATH, { tickets: OTHER_TICKETS });
		otherLink = waitingLinkIn(await waitForExecution(session, otherId, ['waiting']), MESSAGE_NODE);
		charged = { waiting: (await sb.usage(KEY)).used - before, after: 0 };
		decidesWhileWaiting = decidePosts().length;

		// Links a person could guess or mix up, GET and POST: none may show or change anything.
		const url = new URL(link);
		const bare = `${url.origin}${url.pathname}`;
		const wrong = new URL(link);
		const signature = url.searchParams.get('signature') ?? '';
		wrong.searchParams.set(
			'signature',
			signature.replace(/./g, (c) => (c === 'a' ? 'b' : 'a')),
		);
		const otherSignature = new URL(otherLink).searchParams.get('signature') ?? '';
		const mixed = new URL(link);
		mixed.searchParams.set('signature', otherSignature);
		const swapped = new URL(otherLink);
		swapped.searchParams.set('signature', signature);
		const everything = new URLSearchParams(
			doubtful.map((ticket, index): [string, string] => [`pick-${index}`, ticket.machine]),
		);
		for (const [name, target] of [
			['no signature', bare],
			['a wrong signature', wrong.toString()],
			["this execution with the other's signature", mixed.toString()],
			["the other execution with this one's signature", swapped.toString()],
		]) {
			const opened = await openPage(target);
			guessed[`GET ${name}`] = { status: opened.status, html: opened.html };
			const posted = await fetch(target, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: everything.toString(),
			});
			guessed[`POST ${name}`] = { status: posted.status, html: await posted.text() };
		}
		feedbackBeforeSubmit = feedbackPosts().length;

		// The person opens the link, picks, writes a note, sends.
		page = await openPage(link);
		// `form` keeps the page as it came, for the assertions; `filled` is the person's.
		form = parseForm(page.html);
		const filled = parseForm(page.html);
		fillReview(
			page.html,
			filled,
			reviewed.map((ticket) => ({
				marker: ticket.subject,
				answer: ticket.pick,
				note: ticket.note,
			})),
		);
		submitted = await submitForm(link, filled);
		finished = await waitForExecution(session, executionId, ['success']);
		feedbackAfterSubmit = feedbackPosts();
		charged.after = (await sb.usage(KEY)).used - before;

		// The same form sent again (the back button, a double click).
		again = await submitForm(link, filled);
		afterAgain = await readExecution(session, executionId);
	});

	it('routes the confident tickets, sends the doubtful ones to the Review node and waits', () => {
		expect(waiting.status).toBe('waiting');
		expect(waiting.lastNodeExecuted).toBe(review.review);
		const route = Object.fromEntries(
			review.decideOutputs.map((name, index) => [
				name,
				subjectsOf(waiting.outputs[review.decide][index]),
			]),
		);
		for (const name of [...OPTIONS, 'Uncertain', 'Pending Review'])
			expect({ name, subjects: route[name] }).toEqual({
				name,
				subjects: REVIEW_TICKETS.filter((ticket) => ticket.routed === name).map(
					(ticket) => ticket.subject,
				),
			});
		expect(route.Other).toEqual([]);
		expect(charged.waiting).toBe(REVIEW_TICKETS.length + OTHER_TICKETS.length);
		expect(link).toMatch(
			new RegExp(
				`^${n8n!.url.replace(/\./g, '\\.')}/webhook-waiting/${executionId}\\?signature=[^&]+$`,
			),
		);
	});

	it('shows nothing and changes nothing on a guessed or mixed-up link', async () => {
		for (const [name, answer] of Object.entries(guessed)) {
			expect({ name, status: answer.status }).toEqual({ name, status: 401 });
			for (const ticket of [...REVIEW_TICKETS, ...OTHER_TICKETS])
				expect({ name, shows: answer.html.includes(ticket.subject) }).toEqual({
					name,
					shows: false,
				});
		}
		expect(feedbackBeforeSubmit).toBe(0);
		expect(decidesWhileWaiting).toBe(REVIEW_TICKETS.length + OTHER_TICKETS.length);
		// The other execution is still waiting for its own person.
		expect((await readExecution(session, otherId)).status).toBe('waiting');
	});

	it("shows each doubtful ticket with the decision's options, leave for later chosen, and no key", () => {
		expect(page.status).toBe(200);
		expect(page.contentType).toMatch(/^text\/html/);
		expect(form.method).toBe('post');
		expect(form.action).toBeUndefined();
		for (const key of Object.values(DEMO_KEYS)) expect(page.html).not.toContain(key);
		for (const ticket of REVIEW_TICKETS.filter((each) => !isDoubtful(each)))
			expect({ confident: ticket.subject, shown: page.html.includes(ticket.subject) }).toEqual({
				confident: ticket.subject,
				shown: false,
			});
		const sections = sectionsOf(
			page.html,
			form,
			doubtful.map((ticket) => ticket.subject),
		);
		const groups = radioGroups(form);
		expect(groups.size).toBe(doubtful.length);
		for (const ticket of doubtful) {
			const controls = sections.get(ticket.subject)!;
			const radios = controls.filter((control) => control.type === 'radio');
			const names = [...new Set(radios.map((radio) => radio.name))];
			const chosen = radios.filter((radio) => radio.checked);
			const values = radios.map((radio) => radio.value);
			expect({
				ticket: ticket.subject,
				groups: names.length,
				notes: controls.filter((c) => c.tag === 'textarea').length,
			}).toEqual({
				ticket: ticket.subject,
				groups: 1,
				notes: 1,
			});
			// The decision's four options, and one more choice, chosen as the page comes: later.
			expect({
				ticket: ticket.subject,
				options: values.filter((value) => OPTIONS.includes(value)),
			}).toEqual({
				ticket: ticket.subject,
				options: OPTIONS,
			});
			expect(values).toHaveLength(OPTIONS.length + 1);
			expect(chosen).toHaveLength(1);
			expect(OPTIONS).not.toContain(chosen[0].value);
		}
		// The page names the options as the Outputs list does.
		for (const option of OPTIONS) expect(page.html).toContain(option);
	});

	it('thanks the person, and each ticket ends where it should: none lost, none twice', () => {
		expect(submitted.status).toBe(200);
		expect(submitted.html).toMatch(/thank/i);
		expect(finished.status).toBe('success');
		const ended = whereItemsEnded(finished, review.finalNodes);
		const expected = expectedEnds(REVIEW_TICKETS, review);
		expect(ended).toEqual(expected);
		const total = review.finalNodes.reduce(
			(sum, node) => sum + (finished.outputs[node]?.[0]?.length ?? 0),
			0,
		);
		expect(total).toBe(REVIEW_TICKETS.length);
	});

	it("puts each reviewed ticket on its pick's output with its review, the other on Not Reviewed", () => {
		const outputs = finished.outputs[review.review];
		const byOutput = Object.fromEntries(
			review.reviewOutputs.map((name, index) => [name, outputs[index] ?? []]),
		);
		expect(subjectsOf(byOutput[NOT_REVIEWED])).toEqual(later.map((ticket) => ticket.subject));
		for (const option of OPTIONS)
			expect({ option, subjects: subjectsOf(byOutput[option]).sort() }).toEqual({
				option,
				subjects: reviewed
					.filter((ticket) => ticket.pick === option)
					.map((ticket) => ticket.subject)
					.sort(),
			});
		for (const ticket of reviewed) {
			const item = byOutput[ticket.pick!].find((each) => each.json.subject === ticket.subject)!;
			expect({ ticket: ticket.subject, review: typeof item.json.review }).toEqual({
				ticket: ticket.subject,
				review: 'object',
			});
			const text = JSON.stringify(item.json.review);
			expect(text).toContain(ticket.pick!);
			if (ticket.note) expect(text).toContain(ticket.note);
		}
		expect(finished.raw).not.toContain(KEY);
	});

	it('sends one feedback per reviewed run: correct when the pick is the machine’s, else the pick', async () => {
		const runIds = runIdsBySubject(finished, review.decide);
		const sent = feedbackAfterSubmit.map(runIdOfPost).sort();
		expect(sent).toEqual(reviewed.map((ticket) => runIds.get(ticket.subject)).sort());
		expect(feedbackAfterSubmit.map((exchange) => exchange.status)).toEqual(reviewed.map(() => 200));
		for (const ticket of reviewed) {
			const stored = await sb.control<{ feedback?: Record<string, unknown> }>(
				'GET',
				`/runs/${runIds.get(ticket.subject)}?key=${KEY}`,
			);
			expect({ ticket: ticket.subject, feedback: stored.feedback }).toEqual({
				ticket: ticket.subject,
				feedback: expectedFeedback(ticket),
			});
		}
		for (const ticket of later) {
			const stored = await sb.control<{ feedback?: unknown }>(
				'GET',
				`/runs/${runIds.get(ticket.subject)}?key=${KEY}`,
			);
			expect(stored.feedback).toBeUndefined();
		}
	});

	it('decides nothing again: no decide request, usage unchanged by the review', () => {
		expect(decidePosts()).toHaveLength(REVIEW_TICKETS.length + OTHER_TICKETS.length);
		expect(charged.after).toBe(charged.waiting);
	});

	it('a second submit of the same link changes nothing', () => {
		expect(again.status).not.toBe(200);
		for (const ticket of REVIEW_TICKETS) expect(again.html).not.toContain(ticket.subject);
		expect(feedbackPosts()).toHaveLength(feedbackAfterSubmit.length);
		expect(afterAgain.status).toBe('success');
		expect(afterAgain.outputs).toEqual(finished.outputs);
	});
});

on1(`Review in n8n ${n8nVersion()}: no signed resume URL`, () => {
	let failed: Execution;

	beforeAll(async () => {
		review = reviewWorkflow({
			id: WORKFLOW_ID,
			name: 'Review e2e on n8n 1.x',
			path: WEBHOOK_PATH,
			decideOptions: { closeCallGap: CLOSE_CALL_GAP },
		});
		await startWith(review);
		const id = await triggerWebhook(session, WORKFLOW_ID, WEBHOOK_PATH, {
			tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index)),
		});
		failed = await waitForExecution(session, id, ['error']);
	});

	it('the Review node refuses to wait, with an error saying it needs n8n 2', () => {
		expect(failed.status).toBe('error');
		expect(failed.error?.node).toBe(review.review);
		expect(`${failed.error?.message} ${failed.error?.description ?? ''}`).toMatch(/n8n 2/);
		expect(failed.waitTill ?? null).toBeNull();
		expect(feedbackPosts()).toEqual([]);
	});
});
