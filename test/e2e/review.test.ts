/**
 * Review in real n8n (issue 21), installed from the packed tarball: the example
 * examples/ticket-routing-review.json with its sample data sent through a webhook.
 *
 * - Twenty tickets are routed; the four doubtful ones (Pending Review; Uncertain is gathered with it
 *   by the example's Merge) go to the Review node, which
 *   puts the execution to wait and serves a page on n8n's resume URL. A person opens it from the
 *   message the workflow wrote, picks an answer for three (two the machine's, one not, with a note)
 *   and leaves one for later. Each reviewed ticket continues on its pick's output and sends one
 *   feedback on its run; nothing is decided again; guessed links and a second submit change nothing.
 *   The one left for later leaves with its row (`status: 'not_reviewed'`), and the reviews table
 *   ends with one row per doubtful ticket, reviewed or not (issue 43, point 6).
 * - A double click on Send: one thank-you, one refusal, each feedback sent once.
 * - With Decide's Close Call Gap, the doubtful tickets arrive on two outputs (Uncertain and Pending
 *   Review), gathered by the example's Merge: one page shows them all, close calls included, and
 *   one submit finishes the execution.
 * - A review nobody submits: when the time limit (one minute) passes, every waiting ticket
 *   continues on Not Reviewed, with the row Review put on it before waiting (n8n does not run the
 *   node again), left at the time limit; the table gets those rows too.
 * - Send Link To (issue 30, point 12): the example without its message node; Review posts the link
 *   to a webhook itself before it waits, so the link goes out whatever sits where on the canvas. A
 *   webhook that cannot be reached fails the node, and nothing waits for nobody.
 * - Once the review is over, n8n answers the link itself with its own JSON (409): the limit
 *   docs/what-happens-when.md names, and the thank-you page tells the reviewer of.
 *
 * On n8n 1.x (no signed resume URL) the Review node refuses to wait, with an error saying it needs
 * n8n 2.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { N8nInstance } from '../../harness/n8n-env';
import {
	readExecution,
	triggerWebhook,
	waitForExecution,
	waitForExecutionWhere,
	type Execution,
	type OwnerSession,
	startN8nWithWorkflows,
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
	choicesFor,
	decidePosts as decidesOfSandbox,
	expectedEnds,
	expectedFeedback,
	feedbackPosts as feedbackOfSandbox,
	isDoubtful,
	laterOf,
	reviewedOf,
	routedTo,
	runIdOfPost,
	runIdsBySubject,
	ticketItem,
	type ReviewTicket,
} from '../support/review';
import { startLinkReceiver, withoutNode, type LinkReceiver } from '../support/review-receiver';
import { LABELED_ROW_COLUMNS } from '../../src/answer';
import {
	ensureTable,
	personalProjectId,
	readRows,
	type DataTable,
	type Row,
} from '../../harness/n8n-data-tables';
import { REVIEWS_TABLE } from '../../scripts/make-review-store';

jest.setTimeout(600_000);

/** Pro: human review sends a weak answer to Pending Review. */
const KEY = DEMO_KEYS.pro;
const OPTIONS = ['billing', 'technical', 'sales', 'account'];

/** The example as it is: doubtful tickets on Pending Review only. */
const MAIN = { id: 'dsReviewE2e1', path: 'decision-service-review-e2e' };
/** With Close Call Gap: close calls on Uncertain, weak answers on Pending Review, all on one page. */
const BOTH = { id: 'dsReviewE2e2', path: 'decision-service-review-e2e-both' };
/** A time limit of one minute, and nobody submits. */
const TIMEOUT = { id: 'dsReviewE2e3', path: 'decision-service-review-e2e-timeout' };
/** No message node: Review sends its link to a webhook itself (Send Link To). */
const SENDS = { id: 'dsReviewE2e4', path: 'decision-service-review-e2e-sends' };
/** Send Link To a webhook nobody answers at: the node fails before waiting. */
const UNSENT = { id: 'dsReviewE2e5', path: 'decision-service-review-e2e-unsent' };

const doubtful = REVIEW_TICKETS.filter((ticket) => isDoubtful(ticket));
const reviewed = reviewedOf(REVIEW_TICKETS);
const later = laterOf(REVIEW_TICKETS);
const BOTH_TICKETS = REVIEW_TICKETS.filter(
	(ticket) => isDoubtful(ticket, true) || routedTo(ticket, true) === 'Uncertain',
);
const TIMEOUT_TICKETS = REVIEW_TICKETS.filter((ticket) =>
	['Charged twice', 'hello'].includes(ticket.subject),
);

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let receiver: LinkReceiver | undefined;
let reviewsTable: DataTable;
const exchanges: SandboxExchange[] = [];

const feedbackPosts = () => feedbackOfSandbox(exchanges);
const decidePosts = () => decidesOfSandbox(exchanges);
const subjectsOf = (items: Array<{ json: Record<string, unknown> }> | undefined) =>
	(items ?? []).map((item) => String(item.json.subject));
const tickets = (list: ReviewTicket[], prefix: string) => ({
	tickets: list.map((ticket, index) => ticketItem(ticket, index, prefix)),
});
/** The page shows a field's value as it is: the text of an element, not an expression's leftover. */
const showsValue = (html: string, value: string) => html.includes(`>${value}<`);

async function startWith(workflows: ReviewWorkflow[]): Promise<void> {
	sb = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
	work = mkdtempSync(join(tmpdir(), 'decision-service-review-e2e-'));
	({ n8n, session } = await startN8nWithWorkflows({
		work,
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflows: workflows.map((each) => each.workflow),
	}));
	// The example creates its table from its manual trigger; here a webhook starts it.
	reviewsTable = await ensureTable(
		session,
		await personalProjectId(session),
		REVIEWS_TABLE,
		LABELED_ROW_COLUMNS,
	);
}

/** The rows an execution stored in the reviews table. */
const rowsOf = async (execution: string): Promise<Row[]> =>
	(await readRows(session, reviewsTable)).filter((row) => row.execution_id === execution);

afterAll(async () => {
	await receiver?.close();
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;
const on1 = n8nMajor(n8nVersion()) < 2 ? describe : describe.skip;

on2(`Review in n8n ${n8nVersion()}`, () => {
	const review = reviewWorkflow({ ...MAIN, name: 'Review e2e: the example' });
	const both = reviewWorkflow({
		...BOTH,
		name: 'Review e2e: close calls too',
		decideOptions: { closeCallGap: CLOSE_CALL_GAP },
	});
	const timeout = reviewWorkflow({
		...TIMEOUT,
		name: 'Review e2e: nobody reviews',
		reviewParameters: { timeLimit: 1, timeLimitUnit: 'minutes' },
	});
	let timeoutId: string;
	let timeoutUntil: string;
	let executionId: string;
	let waiting: Execution;
	let link: string;
	let bothId: string;
	let bothLink: string;
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
	let reopened: Page;
	let sends: ReviewWorkflow;

	beforeAll(async () => {
		receiver = await startLinkReceiver();
		// The example without the node that wrote the link: Review hands it out itself.
		sends = reviewWorkflow({
			...SENDS,
			name: 'Review e2e: Review sends its link',
			reviewParameters: { sendLinkTo: receiver.url, linkFormat: 'details' },
		});
		sends.workflow = withoutNode(sends.workflow, MESSAGE_NODE);
		const unsent = reviewWorkflow({
			...UNSENT,
			name: 'Review e2e: the link cannot be sent',
			// Port 1 on loopback: nothing listens, the connection is refused.
			reviewParameters: { sendLinkTo: 'http://127.0.0.1:1/hooks/review' },
		});
		unsent.workflow = withoutNode(unsent.workflow, MESSAGE_NODE);
		await startWith([review, both, timeout, sends, unsent]);
		const before = (await sb.usage(KEY)).used;
		// Its minute runs while the rest goes on.
		timeoutId = await triggerWebhook(
			session,
			TIMEOUT.id,
			TIMEOUT.path,
			tickets(TIMEOUT_TICKETS, 'timeout'),
		);
		timeoutUntil = new Date(
			(await waitForExecution(session, timeoutId, ['waiting'])).waitTill ?? 0,
		).toISOString();
		executionId = await triggerWebhook(
			session,
			MAIN.id,
			MAIN.path,
			tickets(REVIEW_TICKETS, 'main'),
		);
		waiting = await waitForExecution(session, executionId, ['waiting']);
		link = waitingLinkIn(waiting, MESSAGE_NODE);
		bothId = await triggerWebhook(session, BOTH.id, BOTH.path, tickets(BOTH_TICKETS, 'both'));
		bothLink = waitingLinkIn(await waitForExecution(session, bothId, ['waiting']), MESSAGE_NODE);
		charged = { waiting: (await sb.usage(KEY)).used - before, after: 0 };
		decidesWhileWaiting = decidePosts().length;

		// Links a person could guess or mix up, GET and POST: none may show or change anything.
		const url = new URL(link);
		const signature = url.searchParams.get('signature') ?? '';
		const wrong = new URL(link);
		wrong.searchParams.set(
			'signature',
			signature.replace(/./g, (c) => (c === 'a' ? 'b' : 'a')),
		);
		const mixed = new URL(link);
		mixed.searchParams.set('signature', new URL(bothLink).searchParams.get('signature') ?? '');
		const swapped = new URL(bothLink);
		swapped.searchParams.set('signature', signature);
		const everything = new URLSearchParams(
			doubtful.map((ticket, index): [string, string] => [
				`pick-${index}`,
				ticket.machine ?? 'billing',
			]),
		);
		for (const [name, target] of [
			['no signature', `${url.origin}${url.pathname}`],
			['a wrong signature', wrong.toString()],
			["this execution with another's signature", mixed.toString()],
			["another execution with this one's signature", swapped.toString()],
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

		// The person opens the link, picks, writes a note, sends. `form` keeps the page as it came.
		page = await openPage(link);
		form = parseForm(page.html);
		const filled = parseForm(page.html);
		fillReview(page.html, filled, choicesFor(REVIEW_TICKETS));
		submitted = await submitForm(link, filled);
		finished = await waitForExecution(session, executionId, ['success']);
		feedbackAfterSubmit = feedbackPosts();
		charged.after = (await sb.usage(KEY)).used - before;

		// The same form sent again (the back button, a double click).
		again = await submitForm(link, filled);
		afterAgain = await readExecution(session, executionId);
		// A colleague opens the link later.
		reopened = await openPage(link);
	});

	describe('a person reviews the doubtful tickets of the example', () => {
		it('routes the confident tickets, sends the doubtful ones to the Review node and waits', () => {
			expect(waiting.status).toBe('waiting');
			expect(waiting.lastNodeExecuted).toBe(review.review);
			const route = Object.fromEntries(
				review.decideOutputs.map((name, index) => [
					name,
					subjectsOf(waiting.outputs[review.decide][index]),
				]),
			);
			for (const name of [...OPTIONS, 'Pending Review'])
				expect({ name, subjects: route[name] }).toEqual({
					name,
					subjects: REVIEW_TICKETS.filter((ticket) => ticket.routed === name).map(
						(ticket) => ticket.subject,
					),
				});
			expect(route.Uncertain).toEqual([]);
			expect(route.Other).toEqual([]);
			expect(charged.waiting).toBe(
				REVIEW_TICKETS.length + BOTH_TICKETS.length + TIMEOUT_TICKETS.length,
			);
			expect(link).toMatch(
				new RegExp(
					`^${n8n!.url.replace(/\./g, '\\.')}/webhook-waiting/${executionId}\\?signature=[^&]+$`,
				),
			);
		});

		it('shows nothing and changes nothing on a guessed or mixed-up link', async () => {
			for (const [name, answer] of Object.entries(guessed)) {
				expect({ name, status: answer.status }).toEqual({ name, status: 401 });
				for (const ticket of REVIEW_TICKETS)
					expect({ name, shows: answer.html.includes(ticket.subject) }).toEqual({
						name,
						shows: false,
					});
			}
			expect(feedbackBeforeSubmit).toBe(0);
			expect(decidesWhileWaiting).toBe(
				REVIEW_TICKETS.length + BOTH_TICKETS.length + TIMEOUT_TICKETS.length,
			);
			// The other execution still waits for its own person.
			expect((await readExecution(session, bothId)).status).toBe('waiting');
		});

		it("shows each doubtful ticket as it is, the decision's options, leave for later chosen, no key", () => {
			expect(page.status).toBe(200);
			expect(page.contentType).toMatch(/^text\/html/);
			expect(form.method).toBe('post');
			expect(form.action).toBeUndefined();
			for (const key of Object.values(DEMO_KEYS)) expect(page.html).not.toContain(key);
			for (const ticket of REVIEW_TICKETS)
				expect({ ticket: ticket.subject, shown: page.html.includes(ticket.subject) }).toEqual({
					ticket: ticket.subject,
					shown: isDoubtful(ticket),
				});
			// Each field's value as the ticket has it (the mapping `={{ $json.subject }}` evaluated),
			// not with the expression's `=` left in front.
			expect(
				doubtful.map((ticket) => ({
					ticket: ticket.subject,
					subject: showsValue(page.html, ticket.subject),
					body: showsValue(page.html, ticket.body),
					withEquals: showsValue(page.html, `=${ticket.subject}`),
				})),
			).toEqual(
				doubtful.map((ticket) => ({
					ticket: ticket.subject,
					subject: true,
					body: true,
					withEquals: false,
				})),
			);
			const sections = sectionsOf(
				page.html,
				form,
				doubtful.map((ticket) => ticket.subject),
			);
			expect(radioGroups(form).size).toBe(doubtful.length);
			for (const ticket of doubtful) {
				const controls = sections.get(ticket.subject)!;
				const radios = controls.filter((control) => control.type === 'radio');
				const values = radios.map((radio) => radio.value);
				const chosen = radios.filter((radio) => radio.checked);
				expect({
					ticket: ticket.subject,
					groups: new Set(radios.map((radio) => radio.name)).size,
					notes: controls.filter((control) => control.tag === 'textarea').length,
					// The decision's four options, and one more choice, chosen as the page comes: later.
					options: values.filter((value) => OPTIONS.includes(value)),
					others: values.filter((value) => !OPTIONS.includes(value)).length,
					chosen: chosen.map((radio) => OPTIONS.includes(radio.value)),
				}).toEqual({
					ticket: ticket.subject,
					groups: 1,
					notes: 1,
					options: OPTIONS,
					others: 1,
					chosen: [false],
				});
			}
		});

		it('thanks the person, and each ticket ends where it should: none lost, none twice', () => {
			expect(submitted.status).toBe(200);
			expect(submitted.html).toMatch(/thank/i);
			expect(finished.status).toBe('success');
			expect(whereItemsEnded(finished, review.finalNodes)).toEqual(
				expectedEnds(REVIEW_TICKETS, review),
			);
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
			expect(review.reviewOutputs).toEqual([NOT_REVIEWED, ...OPTIONS]);
			expect(subjectsOf(byOutput[NOT_REVIEWED])).toEqual(later.map((ticket) => ticket.subject));
			const runIds = runIdsBySubject(finished, review.decide);
			for (const item of byOutput[NOT_REVIEWED]) {
				const runId = runIds.get(String(item.json.subject));
				expect(item.json.review).toEqual(
					expect.objectContaining({
						review_id: `${executionId}/${runId}`,
						status: 'not_reviewed',
						answer: '',
						decision: 'ticket-routing',
						run_id: runId,
						machine_status: 'pending',
						stratum: 'doubtful',
						execution_id: executionId,
					}),
				);
				expect(item.json.review).not.toHaveProperty('agreed');
			}
			for (const option of OPTIONS)
				expect({ option, subjects: subjectsOf(byOutput[option]).sort() }).toEqual({
					option,
					subjects: reviewed
						.filter((ticket) => ticket.pick === option)
						.map((ticket) => ticket.subject)
						.sort(),
				});
			for (const ticket of reviewed) {
				const item = byOutput[ticket.pick!].find((each) => each.json.subject === ticket.subject);
				expect({ ticket: ticket.subject, review: item?.json.review }).toEqual({
					ticket: ticket.subject,
					review: expect.objectContaining({
						status: 'reviewed',
						answer: ticket.pick,
						agreed: ticket.pick === ticket.machine,
						...(ticket.note ? { note: ticket.note } : {}),
					}),
				});
			}
			expect(finished.raw).not.toContain(KEY);
		});

		it('the reviews table ends with one row per doubtful ticket: reviewed, or not_reviewed', async () => {
			const runIds = runIdsBySubject(finished, review.decide);
			const rows = await rowsOf(executionId);
			const bySubject = (row: Row) =>
				doubtful.find((ticket) => runIds.get(ticket.subject) === row.run_id)?.subject;
			expect(
				rows.map((row) => ({ ticket: bySubject(row), status: row.status, answer: row.answer })),
			).toEqual(
				expect.arrayContaining(
					doubtful.map((ticket) => ({
						ticket: ticket.subject,
						status: ticket.pick ? 'reviewed' : 'not_reviewed',
						answer: ticket.pick ?? '',
					})),
				),
			);
			expect(rows).toHaveLength(doubtful.length);
			for (const row of rows) {
				expect(row.review_id).toBe(`${executionId}/${row.run_id}`);
				expect(row.stratum).toBe('doubtful');
			}
			process.stdout.write(
				`review e2e: ${rows.length} rows for ${doubtful.length} doubtful tickets; a not_reviewed row: ${JSON.stringify(rows.find((row) => row.status === 'not_reviewed'))}\n`,
			);
		});

		it('sends one feedback per reviewed run: correct when the pick is the machine’s, else the pick', async () => {
			const runIds = runIdsBySubject(finished, review.decide);
			expect(feedbackAfterSubmit.map(runIdOfPost).sort()).toEqual(
				reviewed.map((ticket) => runIds.get(ticket.subject)).sort(),
			);
			expect(feedbackAfterSubmit.map((exchange) => exchange.status)).toEqual(
				reviewed.map(() => 200),
			);
			for (const ticket of doubtful) {
				const stored = await sb.control<{ feedback?: unknown }>(
					'GET',
					`/runs/${runIds.get(ticket.subject)}?key=${KEY}`,
				);
				expect({ ticket: ticket.subject, feedback: stored.feedback }).toEqual({
					ticket: ticket.subject,
					feedback: ticket.pick === undefined ? undefined : expectedFeedback(ticket),
				});
			}
		});

		it('decides nothing again: no decide request, usage unchanged by the review', () => {
			expect(decidePosts()).toHaveLength(decidesWhileWaiting);
			expect(charged.after).toBe(charged.waiting);
		});

		it('a second submit of the same link changes nothing', () => {
			expect(again.status).not.toBe(200);
			for (const ticket of REVIEW_TICKETS) expect(again.html).not.toContain(ticket.subject);
			expect(feedbackPosts()).toHaveLength(feedbackAfterSubmit.length);
			expect(afterAgain.status).toBe('success');
			expect(afterAgain.outputs).toEqual(finished.outputs);
		});

		it('once the review is over, n8n answers the link itself (its 409 JSON), as the thank-you page warned', () => {
			// n8n 2.41.1 waiting-webhooks.js 206–215: a finished execution's link gets a ConflictError
			// unless its node's operation is n8n's own sendAndWait; Review's code never runs.
			expect(submitted.html).toContain('This link is now closed');
			expect(reopened.status).toBe(409);
			expect(reopened.contentType).toMatch(/json/);
			expect(reopened.html).toMatch(/has finished already/);
		});
	});

	describe('Send Link To: Review posts its link itself, no other node needed', () => {
		let sendsId: string;
		let sendsWaiting: Execution;
		let posted: Record<string, unknown>;
		let sendsPage: Page;
		let sendsDone: Execution;
		let unsentFailed: Execution;
		const sendsDoubtful = () => REVIEW_TICKETS.filter((ticket) => isDoubtful(ticket));

		beforeAll(async () => {
			sendsId = await triggerWebhook(
				session,
				SENDS.id,
				SENDS.path,
				tickets(REVIEW_TICKETS, 'sends'),
			);
			sendsWaiting = await waitForExecution(session, sendsId, ['waiting']);
			posted = receiver!.received.find((body) =>
				String(body.link ?? '').includes(`/webhook-waiting/${sendsId}?`),
			)!;
			sendsPage = await openPage(String(posted.link));
			const filled = parseForm(sendsPage.html);
			fillReview(sendsPage.html, filled, choicesFor(REVIEW_TICKETS));
			await submitForm(String(posted.link), filled);
			sendsDone = await waitForExecution(session, sendsId, ['success']);
			const unsentId = await triggerWebhook(
				session,
				UNSENT.id,
				UNSENT.path,
				tickets(REVIEW_TICKETS, 'unsent'),
			);
			unsentFailed = await waitForExecution(session, unsentId, ['error']);
		});

		it('posts the link, the count, the title and the time limit before the execution waits', () => {
			expect(sendsWaiting.status).toBe('waiting');
			expect(sendsWaiting.lastNodeExecuted).toBe(sends.review);
			expect(Object.keys(sendsWaiting.outputs)).not.toContain(MESSAGE_NODE);
			expect(posted).toEqual({
				text: expect.stringContaining(String(posted.link)),
				link: expect.stringMatching(
					new RegExp(
						`^${n8n!.url.replace(/\./g, '\\.')}/webhook-waiting/${sendsId}\\?signature=[^&]+$`,
					),
				),
				items: sendsDoubtful().length,
				title: 'Review: Ticket routing',
				until: expect.any(String),
				execution: sendsId,
			});
			expect(Date.parse(String(posted.until))).toBe(Date.parse(String(sendsWaiting.waitTill)));
			expect(String(posted.text)).toMatch(
				new RegExp(
					`^Review: Ticket routing: ${sendsDoubtful().length} items need a person’s answer, until .+ UTC\\. http`,
				),
			);
			for (const key of Object.values(DEMO_KEYS)) expect(JSON.stringify(posted)).not.toContain(key);
		});

		it('the posted link opens the page, and its submit finishes the execution', () => {
			expect(sendsPage.status).toBe(200);
			expect(sendsPage.contentType).toMatch(/^text\/html/);
			for (const ticket of sendsDoubtful()) expect(sendsPage.html).toContain(ticket.subject);
			expect(sendsDone.status).toBe('success');
			expect(whereItemsEnded(sendsDone, sends.finalNodes)).toEqual(
				expectedEnds(REVIEW_TICKETS, sends),
			);
		});

		it('a webhook that cannot be reached fails the Review node: nothing waits for nobody', () => {
			expect(unsentFailed.status).toBe('error');
			expect(unsentFailed.error?.node).toBe(sends.review);
			expect(unsentFailed.error?.message).toBe('The review link could not be sent to 127.0.0.1:1');
			expect(unsentFailed.waitTill ?? null).toBeNull();
		});
	});

	describe('a double click on Send: the same page posted twice at once', () => {
		const DOUBLE_TICKETS = REVIEW_TICKETS.filter((ticket) =>
			['Charged twice', 'Invoice and crash', 'Bill and login'].includes(ticket.subject),
		);
		let answers: Page[];
		let done: Execution;
		let sent: SandboxExchange[];

		beforeAll(async () => {
			const id = await triggerWebhook(
				session,
				MAIN.id,
				MAIN.path,
				tickets(DOUBLE_TICKETS, 'double'),
			);
			const doubleLink = waitingLinkIn(
				await waitForExecution(session, id, ['waiting']),
				MESSAGE_NODE,
			);
			const doublePage = await openPage(doubleLink);
			const filled = parseForm(doublePage.html);
			fillReview(doublePage.html, filled, choicesFor(DOUBLE_TICKETS));
			const before = feedbackPosts().length;
			answers = await Promise.all([submitForm(doubleLink, filled), submitForm(doubleLink, filled)]);
			done = await waitForExecution(session, id, ['success']);
			sent = feedbackPosts().slice(before);
		});

		it('thanks once, refuses the other post, and sends each feedback once', () => {
			const runIds = runIdsBySubject(done, review.decide);
			expect({
				thanked: answers.filter((answer) => answer.status === 200).length,
				feedback: sent.map(runIdOfPost).sort(),
			}).toEqual({
				thanked: 1,
				feedback: reviewedOf(DOUBLE_TICKETS)
					.map((ticket) => runIds.get(ticket.subject))
					.sort(),
			});
		});

		it('resumes the execution once: each ticket ends once, where it should', () => {
			expect(done.runData[review.review]).toHaveLength(1);
			expect(whereItemsEnded(done, review.finalNodes)).toEqual(
				expectedEnds(DOUBLE_TICKETS, review),
			);
		});
	});

	describe('doubtful tickets on two outputs (Close Call Gap): Pending Review is reviewed, Uncertain is not', () => {
		let bothPage: Page;
		let missing: string[];
		let extra: string[];
		let bothSubmitted: Page;
		let after: Execution;

		beforeAll(async () => {
			bothPage = await openPage(bothLink);
			const shown = BOTH_TICKETS.filter((ticket) => bothPage.html.includes(ticket.subject));
			missing = BOTH_TICKETS.filter(
				(ticket) => isDoubtful(ticket, true) && !shown.includes(ticket),
			).map((ticket) => ticket.subject);
			extra = shown.filter((ticket) => !isDoubtful(ticket, true)).map((ticket) => ticket.subject);
			// What the page has is reviewed; the assertions below say what it lacked.
			const filled = parseForm(bothPage.html);
			fillReview(bothPage.html, filled, choicesFor(shown, true));
			bothSubmitted = await submitForm(bothLink, filled);
			// Finished, or waiting again on the Review node (a second run of it).
			after = await waitForExecutionWhere(
				session,
				bothId,
				'finished, or waiting on a second run of the Review node',
				(execution) =>
					execution.status === 'success' ||
					(execution.status === 'waiting' && (execution.runData[both.review]?.length ?? 0) > 1),
			);
		});

		it('routes the close calls to Uncertain and the weak answers to Pending Review', () => {
			const route = Object.fromEntries(
				both.decideOutputs.map((name, index) => [
					name,
					subjectsOf(after.outputs[both.decide][index]),
				]),
			);
			for (const name of ['Uncertain', 'Pending Review'])
				expect({ name, subjects: route[name] }).toEqual({
					name,
					subjects: BOTH_TICKETS.filter((ticket) => routedTo(ticket, true) === name).map(
						(ticket) => ticket.subject,
					),
				});
		});

		it('shows every doubtful ticket on the page, close calls (Uncertain) included', () => {
			expect(bothPage.status).toBe(200);
			expect({ missing, extra }).toEqual({ missing: [], extra: [] });
		});

		it('one submit finishes the execution, each ticket where it should be', () => {
			expect(bothSubmitted.status).toBe(200);
			expect({
				status: after.status,
				reviewRuns: after.runData[both.review]?.length,
				ended: whereItemsEnded(after, both.finalNodes),
			}).toEqual({
				status: 'success',
				reviewRuns: 1,
				ended: expectedEnds(BOTH_TICKETS, both, true),
			});
		});
	});

	describe('nobody reviews: the time limit passes', () => {
		let timedOut: Execution;

		beforeAll(async () => {
			// n8n looks for waits that are due once a minute: a one-minute limit ends within two.
			timedOut = await waitForExecution(session, timeoutId, ['success'], 240_000);
		});

		it('every waiting ticket continues on Not Reviewed, the confident one on its team', () => {
			expect(whereItemsEnded(timedOut, timeout.finalNodes)).toEqual(
				Object.fromEntries(
					TIMEOUT_TICKETS.map((ticket) => [
						ticket.subject,
						isDoubtful(ticket)
							? timeout.reviewTargets[NOT_REVIEWED]
							: timeout.decideTargets[ticket.routed],
					]),
				),
			);
			const outputs = timedOut.outputs[timeout.review];
			expect(outputs.slice(1).flat()).toEqual([]);
			process.stdout.write(
				`review e2e: after the time limit, Not Reviewed's items carry review ${JSON.stringify(outputs[0][0]?.json.review)}\n`,
			);
		});

		it('each carries its row, put on it before the wait, left at the time limit; the table has them', async () => {
			const outputs = timedOut.outputs[timeout.review];
			const runIds = runIdsBySubject(timedOut, timeout.decide);
			const waited = TIMEOUT_TICKETS.filter((ticket) => isDoubtful(ticket));
			expect(outputs[0]).toHaveLength(waited.length);
			for (const item of outputs[0]) {
				const runId = runIds.get(String(item.json.subject));
				expect(item.json.review).toEqual(
					expect.objectContaining({
						review_id: `${timeoutId}/${runId}`,
						status: 'not_reviewed',
						answer: '',
						run_id: runId,
						stratum: 'doubtful',
						reviewed_at: timeoutUntil,
						execution_id: timeoutId,
					}),
				);
			}
			const rows = await rowsOf(timeoutId);
			expect(rows.map((row) => [row.run_id, row.status]).sort()).toEqual(
				waited.map((ticket) => [runIds.get(ticket.subject), 'not_reviewed']).sort(),
			);
		});

		it('sends no feedback for them', async () => {
			const runIds = runIdsBySubject(timedOut, timeout.decide);
			const sent = new Set(feedbackPosts().map(runIdOfPost));
			for (const ticket of TIMEOUT_TICKETS) {
				const runId = runIds.get(ticket.subject)!;
				const stored = await sb.control<{ feedback?: unknown }>('GET', `/runs/${runId}?key=${KEY}`);
				expect({ ticket: ticket.subject, sent: sent.has(runId), stored: stored.feedback }).toEqual({
					ticket: ticket.subject,
					sent: false,
					stored: undefined,
				});
			}
		});
	});
});

on1(`Review in n8n ${n8nVersion()}: no signed resume URL`, () => {
	const review = reviewWorkflow({ ...MAIN, name: 'Review e2e on n8n 1.x' });
	let failed: Execution;

	beforeAll(async () => {
		await startWith([review]);
		const id = await triggerWebhook(session, MAIN.id, MAIN.path, tickets(REVIEW_TICKETS, 'main'));
		failed = await waitForExecution(session, id, ['error']);
	});

	it('the Review node refuses to wait, with an error saying it needs n8n 2', () => {
		expect(failed.status).toBe('error');
		expect(failed.error?.node).toBe(review.review);
		expect(failed.error?.message).toMatch(/needs n8n 2/);
		expect(failed.waitTill ?? null).toBeNull();
		expect(feedbackPosts()).toEqual([]);
	});
});
