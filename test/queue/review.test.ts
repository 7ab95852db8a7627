/**
 * Review in queue mode (issue 21): n8n main takes the webhooks and serves the review pages, two
 * workers run the executions. Two executions of the review example wait at once, each for its own
 * person; each page is reviewed through its own link (both sent at the same moment), and each
 * resumed execution runs on a worker. One execution's link with the other's signature is refused.
 * Each review is stored once in the Data Table `decision_reviews` (the table picked by name, the
 * store sub-workflow run on the worker, an Upsert on `review_id`): one row per reviewed ticket, and a
 * classify review with two labels, on two outputs of Review, one row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packTarball } from '../../harness/n8n-env';
import {
	listExecutions,
	ownerSession,
	readExecution,
	triggerWebhook,
	waitForExecution,
	writeWorkflows,
	type Execution,
	type OwnerSession,
} from '../../harness/n8n-executions';
import {
	MESSAGE_NODE,
	NOT_REVIEWED,
	fillReview,
	openPage,
	parseForm,
	reviewWorkflow,
	submitForm,
	waitingLinkIn,
	whereItemsEnded,
	type HtmlForm,
	type Page,
	type ReviewWorkflow,
} from '../../harness/n8n-review';
import { startQueueN8n, type QueueN8n } from '../../harness/n8n-queue';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import {
	ensureTable,
	personalProjectId,
	readRows,
	type DataTable,
	type Row,
} from '../../harness/n8n-data-tables';
import { LABELED_ROW_COLUMNS } from '../../src/answer';
import { STORE_WORKFLOW } from '../../scripts/make-review-store';
import { LABEL_MESSAGES, STORE_BRANCH, classifyReviewWorkflow } from '../support/review-store';
import type { SandboxExchange } from '../../sandbox/server';
import {
	REVIEW_TICKETS,
	choicesFor,
	decidePosts,
	expectedEnds,
	expectedFeedback,
	feedbackPosts,
	isDoubtful,
	laterOf,
	reviewedOf,
	runIdOfPost,
	runIdsBySubject,
	ticketItem,
	type ReviewTicket,
} from '../support/review';

jest.setTimeout(600_000);

const KEY = DEMO_KEYS.pro;
const WORKFLOW_ID = 'dsReviewQueue1';
const WEBHOOK_PATH = 'decision-service-review-queue';
const WORKERS = 2;
const CLASSIFY = {
	id: 'dsReviewQueueLabels',
	name: 'Classify review in queue mode',
	path: 'decision-service-review-queue-labels',
};

/** Two executions, half the tickets each: two doubtful in each. */
const BATCHES: ReviewTicket[][] = [REVIEW_TICKETS.slice(0, 10), REVIEW_TICKETS.slice(10)];

interface Reviewed {
	tickets: ReviewTicket[];
	id: string;
	waiting: Execution;
	link: string;
	page?: Page;
	submitted?: Page;
	finished?: Execution;
}

let sb: TestSandbox;
let work: string;
let queue: QueueN8n;
let session: OwnerSession;
let review: ReviewWorkflow;
const exchanges: SandboxExchange[] = [];
const runs: Reviewed[] = [];
let waitingAtOnce: string[];
const mixed: Record<string, number> = {};
let decidesBeforeSubmit: number;
/** How many executions each worker had started before the reviews were sent. */
let startedBeforeSubmit: number[];
let table: DataTable;

beforeAll(async () => {
	sb = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
	work = mkdtempSync(join(tmpdir(), 'decision-service-review-queue-'));
	review = reviewWorkflow({
		id: WORKFLOW_ID,
		name: 'Review in queue mode',
		path: WEBHOOK_PATH,
	});
	queue = await startQueueN8n({
		workDir: work,
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflowsDir: writeWorkflows(join(work, 'workflows'), [
			review.workflow,
			classifyReviewWorkflow(CLASSIFY, await sb.client(KEY).getDecision('content-labels')),
		]),
		// The store sub-workflow too (examples/review-store.json): n8n 2.x runs its published version.
		activate: [WORKFLOW_ID, CLASSIFY.id, STORE_WORKFLOW.id],
		workers: WORKERS,
		concurrency: 1,
	});
	session = await ownerSession(queue.main.url);
	// The example creates its table from its manual trigger; here a webhook starts it.
	table = await ensureTable(
		session,
		await personalProjectId(session),
		'decision_reviews',
		LABELED_ROW_COLUMNS,
	);

	// One after the other (the harness finds each execution as the one new execution), each left
	// waiting: both wait at once.
	for (const [batch, tickets] of BATCHES.entries()) {
		const id = await triggerWebhook(session, WORKFLOW_ID, WEBHOOK_PATH, {
			tickets: tickets.map((ticket, index) => ticketItem(ticket, index, `batch-${batch}`)),
		});
		const waiting = await waitForExecution(session, id, ['waiting'], 180_000);
		runs.push({ tickets, id, waiting, link: waitingLinkIn(waiting, MESSAGE_NODE) });
	}
	waitingAtOnce = (await listExecutions(session, WORKFLOW_ID))
		.filter((each) => each.status === 'waiting')
		.map((each) => each.id)
		.sort();
	decidesBeforeSubmit = decidePosts(exchanges).length;

	// Each execution's link with the other's signature.
	const signatureOf = (link: string) => new URL(link).searchParams.get('signature') ?? '';
	for (const [index, run] of runs.entries()) {
		const other = runs[1 - index];
		const target = new URL(run.link);
		target.searchParams.set('signature', signatureOf(other.link));
		mixed[`GET ${index}`] = (await openPage(target.toString())).status;
		mixed[`POST ${index}`] = (
			await fetch(target, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: 'pick-0=billing',
			})
		).status;
	}

	// Each person opens their own link; both send at the same moment.
	const forms: HtmlForm[] = [];
	for (const run of runs) {
		run.page = await openPage(run.link);
		const form = parseForm(run.page.html);
		fillReview(run.page.html, form, choicesFor(run.tickets));
		forms.push(form);
	}
	startedBeforeSubmit = queue.workers.map((worker) => worker.executions().length);
	const submitted = await Promise.all(runs.map((run, index) => submitForm(run.link, forms[index])));
	for (const [index, run] of runs.entries()) {
		run.submitted = submitted[index];
		run.finished = await waitForExecution(session, run.id, ['success'], 180_000);
	}
});

afterAll(async () => {
	await queue?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

describe(`Review in queue mode: main serves the pages, ${WORKERS} workers run the executions`, () => {
	it('has both executions waiting at once, each with its own signed link', () => {
		expect(runs).toHaveLength(2);
		expect(waitingAtOnce).toEqual(runs.map((run) => run.id).sort());
		for (const run of runs) {
			expect(run.waiting.lastNodeExecuted).toBe(review.review);
			expect(run.link).toMatch(new RegExp(`/webhook-waiting/${run.id}\\?signature=[^&]+$`));
		}
		expect(new URL(runs[0].link).searchParams.get('signature')).not.toBe(
			new URL(runs[1].link).searchParams.get('signature'),
		);
	});

	it("refuses one execution's link with the other's signature", () => {
		expect(mixed).toEqual({ 'GET 0': 401, 'POST 0': 401, 'GET 1': 401, 'POST 1': 401 });
	});

	it('serves each page from main with its own tickets only, and no key', () => {
		for (const run of runs) {
			expect(run.page?.status).toBe(200);
			for (const key of Object.values(DEMO_KEYS)) expect(run.page?.html).not.toContain(key);
			for (const ticket of REVIEW_TICKETS)
				expect({ ticket: ticket.subject, shown: run.page!.html.includes(ticket.subject) }).toEqual({
					ticket: ticket.subject,
					shown: run.tickets.includes(ticket) && isDoubtful(ticket),
				});
		}
	});

	it('resumes each execution on a worker, and each ticket ends where it should', () => {
		for (const run of runs) {
			expect(run.submitted?.status).toBe(200);
			expect(run.finished?.status).toBe('success');
			expect(whereItemsEnded(run.finished!, review.finalNodes)).toEqual(
				expectedEnds(run.tickets, review),
			);
			const notReviewed = run.finished!.outputs[review.review][0] ?? [];
			expect(notReviewed.map((item) => item.json.subject)).toEqual(
				laterOf(run.tickets).map((ticket) => ticket.subject),
			);
			expect(review.reviewOutputs[0]).toBe(NOT_REVIEWED);
		}
		// Each execution started twice on the workers (its first run, then its resumption), never on
		// main; which worker resumed which is the queue's choice.
		const started = queue.workers.map((worker) => worker.executions());
		const resumed = started.map((ids, worker) => ids.slice(startedBeforeSubmit[worker]));
		for (const run of runs) {
			expect({ id: run.id, runs: started.flat().filter((id) => id === run.id).length }).toEqual({
				id: run.id,
				runs: 2,
			});
			expect({ id: run.id, resumed: resumed.flat().filter((id) => id === run.id).length }).toEqual({
				id: run.id,
				resumed: 1,
			});
		}
		expect(queue.mainLog.join('')).not.toMatch(/started execution/);
		process.stdout.write(
			`review in queue mode: ${runs
				.map(
					(run) =>
						`execution ${run.id} first ran on worker ${started.findIndex((ids, worker) => ids.slice(0, startedBeforeSubmit[worker]).includes(run.id)) + 1}, resumed on worker ${resumed.findIndex((ids) => ids.includes(run.id)) + 1}`,
				)
				.join('; ')}\n`,
		);
	});

	it('sends one feedback per reviewed run and decides nothing again', async () => {
		const sent = feedbackPosts(exchanges);
		const expected: string[] = [];
		for (const run of runs) {
			const runIds = runIdsBySubject(run.finished!, review.decide);
			for (const ticket of reviewedOf(run.tickets)) {
				const runId = runIds.get(ticket.subject)!;
				expected.push(runId);
				const stored = await sb.control<{ feedback?: unknown }>('GET', `/runs/${runId}?key=${KEY}`);
				expect({ ticket: ticket.subject, feedback: stored.feedback }).toEqual({
					ticket: ticket.subject,
					feedback: expectedFeedback(ticket),
				});
			}
		}
		expect(sent.map(runIdOfPost).sort()).toEqual(expected.sort());
		expect(decidePosts(exchanges)).toHaveLength(decidesBeforeSubmit);
		expect(decidesBeforeSubmit).toBe(REVIEW_TICKETS.length);
		expect((await sb.usage(KEY)).used).toBe(REVIEW_TICKETS.length);
	});

	it('never put the API key in a stored execution', async () => {
		for (const run of runs) expect((await readExecution(session, run.id)).raw).not.toContain(KEY);
	});
});

describe('each review stored once in queue mode, by the workers', () => {
	let rows: Row[];
	let labels: Execution;
	let labelRows: Row[];

	beforeAll(async () => {
		// The reviews' rows (the tickets left for later have `not_reviewed` rows too).
		rows = (await readRows(session, table)).filter((row) => row.status === 'reviewed');
		// A classify review after the route reviews (their usage and feedback counted above).
		await sb.control('POST', '/decisions/content-labels/versions', {
			key: KEY,
			confidence_threshold: 1,
			uncertainty_policy: 'uncertain_branch',
		});
		const started = await triggerWebhook(session, CLASSIFY.id, CLASSIFY.path, {
			items: LABEL_MESSAGES.map(({ text }) => ({ text })),
		});
		const waiting = await waitForExecution(session, started, ['waiting'], 180_000);
		const link = waitingLinkIn(waiting, MESSAGE_NODE);
		const page = await openPage(link);
		const form = parseForm(page.html);
		fillReview(
			page.html,
			form,
			LABEL_MESSAGES.map(({ text, labels: picked }) => ({ marker: text, labels: picked })),
		);
		await submitForm(link, form);
		labels = await waitForExecution(session, started, ['success', 'error', 'crashed'], 180_000);
		labelRows = (await readRows(session, table)).filter((row) => row.execution_id === labels.id);
	});

	it('stores one row per reviewed ticket of each execution, its id the execution and the run', () => {
		for (const run of runs) {
			const runIds = runIdsBySubject(run.finished!, review.decide);
			const stored = rows.filter((row) => row.execution_id === run.id);
			expect(stored.map((row) => row.review_id).sort()).toEqual(
				reviewedOf(run.tickets)
					.map((ticket) => `${run.id}/${runIds.get(ticket.subject)}`)
					.sort(),
			);
		}
		expect(rows).toHaveLength(runs.flatMap((run) => reviewedOf(run.tickets)).length);
	});

	it('stores a classify review with two labels, on two outputs, once', () => {
		expect(labels.status).toBe('success');
		const onOutputs = (text: string) =>
			(labels.outputs.Review ?? []).filter((items) => items.some((item) => item.json.text === text))
				.length;
		expect(LABEL_MESSAGES.map(({ text }) => onOutputs(text))).toEqual([2, 1]);
		expect(labels.outputs[STORE_BRANCH[1]]?.[0]).toHaveLength(3);
		expect(labelRows).toHaveLength(LABEL_MESSAGES.length);
		expect(new Set(labelRows.map((row) => row.review_id)).size).toBe(LABEL_MESSAGES.length);
		for (const { text, labels: picked } of LABEL_MESSAGES) {
			const row = labelRows.find((each) => String(each.input).includes(text));
			expect({ text, answer: String(row?.answer).split(',').sort() }).toEqual({
				text,
				answer: [...picked].sort(),
			});
		}
	});
});
