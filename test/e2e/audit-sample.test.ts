/**
 * The audit sample end to end in real n8n (issue 37, point 5), installed from the packed tarball,
 * with n8n's own Data Tables: examples/ticket-routing-audit.json, its two triggers replaced by
 * webhooks (flow A's manual run, flow B's weekday schedule).
 *
 * 1. Flow A routes 40 tickets twice with Audit Share 20 %: each time the queue
 *    (`decision_audit_queue`, created by the first run) gains one row per confident answer the
 *    test's own draw picks (`inAuditSample` on the input as sent), the same inputs both times; the
 *    answers still reach their teams, marked `audit_share`. One unit per ticket, none more. Its
 *    doubtful tickets wait for a person (the page linked in *Message for doubtful tickets*): each
 *    run reviews them as labeled but the first, left for later, and every one leaves a row in
 *    `decision_reviews` (`stratum: doubtful`; the one left `not_reviewed`).
 * 2. Flow B drains the queue: a person reviews the first copy of each picked ticket on the page
 *    (agreeing with most, not with one) and leaves the second copies. The reviews land in
 *    `decision_reviews` with `stratum: audited` and `audit_share`; the reviewed rows leave the
 *    queue, the others stay for the next drain. No unit.
 * 3. The review example adds doubtful rows; the quality watch (examples/quality-watch.json)
 *    evaluates the table: its accuracy over all traffic and its interval equal the test's own
 *    recomputation (weighedRate, ties counted as not right, the `not_reviewed` rows counted in
 *    the doubtful population, not scored) from the rows and the answers the sandbox stored for
 *    their runs. Every unit a run states is the growth of the service's usage.
 *
 * On n8n 2.x only (jest project `n8n 2.x`): Review waits on n8n 2's signed resume URL only, and
 * n8n 1.123's Data Table node finds a table by its id only (docs/quality-watch.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAnswer } from '../../src/answer/item-answer';
import { AUDIT_QUEUE_COLUMNS, inAuditSample } from '../../src/answer/audit';
import type { Decision, Run } from '../../src/contract';
import { evaluationDecisionOf } from '../../src/answer';
import { weighedRate } from '../../src/evaluate/stats';
import {
	findTable,
	personalProjectId,
	readRows,
	type DataTable,
	type Row,
} from '../../harness/n8n-data-tables';
import type { N8nInstance } from '../../harness/n8n-env';
import {
	exampleOnWebhook,
	readExample,
	startN8nWithWorkflows,
	triggerWebhook,
	waitForExecution,
	type Execution,
	type Item,
	type OwnerSession,
	type WorkflowJson,
	webhookFields,
} from '../../harness/n8n-executions';
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
	AUDIT_EXAMPLE,
	DRAIN_LIMIT,
	EXAMPLE_SHARE,
	QUEUE_TABLE,
	REVIEWS_TABLE,
} from '../../scripts/make-audit-example';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import {
	REVIEW_TICKETS,
	choicesFor,
	isDoubtful,
	laterOf,
	reviewedOf,
	runIdsBySubject,
	ticketItem,
} from '../support/review';

jest.setTimeout(900_000);

const KEY = DEMO_KEYS.pro;
const SLUG = 'ticket-routing';
const SHARE = EXAMPLE_SHARE / 100;
const AUDIT = { id: 'dsAuditFlows', name: 'Audit: both flows' };
const ROUTE_PATH = 'audit-route';
const DRAIN_PATH = 'audit-drain';
const REVIEW = { id: 'dsAuditReview', path: 'audit-review', name: 'Audit: doubtful tickets' };
const WATCH = { id: 'dsAuditWatch', path: 'audit-watch', name: 'Audit: quality watch' };
const ROUTE = 'Route ticket';
const TEAMS = 4;
/** Route ticket's Uncertain and Pending Review: flow A's doubtful tickets, reviewed in the run. */
const DOUBTFUL_OUTPUTS = [4, 6] as const;
const AUDIT_OUTPUT = 7;
/** Flow A's node that writes the link to its doubtful tickets' review page. */
const DOUBTFUL_MESSAGE = 'Message for doubtful tickets';
const EVALUATE = 'Watch quality';

/** 40 labeled tickets, each subject made unique (the page's items are found by it). */
const TICKETS = makeLabeledSet()
	.slice(0, 40)
	.map((ticket, index) => ({
		subject: `${ticket.subject} (T${index})`,
		body: ticket.body,
		email: `audit-${index}@example.com`,
		plan: ['free', 'starter', 'pro'][index % 3],
		expected: ticket.expected as string,
	}));
const sent = TICKETS.map(({ subject, body, email, plan }) => ({ subject, body, email, plan }));
/** The input Route ticket sends for a ticket: its mapped fields (examples' *Route ticket*). */
const inputOf = (ticket: (typeof sent)[number]) => ({
	subject: ticket.subject,
	body: ticket.body,
	customer_email: ticket.email,
	plan: ticket.plan,
});

/**
 * The audit example with its manual run and its schedule replaced by webhooks (same names, so
 * every wire stays, the queue table's creation too), the sample tickets read from the request.
 */
function auditWorkflow(): WorkflowJson {
	const workflow = readExample(AUDIT_EXAMPLE);
	return {
		...workflow,
		id: AUDIT.id,
		name: AUDIT.name,
		active: false,
		nodes: workflow.nodes.map((node) => {
			if (node.type === 'n8n-nodes-base.manualTrigger')
				return { ...node, ...webhookFields(AUDIT.id, ROUTE_PATH) };
			if (node.type === 'n8n-nodes-base.scheduleTrigger')
				return { ...node, ...webhookFields(AUDIT.id, DRAIN_PATH) };
			if (node.name === 'Sample tickets')
				return { ...node, parameters: { ...node.parameters, jsonOutput: '={{ $json.body }}' } };
			return node;
		}),
	};
}

/** The quality watch with its schedule replaced by a webhook. */
const watchWorkflow = () => exampleOnWebhook('quality-watch.json', WATCH);

const review = reviewWorkflow(REVIEW);

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let decision: Decision;
let queueTable: DataTable | undefined;
let reviewsTable: DataTable;

interface Ran {
	execution: Execution;
	/** Growth of the service's usage during the run. */
	charged: number;
}
const routed: Ran[] = [];
const queued: Row[][] = [];
/** Per run of flow A: its doubtful tickets' subjects, and the one left for later. */
const doubtfulRouted: Array<{ subjects: string[]; left: string }> = [];
/** Per run of flow A: the rows it stored in `decision_reviews`. */
const doubtfulStored: Row[][] = [];
let drained: Ran;
let queueAfterDrain: Row[];
/** The rows the drain stored in `decision_reviews` (its execution's). */
let auditedRows: Row[];
let doubtful: Ran;
let watch: Ran;
let storedRows: Row[];
/** The reviewer's pick per queued subject (first copies only). */
const picks = new Map<string, string>();

const outputsOf = (execution: Execution, node: string): Item[][] => execution.outputs[node] ?? [];
const hintsOf = (execution: Execution, node: string) =>
	(
		execution.runData[node]?.[0] as unknown as { hints?: Array<{ message: string }> } | undefined
	)?.hints?.map((hint) => hint.message) ?? [];
const subjectOf = (row: Row) => (JSON.parse(String(row.item)) as { subject: string }).subject;
const answerOf = (item: Item) => item.json.decision as Record<string, unknown>;

async function fire(workflowId: string, path: string, body: unknown): Promise<string> {
	return triggerWebhook(session, workflowId, path, body);
}

async function finished(id: string, before: number): Promise<Ran> {
	const execution = await waitForExecution(session, id, ['success', 'error', 'crashed'], 300_000);
	expect({ execution: id, error: execution.error }).toEqual({ execution: id, error: undefined });
	return { execution, charged: (await sb.usage(KEY)).used - before };
}

/**
 * Flow A once: its doubtful tickets wait for a person on the page its message links to, who
 * reviews them as labeled but the first, left for later (a `not_reviewed` row).
 */
async function routeOnce(): Promise<Ran> {
	const before = (await sb.usage(KEY)).used;
	const id = await fire(AUDIT.id, ROUTE_PATH, { tickets: sent });
	const waiting = await waitForExecution(session, id, ['waiting', 'success', 'error', 'crashed']);
	expect({ execution: id, status: waiting.status }).toEqual({ execution: id, status: 'waiting' });
	const subjects = outputsOf(waiting, ROUTE)
		.slice(...DOUBTFUL_OUTPUTS)
		.flat()
		.map((item) => String(item.json.subject));
	expect(subjects.length).toBeGreaterThan(1);
	const [left, ...reviewed] = subjects;
	const link = waitingLinkIn(waiting, DOUBTFUL_MESSAGE);
	const page = await openPage(link);
	const form = parseForm(page.html);
	fillReview(
		page.html,
		form,
		reviewed.map((marker) => ({
			marker,
			answer: TICKETS.find((ticket) => ticket.subject === marker)!.expected,
		})),
	);
	await submitForm(link, form);
	doubtfulRouted.push({ subjects, left });
	return finished(id, before);
}

beforeAll(async () => {
	sb = await startTestSandbox();
	work = mkdtempSync(join(tmpdir(), 'decision-service-audit-'));
	({ n8n, session } = await startN8nWithWorkflows({
		work,
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflows: [auditWorkflow(), review.workflow, watchWorkflow()],
	}));
	decision = await sb.client(KEY).getDecision(SLUG);
	const project = await personalProjectId(session);

	// 1. Flow A twice: the queue table is created by the first run.
	for (let run = 0; run < 2; run++) {
		routed.push(await routeOnce());
		queueTable ??= await findTable(session, project, QUEUE_TABLE);
		if (!queueTable) throw new Error(`flow A created no table ${QUEUE_TABLE}`);
		const rows = await readRows(session, queueTable);
		queued.push(rows.slice(queued.flat().length));
		reviewsTable = (await findTable(session, project, REVIEWS_TABLE))!;
		doubtfulStored.push(
			(await readRows(session, reviewsTable)).filter(
				(row) => row.execution_id === routed[run].execution.id,
			),
		);
	}

	// 2. Flow B: a person reviews the first copy of each queued ticket, leaves the second.
	const before = (await sb.usage(KEY)).used;
	const drain = await fire(AUDIT.id, DRAIN_PATH, {});
	const waiting = await waitForExecution(session, drain, ['waiting']);
	const link = waitingLinkIn(waiting, MESSAGE_NODE);
	const page = await openPage(link);
	const form = parseForm(page.html);
	const keys = evaluationDecisionOf(decision).keys;
	queued[0].forEach((row, index) => {
		const machine = String(row.machine_answer);
		// The first one picked otherwise; the rest as labeled (agreeing or not with the machine).
		const ticket = TICKETS.find((each) => each.subject === subjectOf(row))!;
		picks.set(subjectOf(row), index === 0 ? keys.find((key) => key !== machine)! : ticket.expected);
	});
	fillReview(
		page.html,
		form,
		[...picks].map(([marker, answer]) => ({ marker, answer })),
	);
	await submitForm(link, form);
	drained = await finished(drain, before);
	auditedRows = (await readRows(session, reviewsTable)).filter((row) => row.execution_id === drain);
	queueAfterDrain = await readRows(session, queueTable!);

	// 3. Doubtful rows from the review example, then the quality watch on the table.
	const doubtfulBefore = (await sb.usage(KEY)).used;
	const started = await fire(REVIEW.id, REVIEW.path, {
		tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index, 'audit')),
	});
	const reviewWaiting = await waitForExecution(session, started, ['waiting']);
	const reviewLink = waitingLinkIn(reviewWaiting, MESSAGE_NODE);
	const reviewPage = await openPage(reviewLink);
	const reviewForm = parseForm(reviewPage.html);
	fillReview(reviewPage.html, reviewForm, choicesFor(REVIEW_TICKETS));
	await submitForm(reviewLink, reviewForm);
	doubtful = await finished(started, doubtfulBefore);
	storedRows = await readRows(session, reviewsTable);

	const watchBefore = (await sb.usage(KEY)).used;
	watch = await finished(await fire(WATCH.id, WATCH.path, {}), watchBefore);
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

/** What a queued item asked: the item to review without the answer Decide wrote under `decision`. */
function askedOf(itemText: string): Record<string, unknown> {
	const item = JSON.parse(itemText) as Record<string, unknown>;
	return Object.fromEntries(Object.entries(item).filter(([key]) => key !== 'decision'));
}

describe(`the audit sample in real n8n (examples/${AUDIT_EXAMPLE})`, () => {
	it('queues the confident answers the draw picks, the same inputs on a re-run; one unit a ticket, none more', () => {
		for (const [run, { execution, charged }] of routed.entries()) {
			const outputs = outputsOf(execution, ROUTE);
			const confident = outputs.slice(0, TEAMS).flat();
			// The test's own draw, on the input as Route ticket sends it.
			const expected = confident
				.map((item) => sent.find((ticket) => ticket.subject === item.json.subject)!)
				.filter((ticket) => inAuditSample(SLUG, inputOf(ticket), SHARE))
				.map((ticket) => ticket.subject)
				.sort();
			expect(expected.length).toBeGreaterThan(1);
			expect(expected.length).toBeLessThan(confident.length);
			expect(2 * expected.length).toBeLessThanOrEqual(DRAIN_LIMIT);

			// The answers still reach their teams, the picked ones marked.
			for (const item of confident)
				expect({ subject: item.json.subject, share: answerOf(item).audit_share }).toEqual({
					subject: item.json.subject,
					share: expected.includes(String(item.json.subject)) ? SHARE : undefined,
				});
			for (const item of outputs.slice(TEAMS, AUDIT_OUTPUT).flat())
				expect(answerOf(item).audit_share).toBeUndefined();

			// The queue gained one row per picked answer: its run, its answer, the item as sent.
			const rows = queued[run];
			expect(rows.map(subjectOf).sort()).toEqual(expected);
			expect(outputs[AUDIT_OUTPUT]).toHaveLength(expected.length);
			for (const row of rows) {
				const onTeam = confident.find((item) => item.json.subject === subjectOf(row))!;
				const ticket = sent.find((each) => each.subject === subjectOf(row))!;
				expect(row).toMatchObject({
					decision: SLUG,
					version: decision.live_version,
					run_id: answerOf(onTeam).run_id,
					machine_answer: answerOf(onTeam).choice,
					audit_share: SHARE,
				});
				expect(JSON.parse(String(row.item))).toEqual({
					...inputOf(ticket),
					decision: answerOf(onTeam),
				});
				expect(Object.keys(row)).toEqual(
					expect.arrayContaining(AUDIT_QUEUE_COLUMNS.map((column) => column.name)),
				);
			}

			// What the run states: one unit a ticket (the copies cost nothing), the picks.
			expect(charged).toBe(sent.length);
			expect(hintsOf(execution, ROUTE)).toEqual(
				expect.arrayContaining([
					`Charged ${charged} units.`,
					`Audit Share ${EXAMPLE_SHARE} %: ${expected.length} confident answers also sent to Audit for a person to check.`,
				]),
			);
		}
		// The same inputs on the re-run, new runs.
		expect(queued[1].map(subjectOf).sort()).toEqual(queued[0].map(subjectOf).sort());
		const items = (rows: Row[]) =>
			rows
				.map((row) => {
					return JSON.stringify(askedOf(String(row.item)));
				})
				.sort();
		expect(items(queued[1])).toEqual(items(queued[0]));
		expect(queued[1].map((row) => row.run_id)).not.toContain(queued[0][0].run_id);
		console.log(
			`audit e2e: ${sent.length} tickets routed twice, ${queued[0].length} queued each time at ${EXAMPLE_SHARE} %`,
		);
	});

	it("stores a row for each of flow A's doubtful tickets: stratum doubtful, the one left not_reviewed", () => {
		for (const [run, { subjects, left }] of doubtfulRouted.entries()) {
			const runIds = runIdsBySubject(routed[run].execution, ROUTE);
			const rows = doubtfulStored[run];
			expect(
				rows
					.map((row) => ({ run: row.run_id, status: row.status, stratum: row.stratum }))
					.sort((a, b) => String(a.run).localeCompare(String(b.run))),
			).toEqual(
				subjects
					.map((subject) => ({
						run: runIds.get(subject),
						status: subject === left ? 'not_reviewed' : 'reviewed',
						stratum: 'doubtful',
					}))
					.sort((a, b) => String(a.run).localeCompare(String(b.run))),
			);
			for (const row of rows)
				if (row.status === 'reviewed')
					expect(row.answer).toBe(
						TICKETS.find((ticket) => ticket.subject === JSON.parse(String(row.input)).subject)!
							.expected,
					);
		}
	});

	it('stores each review of the drain with stratum audited and its share; the reviewed rows leave the queue, the others stay; no unit', () => {
		expect(auditedRows).toHaveLength(queued[0].length);
		for (const queuedRow of queued[0]) {
			const pick = picks.get(subjectOf(queuedRow))!;
			const row = auditedRows.find((each) => each.run_id === queuedRow.run_id);
			expect({ subject: subjectOf(queuedRow), row }).toEqual({
				subject: subjectOf(queuedRow),
				row: expect.objectContaining({
					status: 'reviewed',
					stratum: 'audited',
					audit_share: SHARE,
					decision: SLUG,
					version: decision.live_version,
					machine_answer: queuedRow.machine_answer,
					machine_status: 'ok',
					answer: pick,
					agreed: pick === queuedRow.machine_answer,
					feedback_sent: true,
				}),
			});
			expect(JSON.parse(String(row!.input))).toEqual(
				expect.objectContaining(askedOf(String(queuedRow.item))),
			);
		}
		// Some agree, some not.
		const agreed = auditedRows.filter((row) => row.agreed === true).length;
		expect(agreed).toBeGreaterThan(0);
		expect(agreed).toBeLessThan(auditedRows.length);
		// Only the second copies (not reviewed) are left for the next drain.
		expect(queueAfterDrain.map((row) => row.id).sort()).toEqual(
			queued[1].map((row) => row.id).sort(),
		);
		expect(drained.charged).toBe(0);
	});

	it("the watch's accuracy over all traffic and its interval equal the recomputation from the rows and the sandbox's answers", async () => {
		const { execution, charged } = watch;
		const report = outputsOf(execution, EVALUATE)[0][0].json as Record<string, unknown> & {
			all_traffic: {
				accuracy: number;
				accuracy_interval: { low: number; high: number; n: number };
				rows: { doubtful: number; audited: number };
				not_reviewed: { doubtful: number; audited: number };
				reason: string | null;
			};
			units: { charged: number };
		};
		// A row per doubtful ticket, reviewed or not: flow A's two runs and the review example's.
		const doubtfulTickets =
			doubtfulRouted.flatMap(({ subjects }) => subjects).length +
			REVIEW_TICKETS.filter((ticket) => isDoubtful(ticket)).length;
		const leftDoubtful = doubtfulRouted.length + laterOf(REVIEW_TICKETS).length;
		const withStratum = storedRows.filter(
			(row) => row.stratum === 'doubtful' || row.stratum === 'audited',
		);
		const doubtfulRows = withStratum.filter((row) => row.stratum === 'doubtful');
		expect(doubtfulRows).toHaveLength(doubtfulTickets);
		expect(doubtfulRows.filter((row) => row.status === 'not_reviewed')).toHaveLength(leftDoubtful);
		expect(doubtfulRows.filter((row) => row.status === 'reviewed')).toHaveLength(
			doubtfulTickets - leftDoubtful,
		);
		expect(
			storedRows.filter(
				(row) =>
					row.stratum === 'doubtful' &&
					row.status === 'reviewed' &&
					reviewedOf(REVIEW_TICKETS).some(
						(ticket) => JSON.parse(String(row.input)).subject === ticket.subject,
					),
			),
		).toHaveLength(reviewedOf(REVIEW_TICKETS).length);

		// Right: the person's answer is the machine's answer on its run (or, on a doubtful run, its
		// guess), read from the run the sandbox stored; a tie at the top is no guess: left out.
		const keys = evaluationDecisionOf(decision).keys;
		const strata = new Map<
			string,
			{ right: number; rows: number; population: number; share: number; notReviewed: number }
		>();
		for (const row of withStratum) {
			const key = row.stratum === 'doubtful' ? 'doubtful' : `audited ${String(row.audit_share)}`;
			const π = row.stratum === 'doubtful' ? 1 : Number(row.audit_share);
			const stratum = strata.get(key) ?? {
				right: 0,
				rows: 0,
				population: 0,
				share: π,
				notReviewed: 0,
			};
			strata.set(key, stratum);
			// An item nobody reviewed: in its stratum's population, not scored (issue 43).
			stratum.population += 1 / π;
			if (row.status === 'not_reviewed') {
				stratum.notReviewed++;
				continue;
			}
			const stored = await sb.control<{ version: number; response: Run }>(
				'GET',
				`/runs/${String(row.run_id)}?key=${KEY}`,
			);
			const read = readAnswer(stored.response, decision.type, keys)!;
			// A run with no answer and no guess (a tie) counts as not right (issue 43).
			const machine = read.answer?.[0] ?? read.guess?.[0];
			stratum.rows++;
			if (machine !== undefined && machine === row.answer) stratum.right++;
		}
		const audited = strata.get(`audited ${SHARE}`)!;
		expect(audited.rows).toBe(auditedRows.length);
		expect(audited.right).toBe(auditedRows.filter((row) => row.agreed === true).length);
		const expected = weighedRate([...strata.values()]);

		expect(report.all_traffic.rows).toEqual({
			doubtful: strata.get('doubtful')?.rows ?? 0,
			audited: audited.rows,
		});
		expect(report.all_traffic.not_reviewed).toEqual({ doubtful: leftDoubtful, audited: 0 });
		// Fewer than 10 audited rows: "not enough items yet", not a figure.
		const figure = audited.rows >= 10;
		if (!figure)
			expect(report.all_traffic.reason).toMatch(
				/^not enough items yet \(\d+ audited; at least 10 needed for a figure/,
			);
		else {
			expect(report.all_traffic.accuracy).toBeCloseTo(expected.value!, 4);
			expect(report.all_traffic.accuracy_interval.low).toBeCloseTo(expected.low, 4);
			expect(report.all_traffic.accuracy_interval.high).toBeCloseTo(expected.high, 4);
			expect(report.all_traffic.accuracy_interval.n).toBe(expected.n);
		}

		// Every unit stated is the usage growth: the stored answers are scored free.
		expect(report.units.charged).toBe(charged);
		expect(charged).toBe(0);
		expect(doubtful.charged).toBe(REVIEW_TICKETS.length);
		const pct = (value: number) => Math.round(value * 100);
		if (figure)
			expect(String(report.summary)).toContain(
				`(95% interval ${pct(expected.low)}–${pct(expected.high)}%)`,
			);
		console.log(
			`audit e2e: ${String(report.summary)
				.split('\n')
				.find((line) => /all traffic/.test(line))}`,
		);
	});
});
