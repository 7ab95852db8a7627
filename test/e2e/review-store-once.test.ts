/**
 * A review is stored once (issue 37, point 1; issue 44), in real n8n with its own Data Tables: the
 * review example's store branch (examples/ticket-routing-review.json) is *Reviewed by a person* →
 * *Labeled row* → *Store reviews* (Execute Workflow, waiting) running examples/review-store.json,
 * whose *Store review* is a Data Table Upsert on `review_id`. Review puts a classify review on each
 * picked label's output, so its copies reach the branch in separate runs with one `review_id`; the
 * first stores it, the others find its row and leave one.
 *
 * - Both n8n versions: the branch fed by a webhook, one copy of an item per label it holds (as
 *   Review's outputs): a two-label review leaves one row; the same reviews sent again (what a
 *   re-run of the execution sends) store nothing twice and change no row, a new one is stored.
 *   n8n 1.x picks the table by id (its Data Table node has no "By Name"), so there the branch
 *   ends with the sub-workflow's *Store review* itself (test/support/review-store.ts).
 * - n8n 2.x, a person reviewing (Review waits on n8n 2's signed resume URL only): the route example
 *   stores one row per reviewed ticket, and reviewing the same tickets again in a new execution
 *   adds their rows, losing none; a classify review with two labels picked, on two outputs, leaves
 *   one row.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LABELED_ROW_COLUMNS, reviewRow } from '../../src/answer';
import {
	ensureTable,
	personalProjectId,
	readRows,
	type DataTable,
	type Row,
} from '../../harness/n8n-data-tables';
import type { N8nInstance } from '../../harness/n8n-env';
import {
	startN8nWithWorkflows,
	triggerWebhook,
	waitForExecution,
	type Execution,
	type Item,
	type OwnerSession,
	type WorkflowJson,
} from '../../harness/n8n-executions';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import {
	MESSAGE_NODE,
	fillReview,
	openPage,
	parseForm,
	reviewWorkflow,
	submitForm,
	waitingLinkIn,
} from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import {
	REVIEW_TICKETS,
	choicesFor,
	reviewedOf,
	runIdsBySubject,
	ticketItem,
} from '../support/review';
import {
	LABEL_MESSAGES,
	STORE_BRANCH,
	classifyReviewWorkflow,
	copiesPerLabelWorkflow,
} from '../support/review-store';

jest.setTimeout(900_000);

const KEY = DEMO_KEYS.pro;
const TWO = n8nMajor(n8nVersion()) >= 2;
const ROUTE = {
	id: 'dsStoreOnceRoute',
	name: 'Store once: route review',
	path: 'store-once-route',
};
const CLASSIFY = {
	id: 'dsStoreOnceLabels',
	name: 'Store once: classify review',
	path: 'store-once-labels',
};
const COPIES = {
	id: 'dsStoreOnceCopies',
	name: 'Store once: a copy per label',
	path: 'store-once-copies',
};
const LABELS = ['spam', 'promotion', 'question'];
/** n8n 1.x: the table by its id, sent with the items. */
const TABLE_ID_FROM_BODY = "={{ $('Items in').first().json.body.table_id }}";

const route = reviewWorkflow(ROUTE);
/** The branch's last node: the sub-workflow's answer (its stored rows), or on 1.x the store itself. */
const STORE = STORE_BRANCH[2];

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let table: DataTable;

const rowsWhere = async (check: (row: Row) => boolean) =>
	(await readRows(session, table)).filter(check);
/** A review's row of that execution (its tickets left for later have `not_reviewed` rows too). */
const reviewedIn = (row: Row, execution: string) =>
	row.execution_id === execution && row.status === 'reviewed';
/** A row's content: every column but the table's own id and times. */
const content = (row: Row) =>
	Object.fromEntries(
		Object.entries(row).filter(([key]) => !['id', 'createdAt', 'updatedAt'].includes(key)),
	);
const reviewIdsOf = (items: Item[] | undefined) =>
	(items ?? []).map((item) => String(item.json.review_id));
/** The items a node output over all its runs (its first output). */
const outputOf = (execution: Execution, node: string) => execution.outputs[node]?.[0] ?? [];

async function run(workflow: { id: string; path: string }, body: unknown): Promise<Execution> {
	const id = await triggerWebhook(session, workflow.id, workflow.path, body);
	return waitForExecution(session, id, ['success', 'error', 'crashed']);
}

/** A person opens the review link the execution wrote and sends the choices. */
async function reviewAndFinish(
	started: string,
	choices: Parameters<typeof fillReview>[2],
): Promise<Execution> {
	const waiting = await waitForExecution(session, started, ['waiting']);
	const link = waitingLinkIn(waiting, MESSAGE_NODE);
	const page = await openPage(link);
	const form = parseForm(page.html);
	fillReview(page.html, form, choices);
	await submitForm(link, form);
	return waitForExecution(session, started, ['success', 'error', 'crashed']);
}

beforeAll(async () => {
	sb = await startTestSandbox();
	work = mkdtempSync(join(tmpdir(), 'decision-service-review-store-once-'));
	const workflows: WorkflowJson[] = [
		copiesPerLabelWorkflow(COPIES, LABELS, TWO ? undefined : TABLE_ID_FROM_BODY),
	];
	if (TWO)
		workflows.push(
			route.workflow,
			classifyReviewWorkflow(CLASSIFY, await sb.client(KEY).getDecision('content-labels')),
		);
	({ n8n, session } = await startN8nWithWorkflows({
		work,
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflows,
	}));
	// The example creates its table from its manual trigger; here webhooks start the workflows.
	table = await ensureTable(
		session,
		await personalProjectId(session),
		'decision_reviews',
		LABELED_ROW_COLUMNS,
	);
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

describe(`a review stored once, in n8n ${n8nVersion()}`, () => {
	/** Reviews as Review writes them on its items: `{ text, review }`, the review a table row. */
	const reviewed = (runId: string, text: string, picked: string[]) => ({
		text,
		review: reviewRow({
			picked,
			labels: true,
			agreed: false,
			decision: 'content-labels',
			version: 1,
			runId,
			machineStatus: 'uncertain',
			machineAnswer: ['promotion'],
			confidence: 0.4,
			stratum: 'doubtful',
			input: { text },
			reviewedAt: '2026-11-27T10:00:00.000Z',
			executionId: 'copies-1',
			workflowId: COPIES.id,
		}),
	});
	const twoLabels = reviewed('run-a', 'Promo code inside, act now', ['spam', 'promotion']);
	const oneLabel = reviewed('run-b', 'Where is my order?', ['question']);
	const later = reviewed('run-c', 'Win a free cruise', ['spam']);
	const idOf = (item: { review: Record<string, unknown> }) => String(item.review.review_id);
	const ours = (row: Row) => row.workflow_id === COPIES.id;

	let first: Execution;
	let afterFirst: Row[];
	let again: Execution;
	let afterAgain: Row[];

	beforeAll(async () => {
		const body = (items: unknown[]) => ({ table_id: table.id, items });
		first = await run(COPIES, body([twoLabels, oneLabel]));
		afterFirst = await rowsWhere(ours);
		// What a re-run of that execution sends: the same reviews; and one reviewed since.
		again = await run(COPIES, body([twoLabels, oneLabel, later]));
		afterAgain = await rowsWhere(ours);
	});

	it('a review with two labels reaches the store twice and leaves one row', () => {
		expect(first.status).toBe('success');
		// Two copies of the two-label review, in two runs of the branch, as from two outputs.
		expect(reviewIdsOf(outputOf(first, 'Labeled row')).sort()).toEqual(
			[idOf(twoLabels), idOf(twoLabels), idOf(oneLabel)].sort(),
		);
		expect(first.runData['Labeled row']).toHaveLength(LABELS.length);
		// Each copy went to the store, which answered with the row it holds for that review.
		expect(reviewIdsOf(outputOf(first, STORE)).sort()).toEqual(
			[idOf(twoLabels), idOf(twoLabels), idOf(oneLabel)].sort(),
		);
		expect(afterFirst.map((row) => row.review_id).sort()).toEqual(
			[idOf(twoLabels), idOf(oneLabel)].sort(),
		);
		for (const item of [twoLabels, oneLabel])
			expect(content(afterFirst.find((row) => row.review_id === idOf(item))!)).toEqual(
				Object.fromEntries(
					LABELED_ROW_COLUMNS.map(({ name }) => [name, item.review[name] ?? null]),
				),
			);
	});

	it('the same reviews again store nothing twice and change no row; a new one is stored', () => {
		expect(again.status).toBe('success');
		expect(reviewIdsOf(outputOf(again, STORE))).toContain(idOf(later));
		expect(afterAgain).toHaveLength(3);
		// The first rows are still there as they were: the same table rows, the same content.
		const kept = (rows: Row[]) => rows.map((row) => ({ id: row.id, ...content(row) }));
		expect(kept(afterAgain.slice(0, 2))).toEqual(kept(afterFirst));
		expect(afterAgain[2].review_id).toBe(idOf(later));
	});
});

(TWO ? describe : describe.skip)(`reviewed by a person in n8n ${n8nVersion()}`, () => {
	const reviewedTickets = reviewedOf(REVIEW_TICKETS);
	const routeRows: Row[][] = [];
	const routeRuns: Execution[] = [];
	let firstRowsLater: Row[];
	let labels: Execution;
	let labelRows: Row[];

	beforeAll(async () => {
		// The route example, reviewed twice: two executions, the same tickets, the same picks.
		for (const round of [0, 1]) {
			const started = await triggerWebhook(session, ROUTE.id, ROUTE.path, {
				tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index, `once-${round}`)),
			});
			const finished = await reviewAndFinish(started, choicesFor(REVIEW_TICKETS));
			routeRuns.push(finished);
			routeRows.push(await rowsWhere((row) => reviewedIn(row, finished.id)));
		}
		firstRowsLater = await rowsWhere((row) => reviewedIn(row, routeRuns[0].id));

		// A classify review: the first message with two labels, the second with one.
		await sb.control('POST', '/decisions/content-labels/versions', {
			key: KEY,
			confidence_threshold: 1,
			uncertainty_policy: 'uncertain_branch',
		});
		const started = await triggerWebhook(session, CLASSIFY.id, CLASSIFY.path, {
			items: LABEL_MESSAGES.map(({ text }) => ({ text })),
		});
		labels = await reviewAndFinish(
			started,
			LABEL_MESSAGES.map(({ text, labels: picked }) => ({ marker: text, labels: picked })),
		);
		labelRows = await rowsWhere((row) => row.execution_id === labels.id);
	});

	it('a route review: one row per reviewed ticket, its id the execution and the run', () => {
		const [finished] = routeRuns;
		expect(finished.status).toBe('success');
		const runIds = runIdsBySubject(finished, route.decide);
		const rows = routeRows[0];
		expect(rows).toHaveLength(reviewedTickets.length);
		expect(rows.map((row) => row.review_id).sort()).toEqual(
			reviewedTickets.map((ticket) => `${finished.id}/${runIds.get(ticket.subject)}`).sort(),
		);
		for (const ticket of reviewedTickets) {
			const row = rows.find((each) => each.run_id === runIds.get(ticket.subject));
			expect({ ticket: ticket.subject, answer: row?.answer }).toEqual({
				ticket: ticket.subject,
				answer: ticket.pick,
			});
		}
	});

	it('reviewing the same tickets again in a new execution stores their rows, losing none', () => {
		expect(routeRuns[1].status).toBe('success');
		expect(routeRows[1]).toHaveLength(reviewedTickets.length);
		expect(routeRows[1].map((row) => row.answer).sort()).toEqual(
			routeRows[0].map((row) => row.answer).sort(),
		);
		// The first execution's rows are still there, unchanged.
		expect(firstRowsLater).toEqual(routeRows[0]);
	});

	it('a classify review with two labels picked, on two outputs, leaves one row', () => {
		expect(labels.status).toBe('success');
		// Review put the two-label item on both its labels' outputs.
		const onOutputs = (text: string) =>
			(labels.outputs.Review ?? []).filter((items) => items.some((item) => item.json.text === text))
				.length;
		expect(LABEL_MESSAGES.map(({ text }) => onOutputs(text))).toEqual([2, 1]);
		// Three copies reached the store branch; two reviews were stored.
		expect(outputOf(labels, STORE_BRANCH[1])).toHaveLength(3);
		expect(labelRows).toHaveLength(LABEL_MESSAGES.length);
		expect(new Set(labelRows.map((row) => row.review_id)).size).toBe(LABEL_MESSAGES.length);
		for (const { text, labels: picked } of LABEL_MESSAGES) {
			const row = labelRows.find((each) => String(each.input).includes(text));
			expect({ text, answer: String(row?.answer).split(',').sort() }).toEqual({
				text,
				answer: [...picked].sort(),
			});
		}
		console.log(
			`review store once e2e: route reviews ${routeRows.map((rows) => rows.length).join(' + ')} rows, classify ${labelRows.length} rows for ${LABEL_MESSAGES.length} reviews (3 copies)`,
		);
	});
});
