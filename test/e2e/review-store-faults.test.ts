/**
 * No review and no ticket is lost (issue 44), in real n8n 2.41.1 with its own Data Tables: the
 * review example (examples/ticket-routing-review.json) hands its reviews to the store sub-workflow
 * (examples/review-store.json, an Upsert on `review_id`, waited for with On Error: Continue), and
 * the audit example's drain stores them with the same node before they leave the queue.
 *
 * Each fault is made as a team meets it, while the review page waits, through n8n's own REST calls
 * (what the Data Tables tab does): a column removed, the table deleted, the table renamed; then the
 * person submits the page. Each ends with every ticket at its team and, for the reviews, either
 * every one stored or a red execution whose error names the cause and whose *Store review* input
 * holds them; n8n's Retry of that execution (after the table is fixed) stores each one once. Also:
 * the same page submitted twice, a red store retried twice, n8n killed between the review and the
 * store (the crashed executions retried after a restart), the audit queue's store failing (nothing
 * leaves the queue; the retry stores the reviews and empties their rows).
 *
 * n8n 2.x only: Review waits on n8n 2's signed resume URL only, and n8n 1.123's Data Table node
 * finds a table by its id only (the store's Upsert on 1.x: test/e2e/review-store-once.test.ts).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LABELED_ROW_COLUMNS } from '../../src/answer';
import { AUDIT_QUEUE_COLUMNS } from '../../src/answer/audit';
import {
	addColumn,
	deleteColumn,
	deleteTable,
	ensureTable,
	findTable,
	personalProjectId,
	readRows,
	renameTable,
	type DataTable,
	type Row,
} from '../../harness/n8n-data-tables';
import { startN8n, type N8nInstance } from '../../harness/n8n-env';
import {
	listExecutions,
	ownerSession,
	readExample,
	retryExecution,
	startN8nWithWorkflows,
	triggerWebhook,
	waitForExecution,
	type Execution,
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
	whereItemsEnded,
	type HtmlForm,
} from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { AUDIT_EXAMPLE, QUEUE_TABLE } from '../../scripts/make-audit-example';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import { REVIEWS_TABLE, STORE_WORKFLOW } from '../../scripts/make-review-store';
import {
	REVIEW_TICKETS,
	choicesFor,
	expectedEnds,
	reviewedOf,
	runIdsBySubject,
	ticketItem,
} from '../support/review';
import { STORE_NODE, storeWorkflow } from '../support/review-store';

jest.setTimeout(900_000);

const KEY = DEMO_KEYS.pro;
const TWO = n8nMajor(n8nVersion()) >= 2;
const REVIEW = { id: 'dsStoreFaults', name: 'Store faults: review', path: 'store-faults' };
const AUDIT_ROUTE = { id: 'dsStoreFaultsQueue', name: 'Store faults: queue', path: 'faults-route' };
const AUDIT_DRAIN = { id: 'dsStoreFaultsDrain', name: 'Store faults: drain', path: 'faults-drain' };
const KILL_NODE = 'Kill switch (test)';
/** The column a team removes: every review row has a value in it. */
const COLUMN = 'stratum';

const review = reviewWorkflow(REVIEW);
const reviewed = reviewedOf(REVIEW_TICKETS);

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let project: string;
let table: DataTable;
/** Kill switch: the first request after it is armed kills n8n and gets no answer; others echo. */
let killer: Server;
let killerUrl: string;
let armed = false;

/**
 * The store sub-workflow with a node of the test's between its trigger and *Store review*: a POST
 * of each row to the kill switch, which answers it as it was sent (the row goes on unchanged).
 */
function storeWithKillSwitch(): WorkflowJson {
	const store = storeWorkflow();
	const trigger = store.nodes.find((node) => node.type.endsWith('executeWorkflowTrigger'))!;
	return {
		...store,
		nodes: [
			...store.nodes,
			{
				id: 'c0ffee00-0000-4000-8000-000000000001',
				name: KILL_NODE,
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [110, 500],
				parameters: {
					method: 'POST',
					url: killerUrl,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					options: {},
				},
			} as WorkflowJson['nodes'][number],
		],
		connections: {
			...store.connections,
			[trigger.name]: { main: [[{ node: KILL_NODE, type: 'main', index: 0 }]] },
			[KILL_NODE]: { main: [[{ node: STORE_NODE, type: 'main', index: 0 }]] },
		},
	};
}

/** A Webhook trigger node's type and parameters, its webhookId a UUID as n8n gives one. */
const webhook = (id: string, path: string) => ({
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	// The example's schedule ships switched off (the editor's main button runs Run example); the
	// webhook that stands in for it must be on.
	disabled: false,
	webhookId: createHash('sha256')
		.update(`${id}/${path}`)
		.digest('hex')
		.slice(0, 32)
		.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
	parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
});

/** The nodes of `workflow` reachable from `start` (itself included), through `follow`'s wires. */
function reachable(
	workflow: WorkflowJson,
	start: string,
	follow: (node: string, output: number) => boolean = () => true,
): Set<string> {
	const seen = new Set([start]);
	for (const name of seen)
		(workflow.connections[name]?.main ?? []).forEach((targets, output) => {
			if (follow(name, output)) for (const target of targets ?? []) seen.add(target.node);
		});
	return seen;
}

/** The part of `workflow` in `names`, its trigger `trigger` replaced by a webhook at `path`. */
function partOf(
	workflow: WorkflowJson,
	part: { id: string; name: string; trigger: string; path: string; names: Set<string> },
): WorkflowJson {
	return {
		...workflow,
		id: part.id,
		name: part.name,
		active: false,
		nodes: workflow.nodes
			.filter((node) => part.names.has(node.name))
			.map((node) => {
				if (node.name === part.trigger) return { ...node, ...webhook(part.id, part.path) };
				if (node.name === 'Sample tickets')
					return { ...node, parameters: { ...node.parameters, jsonOutput: '={{ $json.body }}' } };
				return node;
			}),
		connections: Object.fromEntries(
			Object.entries(workflow.connections)
				.filter(([name]) => part.names.has(name))
				.map(([name, { main }]) => [
					name,
					{ main: main.map((targets) => (targets ?? []).filter((t) => part.names.has(t.node))) },
				]),
		),
	};
}

/**
 * The audit example as two workflows of the test's, each its trigger replaced by a webhook: the
 * route part down to *Queue for audit* only (Route ticket's Audit output: the other outputs, the
 * doubtful tickets' review included, are another test's), and the drain (flow B) whole.
 */
function auditWorkflows(): { route: WorkflowJson; drain: WorkflowJson } {
	const workflow = readExample(AUDIT_EXAMPLE);
	const trigger = (type: string) => workflow.nodes.find((node) => node.type === type)!.name;
	const audit = (workflow.connections['Route ticket']?.main ?? []).findIndex((targets) =>
		(targets ?? []).some((target) => target.node === 'Queue for audit'),
	);
	const route = reachable(
		workflow,
		trigger('n8n-nodes-base.manualTrigger'),
		(node, output) => node !== 'Route ticket' || output === audit,
	);
	const drain = reachable(workflow, trigger('n8n-nodes-base.scheduleTrigger'));
	return {
		route: partOf(workflow, {
			...AUDIT_ROUTE,
			trigger: trigger('n8n-nodes-base.manualTrigger'),
			names: route,
		}),
		drain: partOf(workflow, {
			...AUDIT_DRAIN,
			trigger: trigger('n8n-nodes-base.scheduleTrigger'),
			names: drain,
		}),
	};
}

const FINISHED = ['success', 'error', 'crashed'];

/** The processes a process started (Linux's /proc). */
function childrenOf(pid: number): number[] {
	try {
		return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
			.trim()
			.split(/\s+/)
			.filter(Boolean)
			.map(Number);
	} catch {
		return [];
	}
}

/** 40 labeled tickets, each subject made unique (the page's items are found by it). */
const AUDIT_TICKETS = makeLabeledSet()
	.slice(0, 40)
	.map((ticket, index) => ({
		subject: `${ticket.subject} (F${index})`,
		body: ticket.body,
		email: `faults-${index}@example.com`,
		plan: 'pro',
	}));

/** The executions of the store sub-workflow not in `before`, oldest first. */
async function newStores(before: Set<string>): Promise<Execution[]> {
	const ids = (await listExecutions(session, STORE_WORKFLOW.id))
		.map((each) => each.id)
		.filter((id) => !before.has(id))
		.sort((a, b) => Number(a) - Number(b));
	return Promise.all(ids.map((id) => waitForExecution(session, id, FINISHED)));
}
const storeIds = async () =>
	new Set((await listExecutions(session, STORE_WORKFLOW.id)).map((each) => each.id));

interface Round {
	parent: Execution;
	stores: Execution[];
	link: string;
	form: HtmlForm;
}

/**
 * The review example on the sample tickets: `fault` runs while the page waits, then the person
 * sends their picks; the finished execution, the store executions it started, the page's form.
 */
async function reviewRound(tag: string, fault: () => Promise<void>): Promise<Round> {
	const before = await storeIds();
	const started = await triggerWebhook(session, REVIEW.id, REVIEW.path, {
		tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index, tag)),
	});
	const waiting = await waitForExecution(session, started, ['waiting']);
	const link = waitingLinkIn(waiting, MESSAGE_NODE);
	const page = await openPage(link);
	const form = parseForm(page.html);
	fillReview(page.html, form, choicesFor(REVIEW_TICKETS));
	await fault();
	await submitForm(link, form);
	const parent = await waitForExecution(session, started, FINISHED);
	return { parent, stores: await newStores(before), link, form };
}

const rowsOf = async (execution: Execution) =>
	(await readRows(session, table)).filter((row) => row.execution_id === execution.id);

/** What a team checks: one row per reviewed ticket, its id the execution and the run, its pick. */
function expectEveryReviewOnce(all: Row[], parent: Execution) {
	// One row per review_id; the reviewed ones (rows of items left for later may be there too).
	expect(new Set(all.map((row) => row.review_id)).size).toBe(all.length);
	const rows = all.filter((row) => row.status === 'reviewed');
	const runIds = runIdsBySubject(parent, review.decide);
	expect(rows.map((row) => row.review_id).sort()).toEqual(
		reviewed.map((ticket) => `${parent.id}/${runIds.get(ticket.subject)}`).sort(),
	);
	for (const ticket of reviewed)
		expect({
			ticket: ticket.subject,
			answer: rows.find((row) => row.run_id === runIds.get(ticket.subject))?.answer,
		}).toEqual({ ticket: ticket.subject, answer: ticket.pick });
}

function expectEveryTicketAtItsTeam(parent: Execution) {
	expect(parent.status).toBe('success');
	expect(whereItemsEnded(parent, review.finalNodes)).toEqual(expectedEnds(REVIEW_TICKETS, review));
}

/** Red, its error naming `cause`, the rows it was given in the input of *Store review*. */
function expectRedNaming(store: Execution, cause: RegExp) {
	expect({ status: store.status, node: store.lastNodeExecuted }).toEqual({
		status: 'error',
		node: STORE_NODE,
	});
	expect(`${store.error?.message} ${store.error?.description ?? ''}`).toMatch(cause);
}

/** Retries each execution and waits for the retry; the retries. */
async function retryAll(executions: Execution[]): Promise<Execution[]> {
	const retries: Execution[] = [];
	for (const execution of executions)
		retries.push(
			await waitForExecution(session, await retryExecution(session, execution.id), FINISHED),
		);
	return retries;
}

beforeAll(async () => {
	if (!TWO) return;
	killer = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			if (armed) {
				armed = false;
				// n8n and the task runner it started, as an out-of-memory kill or a power cut would.
				const pid = n8n?.process?.pid;
				if (pid) for (const child of childrenOf(pid)) process.kill(child, 'SIGKILL');
				n8n?.process?.kill('SIGKILL');
				return;
			}
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(Buffer.concat(chunks));
		});
	});
	await new Promise<void>((done) => killer.listen(0, '127.0.0.1', done));
	killerUrl = `http://127.0.0.1:${(killer.address() as { port: number }).port}/echo`;
	sb = await startTestSandbox();
	work = mkdtempSync(join(tmpdir(), 'decision-service-store-faults-'));
	({ n8n, session } = await startN8nWithWorkflows({
		work,
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflows: [
			review.workflow,
			storeWithKillSwitch(),
			auditWorkflows().route,
			auditWorkflows().drain,
		],
	}));
	project = await personalProjectId(session);
	// The example creates its table from its manual trigger; here a webhook starts it.
	table = await ensureTable(session, project, REVIEWS_TABLE, LABELED_ROW_COLUMNS);
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	killer?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

(TWO ? describe : describe.skip)(`the review store under faults, in n8n ${n8nVersion()}`, () => {
	it('stores every review once; the page submitted again changes nothing', async () => {
		const round = await reviewRound('plain', async () => {});
		expectEveryTicketAtItsTeam(round.parent);
		expect(round.stores.map((store) => store.status)).toEqual(round.stores.map(() => 'success'));
		const rows = await rowsOf(round.parent);
		expectEveryReviewOnce(rows, round.parent);

		// The same page sent again: n8n refuses it (the execution no longer waits), nothing moves.
		const again = await submitForm(round.link, round.form);
		expect(again.status).toBeGreaterThanOrEqual(400);
		expect(await newStores(await storeIds())).toEqual([]);
		expect(await rowsOf(round.parent)).toEqual(rows);
	});

	it('a column removed: every ticket at its team, the store red naming the column; Retry (twice) stores each review once', async () => {
		const round = await reviewRound('column', () => deleteColumn(session, table, COLUMN));
		expectEveryTicketAtItsTeam(round.parent);
		expect(round.stores.length).toBeGreaterThan(0);
		for (const store of round.stores) expectRedNaming(store, new RegExp(COLUMN));
		// The reviews are in what n8n kept: the red executions' input of Store review.
		const kept = round.stores.flatMap((store) =>
			(store.outputs['Reviews to store']?.[0] ?? [])
				.filter((item) => item.json.status === 'reviewed')
				.map((item) => item.json.review_id),
		);
		expect(kept.sort()).toEqual(
			reviewed
				.map(
					(ticket) =>
						`${round.parent.id}/${runIdsBySubject(round.parent, review.decide).get(ticket.subject)}`,
				)
				.sort(),
		);
		expect(await rowsOf(round.parent)).toEqual([]);

		await addColumn(session, table, LABELED_ROW_COLUMNS.find((each) => each.name === COLUMN)!);
		const retried = await retryAll(round.stores);
		expect(retried.map((each) => each.status)).toEqual(retried.map(() => 'success'));
		expectEveryReviewOnce(await rowsOf(round.parent), round.parent);
		// A second click on Retry of the same red execution: still one row per review.
		await retryAll(round.stores);
		expectEveryReviewOnce(await rowsOf(round.parent), round.parent);
	});

	it('the table deleted: every ticket at its team, the store red; the table created again and Retry stores them', async () => {
		const round = await reviewRound('deleted', () => deleteTable(session, table));
		expectEveryTicketAtItsTeam(round.parent);
		expect(round.stores.length).toBeGreaterThan(0);
		for (const store of round.stores) expectRedNaming(store, new RegExp(REVIEWS_TABLE));
		table = await ensureTable(session, project, REVIEWS_TABLE, LABELED_ROW_COLUMNS);
		expect(await rowsOf(round.parent)).toEqual([]);
		const retried = await retryAll(round.stores);
		expect(retried.map((each) => each.status)).toEqual(retried.map(() => 'success'));
		expectEveryReviewOnce(await rowsOf(round.parent), round.parent);
	});

	it('the table renamed: to a name without decision_reviews, the store red, renamed back, Retry stores them; to a longer name, the reviews go to it', async () => {
		const round = await reviewRound('renamed', () => renameTable(session, table, 'old reviews'));
		expectEveryTicketAtItsTeam(round.parent);
		expect(round.stores.length).toBeGreaterThan(0);
		for (const store of round.stores) expectRedNaming(store, new RegExp(REVIEWS_TABLE));
		await renameTable(session, table, REVIEWS_TABLE);
		const retried = await retryAll(round.stores);
		expect(retried.map((each) => each.status)).toEqual(retried.map(() => 'success'));
		expectEveryReviewOnce(await rowsOf(round.parent), round.parent);

		// n8n's Data Table node finds a table "by name" as a part of its name (the most recently
		// changed first): renamed decision_reviews_2025, the table still gets the reviews.
		const longer = await reviewRound('longer', () =>
			renameTable(session, table, `${REVIEWS_TABLE}_2025`),
		);
		expectEveryTicketAtItsTeam(longer.parent);
		expect(longer.stores.map((store) => store.status)).toEqual(longer.stores.map(() => 'success'));
		expectEveryReviewOnce(await rowsOf(longer.parent), longer.parent);
		await renameTable(session, table, REVIEWS_TABLE);
	});

	it('n8n killed between the review and the store: after a restart, Retry of the crashed executions stores every review once and every ticket reaches its team', async () => {
		const before = await storeIds();
		const started = await triggerWebhook(session, REVIEW.id, REVIEW.path, {
			tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index, 'killed')),
		});
		const waiting = await waitForExecution(session, started, ['waiting']);
		const link = waitingLinkIn(waiting, MESSAGE_NODE);
		const page = await openPage(link);
		const form = parseForm(page.html);
		fillReview(page.html, form, choicesFor(REVIEW_TICKETS));
		armed = true;
		const exited = new Promise((done) => n8n!.process!.once('exit', done));
		await submitForm(link, form).catch(() => undefined);
		await exited;
		n8n = await startN8n(n8n!);
		session = await ownerSession(n8n.url);

		const crashed = await waitForExecution(session, started, FINISHED);
		expect(crashed.status).toBe('crashed');
		const stores = await newStores(before);
		expect(stores.map((store) => store.status)).toEqual(['crashed']);
		expect(await rowsOf(crashed)).toEqual([]);

		// The review workflow's execution goes on from its last saved node: the store, the teams.
		const [parent] = await retryAll([crashed]);
		expect(parent.status).toBe('success');
		expectEveryReviewOnce(await rowsOf(crashed), crashed);
		// A team may retry the store's own crashed execution too: it stores nothing twice.
		const [store] = await retryAll(stores);
		console.log(
			`store faults e2e: the crashed store execution retried: ${store.status} ${JSON.stringify(store.error ?? null)}`,
		);
		const rows = await rowsOf(crashed);
		expectEveryReviewOnce(rows, crashed);
		const ended = whereItemsEnded(crashed, review.finalNodes);
		const after = whereItemsEnded(parent, review.finalNodes);
		const all = Object.fromEntries(
			REVIEW_TICKETS.map((ticket) => [
				ticket.subject,
				[...(ended[ticket.subject] ?? []), ...(after[ticket.subject] ?? [])].filter(
					(node, index, each) => each.indexOf(node) === index,
				),
			]),
		);
		expect(all).toEqual(expectedEnds(REVIEW_TICKETS, review));
	});

	it("the audit queue's store failing: nothing leaves the queue; Retry stores the reviews and then they leave it", async () => {
		await triggerWebhook(session, AUDIT_ROUTE.id, AUDIT_ROUTE.path, {
			tickets: AUDIT_TICKETS,
		}).then((id) => waitForExecution(session, id, ['success']));
		const queue = (await findTable(session, project, QUEUE_TABLE)) as DataTable;
		expect(queue).toBeDefined();
		const queued = await readRows(session, queue);
		expect(queued.length).toBeGreaterThan(0);
		expect(Object.keys(queued[0])).toEqual(
			expect.arrayContaining(AUDIT_QUEUE_COLUMNS.map((column) => column.name)),
		);

		await deleteColumn(session, table, COLUMN);
		const drain = await triggerWebhook(session, AUDIT_DRAIN.id, AUDIT_DRAIN.path, {}).catch(
			async (error: Error) => {
				const why = await fetch(`${session.url}/rest/active-workflows/error/${AUDIT_DRAIN.id}`, {
					headers: { cookie: session.cookie, 'browser-id': 'decision-service-setup' },
				}).then((response) => response.text());
				throw new Error(`${error.message}; n8n's activation error: ${why}`);
			},
		);
		const waiting = await waitForExecution(session, drain, ['waiting']);
		const link = waitingLinkIn(waiting, MESSAGE_NODE);
		const page = await openPage(link);
		const form = parseForm(page.html);
		const subjects = queued.map(
			(row) => (JSON.parse(String(row.item)) as { subject: string }).subject,
		);
		fillReview(
			page.html,
			form,
			queued.map((row, index) => ({ marker: subjects[index], answer: String(row.machine_answer) })),
		);
		await submitForm(link, form);
		const failed = await waitForExecution(session, drain, FINISHED);
		expectRedNaming(failed, new RegExp(COLUMN));
		expect((await readRows(session, queue)).map((row) => row.id)).toEqual(
			queued.map((row) => row.id),
		);

		await addColumn(session, table, LABELED_ROW_COLUMNS.find((each) => each.name === COLUMN)!);
		const [retried] = await retryAll([failed]);
		expect(retried.status).toBe('success');
		const stored = (await readRows(session, table)).filter(
			(row) => row.execution_id === drain && row.status === 'reviewed',
		);
		expect(stored.map((row) => row.run_id).sort()).toEqual(queued.map((row) => row.run_id).sort());
		expect(stored.every((row) => row.stratum === 'audited')).toBe(true);
		expect(await readRows(session, queue)).toEqual([]);
	});
});
