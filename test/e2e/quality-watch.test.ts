/**
 * Quality watched in real n8n (docs/quality-watch.md), installed from the packed tarball, with
 * n8n's own Data Tables:
 *
 * 1. The review example: a person reviews the doubtful tickets but one; each review lands in the
 *    Data Table `decision_reviews` as one row (no mapping by hand), with the run, the version and
 *    the input the decision saw, and the ticket left for later as a `not_reviewed` row: never
 *    scored nor decided, counted in the doubtful population of the accuracy over all traffic. The
 *    team adds labeled rows of its own.
 * 2. The quality watch (examples/quality-watch.json, its schedule replaced by a webhook) runs:
 *    one unit per stored row, the figures recomputed from the service's own stored runs, the
 *    baseline row stored in `decision_quality`, no drift.
 * 3. The decision's live version changes (billing and technical swap descriptions). The watch
 *    runs again with a threshold above the drop (reported, no alert, nothing stored), then as
 *    shipped (5 points): the drift equals the two recomputed evaluations, and Drift fires.
 * 4. Two versions side by side (examples/quality-compare-versions.json): version 1 against live
 *    version 2 on the stored set, in words and figures, recomputed.
 * 5. The watch capped by Max Decides per Execution: a partial report and figures row, never
 *    compared nor a baseline; then three bad rows (an unknown key, no answer, `__proto__`): the
 *    shipped watch names every one, scores the rest and compares with the last full figures.
 * 6. A classify review with two labels, the Review node's label outputs wired straight to the
 *    example's store branch (*Reviewed by a person* → *Labeled row* → *Store reviews*, running
 *    examples/review-store.json): one row per review (test/support/review-store.ts).
 * Every unit a report states (its units, its words, its message, its figures row) is the growth of
 * the service's usage in that run.
 *
 * n8n 1.x: the Review node refuses to wait there, and n8n 1.123's Data Table node finds a table by
 * its id only (no "By Name" mode), so the examples' tables are n8n 2.x's; see docs/quality-watch.md.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { launchHeadlessChromium } from '../../harness/chromium';
import { screenshotDir } from '../../harness/n8n-editor';
import { escapeHtml } from '../../src/html';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAnswer } from '../../src/answer/item-answer';
import {
	FIGURES_ROW_COLUMNS,
	evaluate,
	summaryOf,
	type Metrics,
	type ScoredItem,
} from '../../src/evaluate';
import { LABELED_ROW_COLUMNS, evaluationDecisionOf } from '../../src/answer';
import type { Decision, Run } from '../../src/contract';
import {
	ensureTable,
	findTable,
	insertRows,
	personalProjectId,
	readRows,
	type DataTable,
	type Row,
} from '../../harness/n8n-data-tables';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import {
	freePort,
	packTarball,
	prepareN8n,
	startN8n,
	type N8nInstance,
} from '../../harness/n8n-env';
import {
	exampleOnWebhook,
	ownerSession,
	publishWorkflows,
	startN8nWithWorkflows,
	writeWorkflows,
	triggerWebhook,
	waitForExecution,
	type Execution,
	type Item,
	type OwnerSession,
	type WorkflowJson,
} from '../../harness/n8n-executions';
import {
	fillReview,
	openPage,
	parseForm,
	reviewWorkflow,
	submitForm,
	waitingLinkIn,
	MESSAGE_NODE,
} from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { publishTicketVersion } from '../support/versions';
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
import { LABEL_MESSAGES, STORE_BRANCH, classifyReviewWorkflow } from '../support/review-store';

jest.setTimeout(900_000);

const KEY = DEMO_KEYS.pro;
const SLUG = 'ticket-routing';
/** Labeled rows the team adds by hand beside the reviews. */
const ADDED = 40;
const REVIEW = { id: 'dsQwReview', path: 'quality-watch-review', name: 'QW: review' };
const WATCH = { id: 'dsQwWatch', path: 'quality-watch-run', name: 'QW: watch' };
const LENIENT = { id: 'dsQwLenient', path: 'quality-watch-lenient', name: 'QW: lenient watch' };
const COMPARE = { id: 'dsQwCompare', path: 'quality-watch-compare', name: 'QW: compare' };
const CAPPED = { id: 'dsQwCapped', path: 'quality-watch-capped', name: 'QW: capped watch' };
const LABELS = { id: 'dsQwLabels', path: 'quality-watch-labels', name: 'QW: two labels' };
/** Version Change Sample of the sampling watch: fewer than the stored rows. */
const SAMPLE = 10;
/** The watch's nodes that store new answers back on their rows. */
const STORE_ANSWERS = ['Decided again', 'New answer', 'Store new answers'];
/** Max Decides per Execution of the capped watch, as the example's note advises. */
const CAP = 10;
/** Three bad rows of different kinds a team may write by hand. */
const BAD_ANSWERS: Array<string | null> = ['refunds', null, '__proto__'];
const EVALUATE = 'Watch quality';
const TRY = 'Try a version';

/** An example with its trigger replaced by a webhook, then `change`d. */
const onWebhook = (
	file: string,
	options: { id: string; name: string; path: string },
	change: (workflow: WorkflowJson) => WorkflowJson = (workflow) => workflow,
): WorkflowJson => change(exampleOnWebhook(file, options));

const watchWorkflow = onWebhook('quality-watch.json', WATCH);
/**
 * The watch with a threshold above any drop, a Version Change Sample of 10, and nothing stored
 * (neither figures nor answers): it reports, it never alerts.
 */
const lenientWorkflow = onWebhook('quality-watch.json', LENIENT, (workflow) => ({
	...workflow,
	nodes: workflow.nodes
		.filter((node) => !['Figures row', 'Save figures', ...STORE_ANSWERS].includes(node.name))
		.map((node) =>
			node.name === EVALUATE
				? {
						...node,
						parameters: {
							...node.parameters,
							evaluateOptions: {
								...(node.parameters.evaluateOptions as Record<string, unknown>),
								dropThreshold: 100,
								versionChangeSample: SAMPLE,
							},
						},
					}
				: node,
		),
	connections: {
		...Object.fromEntries(
			Object.entries(workflow.connections).filter(
				([name]) => name !== 'Figures row' && !STORE_ANSWERS.includes(name),
			),
		),
		[EVALUATE]: {
			main: workflow.connections[EVALUATE].main.map((targets) =>
				targets.filter(
					(target) => target.node !== 'Figures row' && !STORE_ANSWERS.includes(target.node),
				),
			),
		},
	},
}));
const compareWorkflow = onWebhook('quality-compare-versions.json', COMPARE);
/** The watch as shipped, with Max Decides per Execution set; it stores no answers back. */
const cappedWorkflow = onWebhook('quality-watch.json', CAPPED, (workflow) => ({
	...workflow,
	connections: {
		...workflow.connections,
		[EVALUATE]: {
			main: workflow.connections[EVALUATE].main.map((targets) =>
				targets.filter((target) => !STORE_ANSWERS.includes(target.node)),
			),
		},
	},
	nodes: workflow.nodes.map((node) =>
		node.name === EVALUATE
			? {
					...node,
					parameters: {
						...node.parameters,
						evaluateOptions: {
							...(node.parameters.evaluateOptions as Record<string, unknown>),
							maxDecides: CAP,
						},
					},
				}
			: node,
	),
}));

const review = reviewWorkflow({ id: REVIEW.id, name: REVIEW.name, path: REVIEW.path });

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let reviewsTable: DataTable;
let reviewRows: Row[];
let reviewRuns: Map<string, string>;
let storedRows: Row[];
let decisionV1: Decision;
let decisionV2: Decision;
const watches: Array<{ execution: Execution; charged: number }> = [];
let lenient: { execution: Execution; charged: number };
let afterReview: { execution: Execution; charged: number };
let compared: { execution: Execution; charged: number };
let capped: { execution: Execution; charged: number };
let withBadRows: { execution: Execution; charged: number };
let badRows: Row[];
let figuresRows: Row[];
let labelRows: Row[];
let labelsReviewed: Execution;

const outputsOf = (execution: Execution, node: string): Item[][] => execution.outputs[node] ?? [];
/** Rows of items nobody reviewed (status `not_reviewed`): never scored, decided nor charged. */
const isNotReviewed = (row: Row) => row.status === 'not_reviewed';
/** The stored rows a watch scores (or decides): all but the not_reviewed ones. */
const judgedOf = (rows: Row[]) => rows.filter((row) => !isNotReviewed(row)).length;
const reportOf = (execution: Execution, node = EVALUATE) => outputsOf(execution, node)[0][0].json;

async function run(
	workflow: { id: string; path: string },
	body: unknown = {},
): Promise<{ execution: Execution; charged: number }> {
	const before = (await sb.usage(KEY)).used;
	const id = await triggerWebhook(session, workflow.id, workflow.path, body);
	const execution = await waitForExecution(session, id, ['success', 'error', 'crashed'], 300_000);
	expect({ workflow: workflow.id, error: execution.error }).toEqual({
		workflow: workflow.id,
		error: undefined,
	});
	return { execution, charged: (await sb.usage(KEY)).used - before };
}

/** The figures recomputed from the runs the service stored for the scored items. */
async function recomputed(scored: Item[], decision: Decision): Promise<Metrics> {
	const items: ScoredItem[] = [];
	for (const item of scored) {
		if (item.json.scored === false) continue;
		// A fresh decide's run, or the run a stored row keeps (scored from its stored answer).
		const runId = String(
			(item.json.decision as { run_id?: string } | undefined)?.run_id ?? item.json.run_id,
		);
		const stored = await sb.control<{ version: number; response: Run }>(
			'GET',
			`/runs/${runId}?key=${KEY}`,
		);
		expect(stored.version).toBe(decision.live_version);
		items.push({
			expected: item.json.answer,
			run: readAnswer(stored.response, decision.type)!,
			charged: item.json.charged as number,
		});
	}
	return evaluate(evaluationDecisionOf(decision), items, {
		targetAccuracy: 0.9,
		confidenceThreshold: decision.confidence_threshold,
	}).metrics;
}

/** Version 2 goes live: billing and technical swap descriptions (an accuracy drop by design). */
const publishSwappedVersion = () => publishTicketVersion(sb, KEY);

const round = (value: number | null) => (value === null ? null : Math.round(value * 1e4) / 1e4);
const rightOf = (metrics: Metrics) => metrics.items.filter((each) => each.correct === true).length;
const wrongOf = (metrics: Metrics) => metrics.items.filter((each) => each.correct === false).length;

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;

on2(`quality watched with n8n ${n8nVersion()}'s Data Tables`, () => {
	const metrics: Metrics[] = [];

	beforeAll(async () => {
		sb = await startTestSandbox();
		work = mkdtempSync(join(tmpdir(), 'decision-service-quality-watch-'));
		({ n8n, session } = await startN8nWithWorkflows({
			work,
			sandboxBaseUrl: sb.baseUrl,
			apiKey: KEY,
			workflows: [
				review.workflow,
				watchWorkflow,
				lenientWorkflow,
				compareWorkflow,
				cappedWorkflow,
				classifyReviewWorkflow(LABELS, await sb.client(KEY).getDecision('content-labels')),
			],
		}));
		const project = await personalProjectId(session);
		// The review example creates its table from its manual trigger; here a webhook starts it.
		reviewsTable = await ensureTable(session, project, 'decision_reviews', LABELED_ROW_COLUMNS);
		decisionV1 = await sb.client(KEY).getDecision(SLUG);

		// 1. A person reviews the doubtful tickets.
		const started = await triggerWebhook(session, REVIEW.id, REVIEW.path, {
			tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index, 'qw')),
		});
		const waiting = await waitForExecution(session, started, ['waiting']);
		const link = waitingLinkIn(waiting, MESSAGE_NODE);
		const page = await openPage(link);
		const form = parseForm(page.html);
		fillReview(page.html, form, choicesFor(REVIEW_TICKETS));
		await submitForm(link, form);
		const finished = await waitForExecution(session, started, ['success']);
		reviewRuns = runIdsBySubject(finished, review.decide);
		reviewRows = await readRows(session, reviewsTable);

		// 1b. The shipped watch right after the review example: every row stored with its answer.
		afterReview = await run(WATCH);

		// The team adds labeled rows of its own: the input as JSON text, the right answer.
		await insertRows(
			session,
			reviewsTable,
			makeLabeledSet()
				.slice(0, ADDED)
				.map((ticket, index) => ({
					// A review_id: the watch stores the answer it decides on the row.
					review_id: `added/${index}`,
					status: 'labeled',
					decision: SLUG,
					input: JSON.stringify({ subject: ticket.subject, body: ticket.body }),
					answer: ticket.expected,
				})),
		);
		storedRows = await readRows(session, reviewsTable);

		// 2. The watch on version 1: the baseline.
		watches.push(await run(WATCH));
		metrics.push(await recomputed(outputsOf(watches[0].execution, EVALUATE)[1], decisionV1));

		// 3. Version 2 goes live: billing and technical swap descriptions.
		await publishSwappedVersion();
		decisionV2 = await sb.client(KEY).getDecision(SLUG);
		lenient = await run(LENIENT);
		// 5a. The watch capped (partial, stored as such; no answers stored back).
		capped = await run(CAPPED);
		watches.push(await run(WATCH));
		metrics.push(await recomputed(outputsOf(watches[1].execution, EVALUATE)[1], decisionV2));

		// 4. Version 1 tried again beside live version 2, on the stored set.
		compared = await run(COMPARE);

		// 5b. Three bad rows and the shipped watch.
		await insertRows(
			session,
			reviewsTable,
			BAD_ANSWERS.map((answer, index) => ({
				status: 'labeled',
				decision: SLUG,
				input: JSON.stringify({ subject: `Hand-written ${index}`, body: 'Where is my refund?' }),
				answer,
			})),
		);
		badRows = (await readRows(session, reviewsTable)).slice(-BAD_ANSWERS.length);
		withBadRows = await run(WATCH);
		figuresRows = await readRows(
			session,
			(await findTable(session, reviewsTable.projectId, 'decision_quality'))!,
		);

		// 6. A classify review with two labels, stored from every label output it is on.
		await sb.control('POST', '/decisions/content-labels/versions', {
			key: KEY,
			confidence_threshold: 1,
			uncertainty_policy: 'uncertain_branch',
		});
		const labelsRun = await triggerWebhook(session, LABELS.id, LABELS.path, {
			items: LABEL_MESSAGES.map(({ text }) => ({ text })),
		});
		const labelsWaiting = await waitForExecution(session, labelsRun, ['waiting']);
		const labelsLink = waitingLinkIn(labelsWaiting, MESSAGE_NODE);
		const labelsPage = await openPage(labelsLink);
		const labelsForm = parseForm(labelsPage.html);
		fillReview(
			labelsPage.html,
			labelsForm,
			LABEL_MESSAGES.map(({ text, labels }) => ({ marker: text, labels })),
		);
		await submitForm(labelsLink, labelsForm);
		labelsReviewed = await waitForExecution(session, labelsRun, ['success', 'error']);
		labelRows = (await readRows(session, reviewsTable)).filter(
			(row) => row.decision === 'content-labels',
		);
	});

	afterAll(async () => {
		await n8n?.stop();
		await sb?.close();
		if (work) rmSync(work, { recursive: true, force: true });
	});

	it('stores each review in the Data Table as one row, with its run, version and input', () => {
		const reviewed = reviewedOf(REVIEW_TICKETS);
		// One row per doubtful ticket: the reviewed ones, and the one left for later (not_reviewed).
		expect(reviewRows).toHaveLength(REVIEW_TICKETS.filter((ticket) => isDoubtful(ticket)).length);
		expect(reviewRows.filter((row) => row.status === 'reviewed')).toHaveLength(reviewed.length);
		const runIds = reviewRuns;
		for (const ticket of reviewed) {
			const row = reviewRows.find(
				(each) =>
					(JSON.parse(String(each.input)) as { subject: string }).subject === ticket.subject,
			);
			expect({ ticket: ticket.subject, row }).toEqual({
				ticket: ticket.subject,
				row: expect.objectContaining({
					status: 'reviewed',
					answer: ticket.pick,
					agreed: ticket.pick === ticket.machine,
					decision: SLUG,
					version: 1,
					run_id: runIds.get(ticket.subject),
					feedback_sent: true,
					// No guess on a tie: the row leaves machine_answer empty.
					...(ticket.machine === undefined ? {} : { machine_answer: ticket.machine }),
				}),
			});
			// The input as the decision saw it: the fields Decide mapped.
			expect(JSON.parse(String(row!.input))).toEqual(
				expect.objectContaining({ subject: ticket.subject, body: ticket.body, plan: 'pro' }),
			);
			expect(String(row!.reviewed_at)).toMatch(/^\d{4}-\d\d-\d\dT/);
		}
		const later = laterOf(REVIEW_TICKETS);
		expect(later.length).toBeGreaterThan(0);
		for (const ticket of later) {
			const row = reviewRows.find(
				(each) =>
					(JSON.parse(String(each.input)) as { subject: string }).subject === ticket.subject,
			);
			expect({ ticket: ticket.subject, row }).toEqual({
				ticket: ticket.subject,
				row: expect.objectContaining({
					status: 'not_reviewed',
					answer: '',
					decision: SLUG,
					version: 1,
					stratum: 'doubtful',
					run_id: runIds.get(ticket.subject),
					review_id: `${String(row?.execution_id)}/${runIds.get(ticket.subject)}`,
				}),
			});
		}
		console.log(
			`quality watch e2e: ${reviewRows.length} reviews stored, ${ADDED} labeled rows added: ${storedRows.length} rows`,
		);
	});

	it("the shipped watch right after the review example reports figures (not 'answered 0')", () => {
		const { execution, charged } = afterReview;
		const [[report], scored, drift] = outputsOf(execution, EVALUATE);
		// Every review is stored with the answer of the version live now: scored free, not re-sent.
		expect(charged).toBe(0);
		expect(scored).toHaveLength(reviewRows.length);
		expect(scored.every((item) => item.json.charged === 0)).toBe(true);
		// The row nobody reviewed: on Scored Items, not scored, not a bad row.
		const left = reviewRows.filter(isNotReviewed).length;
		expect(scored.filter((item) => item.json.scored === false)).toHaveLength(left);
		expect(report.json.total).toBe(judgedOf(reviewRows));
		expect(report.json.bad_rows ?? []).toEqual([]);
		const message = String(report.json.message);
		expect(message).not.toMatch(/Answered 0|0 of 0 answered/);
		expect(message).toMatch(/Doubtful: \d+ of \d+ rows were left to a person|Accuracy \d/);
		expect(message).toContain(
			`${judgedOf(reviewRows)} stored rows scored from the answer version 1`,
		);
		// It stands in the doubtful population of the accuracy over all traffic.
		expect(message).toContain(
			`${judgedOf(reviewRows)} of ${reviewRows.length} doubtful items reviewed; the other ${left === 1 ? '1 is' : `${left} are`} taken to be like them.`,
		);
		expect(message).toContain('No earlier figures: this run is the baseline');
		expect(drift ?? []).toEqual([]);
		console.log(`quality watch e2e: the watch right after the reviews:\n${message}`);
	});

	it('the next watch scores the stored reviews free and decides the added rows once', async () => {
		const { execution, charged } = watches[0];
		const [[report], scored, drift] = outputsOf(execution, EVALUATE);
		expect(scored).toHaveLength(storedRows.length);
		expect(charged).toBe(ADDED);
		expect((report.json.units as { charged: number }).charged).toBe(ADDED);
		expect(report.json.total).toBe(judgedOf(storedRows));
		expect(report.json.accuracy).toBe(round(metrics[0].accuracy));
		expect(report.json.coverage).toBe(round(metrics[0].coverage));
		expect(report.json.drift).toMatchObject({ dropped: false });
		expect(drift ?? []).toEqual([]);
		const figures = await readRows(
			session,
			(await findTable(session, reviewsTable.projectId, 'decision_quality'))!,
		);
		expect(figures[1]).toMatchObject({
			decision: SLUG,
			live_version: 1,
			total: judgedOf(storedRows),
			right: rightOf(metrics[0]),
			accuracy: round(metrics[0].accuracy),
			coverage: round(metrics[0].coverage),
		});
		expect(Object.keys(figures[0])).toEqual(
			expect.arrayContaining(FIGURES_ROW_COLUMNS.map((column) => column.name)),
		);
	});

	it('after the live version changed, reports the drift the two evaluations show, and alerts', async () => {
		const { execution, charged } = watches[1];
		const [[report], scored, drift] = outputsOf(execution, EVALUATE);
		// Every row decided again on version 2 but the not_reviewed one (nothing to judge).
		expect(charged).toBe(judgedOf(storedRows));
		expect(scored).toHaveLength(storedRows.length);
		const points = (a: number | null, b: number | null) =>
			Math.round(((b ?? 0) - (a ?? 0)) * 1000) / 10;
		const accuracyPoints = points(metrics[0].accuracy, metrics[1].accuracy);
		// The swap costs accuracy, far beyond the 5-point threshold.
		expect(accuracyPoints).toBeLessThan(-5);
		expect(report.json.drift).toMatchObject({
			previous_version: 1,
			accuracy: {
				before: round(metrics[0].accuracy),
				after: round(metrics[1].accuracy),
				points: accuracyPoints,
			},
			coverage: {
				before: round(metrics[0].coverage),
				after: round(metrics[1].coverage),
			},
			min_confidence: {
				before: summaryOf(metrics[0]).confidence?.value ?? null,
				after: summaryOf(metrics[1]).confidence?.value ?? null,
			},
			close_call_gap: {
				before: summaryOf(metrics[0]).closeCallGap?.value ?? null,
				after: summaryOf(metrics[1]).closeCallGap?.value ?? null,
			},
			threshold: 5,
			dropped: true,
			// The drop the alert is held to: the paired test's, as its words show it.
			drop_of: 'version',
		});
		// Per answer: billing's and technical's precision and recall moved, as recomputed.
		const classes = (each: Metrics) =>
			new Map((each.type === 'classify' ? each.labels : each.classes).map((c) => [c.key, c]));
		const moved = (report.json.drift as { per_answer: Array<Record<string, unknown>> }).per_answer;
		for (const key of ['billing', 'technical']) {
			expect(moved.find((each) => each.key === key)).toEqual({
				key,
				precision: expect.objectContaining({
					before: round(classes(metrics[0]).get(key)!.precision),
					after: round(classes(metrics[1]).get(key)!.precision),
				}),
				recall: expect.objectContaining({
					before: round(classes(metrics[0]).get(key)!.recall),
					after: round(classes(metrics[1]).get(key)!.recall),
				}),
			});
		}
		const message = String(report.json.message);
		expect(message).toContain('live version 2 (was 1)');
		// The alert is the paired test's: the same rows on version 1 (stored) and version 2.
		// Paired: the rows judged on both (an answer, or a doubtful row's guess, on each version).
		expect(message).toMatch(/Same \d+ rows on the live version/);
		expect(message).toContain('Alert: a drop beyond chance at the 1 % false-alarm rate');
		const version = (
			report.json.drift as { evidence: Array<Record<string, unknown>> }
		).evidence.find((each) => each.kind === 'version');
		expect(version).toMatchObject({ alert: true });
		expect(version!.rows as number).toBeGreaterThan(judgedOf(storedRows) / 2);
		expect(version!.rows as number).toBeLessThanOrEqual(judgedOf(storedRows));
		expect(drift).toHaveLength(1);
		expect(drift[0].json.message).toBe(message);
		console.log(`quality watch e2e: the message of the second run:\n${message}`);
	});

	it('a version change decides only the sample', () => {
		const [[report], scored, drift] = outputsOf(lenient.execution, EVALUATE);
		// Version Change Sample 10: 10 rows decided on version 2, no more.
		expect(lenient.charged).toBe(SAMPLE);
		expect((report.json.units as { charged: number }).charged).toBe(SAMPLE);
		expect(report.json.total).toBe(SAMPLE);
		expect(scored.filter((item) => item.json.charged === 1)).toHaveLength(SAMPLE);
		// Not scored: the rows beyond the sample, and the not_reviewed one.
		expect(scored.filter((item) => item.json.scored === false)).toHaveLength(
			storedRows.length - SAMPLE,
		);
		expect(
			scored.filter((item) => item.json.scored === false && item.json.status !== 'not_reviewed'),
		).toHaveLength(judgedOf(storedRows) - SAMPLE);
		const message = String(report.json.message);
		expect(message).toContain(
			`${SAMPLE} rows decided on version 2, the most recent of each kind in turn, and paired with their stored answers (${SAMPLE} units`,
		);
		expect(message).toContain(
			`${judgedOf(storedRows) - SAMPLE} rows answered by version 1 left out of these figures`,
		);
		expect(message).toContain(`Cost: ${SAMPLE} units`);
		expect(report.json.drift).toMatchObject({
			threshold: 100,
			dropped: false,
			previous_version: 1,
		});
		expect(drift).toEqual([]);
	});

	it('keeps one figures row per stored run', () => {
		const figures = figuresRows;
		// After the reviews, the first watch, the capped one (partial), the second, the bad rows'.
		expect(figures.map((row) => [row.live_version, row.partial])).toEqual([
			[1, false],
			[1, false],
			[2, true],
			[2, false],
			[2, false],
		]);
		expect(figures[3]).toMatchObject({
			accuracy: round(metrics[1].accuracy),
			right: rightOf(metrics[1]),
		});
	});

	it('compares version 1 with live version 2 on the stored set, as a decision to take', () => {
		const [[report], scored] = outputsOf(compared.execution, TRY);
		// The live version's answers are stored (free); version 1's decided: one unit per row (the
		// not_reviewed row has no answer to compare: never decided).
		expect(compared.charged).toBe(judgedOf(storedRows));
		expect(scored).toHaveLength(storedRows.length);
		const comparison = report.json.comparison as Record<string, unknown>;
		// The engine is deterministic: version 1 answers as in the first watch, live version 2 as in the second.
		const [v1, v2] = metrics;
		expect(comparison).toMatchObject({
			version: 1,
			live_version: 2,
			compared: judgedOf(storedRows),
			right: rightOf(v1),
			wrong: wrongOf(v1),
			live_right: rightOf(v2),
			live_wrong: wrongOf(v2),
			accuracy: round(v1.accuracy),
		});
		const more = rightOf(v1) - rightOf(v2);
		expect(String(comparison.summary)).toContain(`version 1 answers ${more} more items right and`);
		expect(String(comparison.summary)).toContain('than live version 2');
		expect(String(comparison.summary)).toContain('it would cost the same');
		console.log(`quality watch e2e: ${String(comparison.summary)}`);
	});

	it("every unit a report states equals the service's usage growth in that run", () => {
		const runs = [afterReview, ...watches, lenient, capped, withBadRows, compared];
		// Some runs charge nothing (stored answers), some do: the check means something.
		expect(runs.some(({ charged }) => charged === 0)).toBe(true);
		expect(runs.some(({ charged }) => charged > 0)).toBe(true);
		for (const { execution, charged } of runs) {
			const report = reportOf(execution, execution.outputs[TRY] ? TRY : EVALUATE);
			expect({ units: (report.units as { charged: number }).charged }).toEqual({ units: charged });
			expect((report.figures as { units_charged: number }).units_charged).toBe(charged);
			if (charged > 0) expect(String(report.summary)).toContain(`Charged ${charged} units here`);
			expect(String(report.message)).toContain(`Cost: ${charged} units`);
		}
		// Version 1's decides only: the live version's answers were stored.
		const report = reportOf(compared.execution, TRY);
		expect(report.units).toMatchObject({
			charged: judgedOf(storedRows),
			compared: judgedOf(storedRows),
		});
	});

	it('the capped watch gives a partial report and figures row: never compared, never a baseline', () => {
		const [[report], scored, drift] = outputsOf(capped.execution, EVALUATE);
		expect(capped.charged).toBe(CAP);
		expect(report.json.total).toBe(CAP);
		expect(report.json.partial).toBe(true);
		expect((report.json.not_scored as unknown[]).length).toBe(judgedOf(storedRows) - CAP);
		expect(report.json.drift).toBeUndefined();
		expect(drift ?? []).toEqual([]);
		// Every stored row is on Scored Items: the ones not sent with why.
		expect(scored).toHaveLength(storedRows.length);
		const message = String(report.json.message);
		expect(message).toContain(`(partial: ${judgedOf(storedRows) - CAP} rows not scored)`);
		expect(message).toContain(
			`Partial run: ${judgedOf(storedRows) - CAP} rows not scored (Not sent: Max Decides per Execution (${CAP}) is reached). Not compared with the figures of`,
		);
		const row = figuresRows.find((each) => each.total === CAP);
		expect(row).toMatchObject({ partial: true, not_scored: judgedOf(storedRows) - CAP });
		console.log(`quality watch e2e: the capped run's message:\n${message}`);
	});

	it('names every bad row, scores the rest, and compares with the last full figures, not the capped', () => {
		const [[report], scored] = outputsOf(withBadRows.execution, EVALUATE);
		// The second watch stored version 2's answers: this run decides nothing.
		expect(withBadRows.charged).toBe(0);
		expect(report.json.total).toBe(judgedOf(storedRows));
		expect(scored).toHaveLength(storedRows.length + BAD_ANSWERS.length);
		const named = report.json.bad_rows as Array<{ row: number; problem: string; fix: string }>;
		expect(named.map((each) => each.row)).toEqual(badRows.map((row) => row.id));
		expect(named.map((each) => each.problem)).toEqual([
			expect.stringMatching(/^The expected option "refunds" is not one of the decision's options/),
			'No expected answer: the item (the row) has none',
			expect.stringMatching(
				/^The expected option "__proto__" is not one of the decision's options/,
			),
		]);
		for (const each of named) expect(each.fix).toMatch(/row's answer|row its answer/);
		const message = String(report.json.message);
		expect(message).toContain('3 rows not scored, to fix:');
		for (const row of badRows) expect(message).toContain(`(row ${row.id}):`);
		// Compared with the second watch's figures (version 2, full): nothing moved.
		const secondFigures = reportOf(watches[1].execution).figures as { evaluated_at: string };
		expect(report.json.drift).toMatchObject({
			previous_evaluated_at: secondFigures.evaluated_at,
			accuracy: {
				before: round(metrics[1].accuracy),
				after: round(metrics[1].accuracy),
				points: 0,
			},
			dropped: false,
		});
		expect(figuresRows[figuresRows.length - 1]).toMatchObject({
			partial: false,
			bad_rows: 3,
			total: judgedOf(storedRows),
		});
		console.log(`quality watch e2e: the message with bad rows:\n${message}`);
	});

	// The store sub-workflow (examples/review-store.json) upserts on review_id: a copy per label
	// output reaches it with the same review_id and leaves one row (commit e90764e; in queue mode
	// too, test/queue/review.test.ts). Evaluate counts a review once either way
	// (test/node/evaluate.test.ts).
	it('a classify review with two labels: every copy carries one review_id, stored once', () => {
		expect(labelsReviewed.status).toBe('success');
		// Review put the two-label item on both its labels' outputs: two copies reach the store.
		const onOutputs = (text: string) =>
			(labelsReviewed.outputs.Review ?? []).filter((items) =>
				items.some((item) => item.json.text === text),
			).length;
		expect(LABEL_MESSAGES.map(({ text }) => onOutputs(text))).toEqual([2, 1]);
		// Three copies reached the store branch, the two-label review's with one review_id.
		const copies = (labelsReviewed.outputs[STORE_BRANCH[1]]?.[0] ?? []).map((item) =>
			String(item.json.review_id),
		);
		expect(copies).toHaveLength(3);
		const ids = [...new Set(labelRows.map((row) => String(row.review_id)))];
		expect(ids).toHaveLength(LABEL_MESSAGES.length);
		expect([...new Set(copies)].sort()).toEqual([...ids].sort());
		// One row per review.
		expect(labelRows).toHaveLength(LABEL_MESSAGES.length);
		const labelsOf = (row: Row) =>
			String(row.answer)
				.split(',')
				.map((label) => label.trim())
				.sort();
		for (const { text, labels } of LABEL_MESSAGES) {
			const row = labelRows.find(
				(each) => (JSON.parse(String(each.input)) as { text: string }).text === text,
			);
			expect({ text, labels: row && labelsOf(row) }).toEqual({ text, labels: [...labels].sort() });
			expect(row!.review_id).toBe(`${String(row!.execution_id)}/${String(row!.run_id)}`);
		}
	});

	// The README's pictures of the second watch, as n8n stored them: to a temporary folder, or to
	// docs/screenshots/ with UPDATE_SCREENSHOTS=1 (as the editor tests do).
	it("screenshots the second watch's HTML report and the message it sends", async () => {
		const report = outputsOf(watches[1].execution, EVALUATE)[0][0] as Item & {
			binary?: { data?: { id?: string } };
		};
		const id = report.binary?.data?.id;
		expect(id).toEqual(expect.any(String));
		const response = await fetch(
			`${session.url}/rest/binary-data?id=${encodeURIComponent(id!)}&action=download`,
			{ headers: { cookie: session.cookie, 'browser-id': 'decision-service-setup' } },
		);
		expect(response.status).toBe(200);
		const html = await response.text();
		expect(html).toContain('Since the last evaluation');
		const card = `<!doctype html><html><body style="margin:0;padding:16px;background:#f8f8f8;font:15px/1.5 system-ui,sans-serif"><div style="max-width:760px;background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px 16px"><div style="font-weight:700;margin-bottom:4px">n8n <span style="font-weight:400;color:#777;font-size:13px">APP</span></div><div style="white-space:pre-wrap">${escapeHtml(String(report.json.message))}</div></div></body></html>`;
		const browser = await launchHeadlessChromium();
		try {
			const shots = screenshotDir;
			mkdirSync(shots, { recursive: true });
			const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
			await page.setContent(html);
			await page.screenshot({ path: join(shots, 'quality-watch-report.png'), fullPage: true });
			const small = await browser.newPage({ viewport: { width: 800, height: 300 } });
			await small.setContent(card);
			await small.screenshot({ path: join(shots, 'quality-watch-message.png'), fullPage: true });
		} finally {
			await browser.close();
		}
	});
});

/** The watch with its tables picked by id (n8n 1.123: no "By Name"), and no table created. */
function watchByIds(reviewsId: string, figuresId: string): WorkflowJson {
	const watch = onWebhook('quality-watch.json', { ...WATCH, id: 'dsQwWatch1x' });
	const created = ['Reviews table', 'Figures table'];
	const trigger = watch.nodes.find((node) => node.type === 'n8n-nodes-base.webhook')!;
	const byId = (value: string) => ({ __rl: true, mode: 'id', value });
	const ids: Record<string, string> = {
		'Previous figures': figuresId,
		'Save figures': figuresId,
		'Stored reviews': reviewsId,
		'Store new answers': reviewsId,
	};
	return {
		...watch,
		nodes: watch.nodes
			.filter((node) => !created.includes(node.name))
			.map((node) =>
				ids[node.name]
					? { ...node, parameters: { ...node.parameters, dataTableId: byId(ids[node.name]) } }
					: node,
			),
		connections: {
			...Object.fromEntries(
				Object.entries(watch.connections).filter(
					([name]) => !created.includes(name) && name !== trigger.name,
				),
			),
			[trigger.name]: { main: [[{ node: 'Previous figures', type: 'main', index: 0 }]] },
		},
	};
}

const on1 = n8nMajor(n8nVersion()) < 2 ? describe : describe.skip;

on1(`quality watched on n8n ${n8nVersion()}: its Data Table node finds tables by id only`, () => {
	const metrics: Metrics[] = [];
	const runs: Array<{ execution: Execution; charged: number }> = [];
	let shipped: Execution;
	let rows: number;

	beforeAll(async () => {
		sb = await startTestSandbox();
		work = mkdtempSync(join(tmpdir(), 'decision-service-quality-watch-1x-'));
		const asShipped = onWebhook('quality-watch.json', {
			id: 'dsQwShipped',
			name: 'QW: as shipped',
			path: 'quality-watch-shipped',
		});
		const prepared = prepareN8n({
			userFolder: join(work, 'user'),
			tarball: packTarball(join(work, 'pack')),
			sandboxBaseUrl: sb.baseUrl,
			apiKey: KEY,
			workflowsDir: writeWorkflows(join(work, 'workflows'), [asShipped]),
			port: await freePort(),
		});
		publishWorkflows(prepared, ['dsQwShipped']);
		// The tables first (their ids are n8n's), as a user creates them in the Data Tables tab.
		n8n = await startN8n(prepared);
		session = await ownerSession(n8n.url);
		const project = await personalProjectId(session);
		const reviews = await ensureTable(session, project, 'decision_reviews', LABELED_ROW_COLUMNS);
		const figures = await ensureTable(session, project, 'decision_quality', FIGURES_ROW_COLUMNS);
		await insertRows(
			session,
			reviews,
			makeLabeledSet()
				.slice(0, ADDED)
				.map((ticket, index) => ({
					// A review_id: the watch stores the answer it decides on the row (Upsert).
					review_id: `added/${index}`,
					status: 'labeled',
					decision: SLUG,
					input: JSON.stringify({ subject: ticket.subject, body: ticket.body }),
					answer: ticket.expected,
				})),
		);
		rows = ADDED;
		// The example as shipped: its tables by name, created by the node.
		const id = await triggerWebhook(session, 'dsQwShipped', 'quality-watch-shipped', {});
		shipped = await waitForExecution(session, id, ['success', 'error', 'crashed']);
		await n8n.stop();
		// Then the watch with the tables picked by id, as a user picks them after importing.
		prepared.cli([
			'import:workflow',
			'--separate',
			`--input=${writeWorkflows(join(work, 'by-id'), [watchByIds(reviews.id, figures.id)])}`,
		]);
		publishWorkflows(prepared, ['dsQwWatch1x']);
		n8n = await startN8n(prepared);
		session = await ownerSession(n8n.url);
		const decisionV1 = await sb.client(KEY).getDecision(SLUG);
		const watch = { id: 'dsQwWatch1x', path: WATCH.path };
		runs.push(await run(watch));
		metrics.push(await recomputed(outputsOf(runs[0].execution, EVALUATE)[1], decisionV1));
		await publishSwappedVersion();
		const decisionV2 = await sb.client(KEY).getDecision(SLUG);
		runs.push(await run(watch));
		metrics.push(await recomputed(outputsOf(runs[1].execution, EVALUATE)[1], decisionV2));
	});

	afterAll(async () => {
		await n8n?.stop();
		await sb?.close();
		if (work) rmSync(work, { recursive: true, force: true });
	});

	it('the example as shipped stops at its first Data Table node: no table by name, no table resource', () => {
		console.log(
			`quality watch e2e on ${n8nVersion()}: as shipped, ${JSON.stringify({ error: shipped.error, last: shipped.lastNodeExecuted, ran: Object.keys(shipped.runData) })}`,
		);
		expect(shipped.status).toBe('error');
		// Node 1.0 has no Table resource: its `tableName` parameter does not exist there.
		expect(shipped.lastNodeExecuted).toBe('Reviews table');
		expect(shipped.error?.message).toBe('Could not get parameter');
		expect(Object.keys(shipped.runData)).not.toContain('Watch quality');
	});

	it('with the tables picked by id, the watch runs twice around a version change and alerts', () => {
		expect(runs.map((each) => each.charged)).toEqual([rows, rows]);
		const [[first], , firstDrift] = outputsOf(runs[0].execution, EVALUATE);
		expect(first.json.accuracy).toBe(round(metrics[0].accuracy));
		expect(firstDrift ?? []).toEqual([]);
		const [[second], , drift] = outputsOf(runs[1].execution, EVALUATE);
		expect(second.json.drift).toMatchObject({
			previous_version: 1,
			accuracy: { before: round(metrics[0].accuracy), after: round(metrics[1].accuracy) },
			dropped: true,
		});
		expect(drift).toHaveLength(1);
	});
});
