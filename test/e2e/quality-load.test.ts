/**
 * The labeled CSV loads in one run (issue 37), in real n8n with its Data Tables: the example
 * examples/quality-load-labeled.json as shipped and published, its form (n8n's Form Trigger, a
 * file field) sent the shipped CSV examples/ticket-routing-labeled-reviews.csv as a browser
 * sends it. Every row lands in `decision_reviews` (created by the workflow) in the table's
 * columns; the same file sent again stores nothing twice (the Upsert keyed on `review_id`).
 *
 * On n8n 2.x only (jest project `n8n 2.x`): the example's Data Table nodes find the table by name
 * and create it, which n8n 1.123's Data Table node cannot (docs/quality-watch.md, "n8n versions").
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTable, personalProjectId, readRows, type Row } from '../../harness/n8n-data-tables';
import type { N8nInstance } from '../../harness/n8n-env';
import { n8nVersion } from '../../harness/n8n-install';
import {
	listExecutions,
	readExample,
	startN8nWithWorkflows,
	waitForExecution,
	type Execution,
	type OwnerSession,
} from '../../harness/n8n-executions';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { makeLabeledSet, reviewRowOf } from '../../scripts/make-labeled-set';

jest.setTimeout(600_000);

const CSV_FILE = join(__dirname, '..', '..', 'examples', 'ticket-routing-labeled-reviews.csv');
const example = readExample('quality-load-labeled.json');
const formNode = example.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')!;
const FORM_PATH = String((formNode as { webhookId?: string }).webhookId);

/**
 * Sends the CSV to the published form as a browser does (multipart, the file field is the form's
 * first: `field-0`) and returns the execution it started, finished.
 */
async function uploadCsv(session: OwnerSession, csv: string): Promise<Execution> {
	const workflowId = String(example.id);
	const before = new Set((await listExecutions(session, workflowId)).map((each) => each.id));
	const registered = Date.now() + 60_000;
	let response: Response;
	for (;;) {
		const body = new FormData();
		body.append('field-0', new Blob([csv], { type: 'text/csv' }), 'labeled.csv');
		response = await fetch(`${session.url}/form/${FORM_PATH}`, { method: 'POST', body });
		// n8n 2.41 publishes in the background: a form not registered yet answers 404.
		if (response.status !== 404 || Date.now() > registered) break;
		await response.text();
		await new Promise((resolveWait) => setTimeout(resolveWait, 500));
	}
	if (!response.ok)
		throw new Error(`the form answered ${response.status}: ${await response.text()}`);
	await response.text();
	const deadline = Date.now() + 60_000;
	for (;;) {
		const started = (await listExecutions(session, workflowId)).find(
			(each) => !before.has(each.id),
		);
		if (started) return waitForExecution(session, started.id, ['success', 'error', 'crashed']);
		if (Date.now() > deadline) throw new Error('the form started no execution');
		await new Promise((resolveWait) => setTimeout(resolveWait, 500));
	}
}

describe(`loading the labeled CSV into decision_reviews, in n8n ${n8nVersion()}`, () => {
	let sb: TestSandbox;
	let n8n: N8nInstance;
	let session: OwnerSession;
	let work: string;
	const csv = readFileSync(CSV_FILE, 'utf8');
	const expected = makeLabeledSet().map(reviewRowOf);

	beforeAll(async () => {
		sb = await startTestSandbox();
		work = mkdtempSync(join(tmpdir(), 'decision-service-quality-load-'));
		({ n8n, session } = await startN8nWithWorkflows({
			work,
			sandboxBaseUrl: sb.baseUrl,
			apiKey: DEMO_KEYS.pro,
			workflows: [example],
		}));
	});

	afterAll(async () => {
		await n8n?.stop();
		await sb?.close();
		if (work) rmSync(work, { recursive: true, force: true });
	});

	const columnsOf = (rows: Row[]) =>
		rows.map(({ review_id, status, answer, decision, input }) => ({
			review_id,
			status,
			answer,
			decision,
			input,
		}));

	it('opens the form with a file field', async () => {
		// n8n 2.41 publishes in the background: the form may answer 404 for a few seconds.
		const registered = Date.now() + 60_000;
		let page = await fetch(`${session.url}/form/${FORM_PATH}`);
		while (page.status === 404 && Date.now() < registered) {
			await page.text();
			await new Promise((resolveWait) => setTimeout(resolveWait, 500));
			page = await fetch(`${session.url}/form/${FORM_PATH}`);
		}
		const html = await page.text();
		expect(page.status).toBe(200);
		expect(html).toContain('Labeled CSV');
		expect(html).toMatch(/type=["']?file/);
	});

	it('stores every row of the CSV in one run, in the table it creates; a second load stores nothing twice', async () => {
		const first = await uploadCsv(session, csv);
		expect({ status: first.status, error: first.error }).toEqual({
			status: 'success',
			error: undefined,
		});
		const table = await findTable(session, await personalProjectId(session), 'decision_reviews');
		expect(table).toBeDefined();
		const rows = await readRows(session, table!);
		expect(rows).toHaveLength(240);
		expect(columnsOf(rows)).toEqual(expected);

		const second = await uploadCsv(session, csv);
		expect(second.status).toBe('success');
		const again = await readRows(session, table!);
		expect(again).toHaveLength(240);
		expect(columnsOf(again)).toEqual(expected);
		// Upserted in place: the same rows, not new ones.
		expect(again.map((row) => row.id)).toEqual(rows.map((row) => row.id));
	});
});
