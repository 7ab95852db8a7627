/**
 * The audit example's doubtful tickets in real n8n 2.x (issue 43, point 6; issue 44, point 4):
 * examples/ticket-routing-audit.json, flow A, its manual run replaced by a webhook. Besides the
 * audit sample, *Route ticket* sends Uncertain and Pending Review through *Doubtful tickets* (a
 * Merge) to *Review doubtful tickets*; a person reviews three of the four doubtful tickets and
 * leaves one for later. Every doubtful ticket ends with one row in `decision_reviews`, reviewed or
 * `not_reviewed`, and every ticket at its team; a ticket without a subject goes to *Invalid
 * tickets* (Continue (using error output)) and stops nothing.
 *
 * On n8n 2.x only: Review waits on n8n 2's signed resume URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTable, personalProjectId, readRows, type Row } from '../../harness/n8n-data-tables';
import type { N8nInstance } from '../../harness/n8n-env';
import {
	readExample,
	startN8nWithWorkflows,
	triggerWebhook,
	waitForExecution,
	type Execution,
	type OwnerSession,
	type WorkflowJson,
	webhookFields,
} from '../../harness/n8n-executions';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import {
	fillReview,
	openPage,
	parseForm,
	submitForm,
	waitingLinkIn,
	whereItemsEnded,
} from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { AUDIT_EXAMPLE, REVIEWS_TABLE } from '../../scripts/make-audit-example';
import {
	REVIEW_TICKETS,
	choicesFor,
	isDoubtful,
	runIdsBySubject,
	ticketItem,
} from '../support/review';

jest.setTimeout(600_000);

const KEY = DEMO_KEYS.pro;
const FLOW = { id: 'dsAuditDoubtful1', path: 'audit-doubtful' };
const ROUTE = 'Route ticket';
const REVIEW = 'Review doubtful tickets';
const MESSAGE = 'Message for doubtful tickets';
const TEAMS: Record<string, string> = {
	billing: 'Billing team',
	technical: 'Technical support',
	sales: 'Sales team',
	account: 'Account management',
};
const INVALID = {
	subject: '',
	body: 'No subject on this one',
	email: 'x@example.com',
	plan: 'pro',
};

/** Flow A with its manual run replaced by a webhook of the same name: every wire stays. */
function flowA(): WorkflowJson {
	const workflow = readExample(AUDIT_EXAMPLE);
	return {
		...workflow,
		id: FLOW.id,
		name: 'Audit example: doubtful tickets',
		active: false,
		nodes: workflow.nodes.map((node) => {
			if (node.type === 'n8n-nodes-base.manualTrigger')
				return { ...node, ...webhookFields(FLOW.id, FLOW.path) };
			if (node.name === 'Sample tickets')
				return { ...node, parameters: { ...node.parameters, jsonOutput: '={{ $json.body }}' } };
			return node;
		}),
	};
}

const doubtful = REVIEW_TICKETS.filter((ticket) => isDoubtful(ticket));

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let finished: Execution;
let rows: Row[];

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;

on2(`the audit example's doubtful tickets in n8n ${n8nVersion()}`, () => {
	beforeAll(async () => {
		sb = await startTestSandbox();
		work = mkdtempSync(join(tmpdir(), 'decision-service-audit-doubtful-'));
		({ n8n, session } = await startN8nWithWorkflows({
			work,
			sandboxBaseUrl: sb.baseUrl,
			apiKey: KEY,
			workflows: [flowA()],
		}));
		const tickets = [
			...REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index, 'audit-doubtful')),
			INVALID,
		];
		const started = await triggerWebhook(session, FLOW.id, FLOW.path, { tickets });
		const waiting = await waitForExecution(session, started, ['waiting']);
		const link = waitingLinkIn(waiting, MESSAGE);
		const page = await openPage(link);
		const form = parseForm(page.html);
		fillReview(page.html, form, choicesFor(REVIEW_TICKETS));
		await submitForm(link, form);
		finished = await waitForExecution(session, started, ['success', 'error', 'crashed']);
		const table = await findTable(session, await personalProjectId(session), REVIEWS_TABLE);
		rows = table
			? (await readRows(session, table)).filter((row) => row.execution_id === started)
			: [];
	});

	afterAll(async () => {
		await n8n?.stop();
		await sb?.close();
		if (work) rmSync(work, { recursive: true, force: true });
	});

	it('every ticket reaches its team (a reviewed one its pick, the one left its team lead), the bad one Invalid tickets', () => {
		expect(finished.status).toBe('success');
		const ends = whereItemsEnded(finished, [
			...Object.values(TEAMS),
			'Team lead (not reviewed)',
			'Invalid tickets',
		]);
		expect(ends).toEqual({
			...Object.fromEntries(
				REVIEW_TICKETS.map((ticket) => [
					ticket.subject,
					[
						isDoubtful(ticket)
							? ticket.pick
								? TEAMS[ticket.pick]
								: 'Team lead (not reviewed)'
							: TEAMS[ticket.routed],
					],
				]),
			),
			'': ['Invalid tickets'],
		});
	});

	it('stores one row per doubtful ticket: reviewed, or not_reviewed', () => {
		const runIds = runIdsBySubject(finished, ROUTE);
		expect(
			rows
				.map((row) => ({ run: row.run_id, status: row.status, stratum: row.stratum }))
				.sort((a, b) => String(a.run).localeCompare(String(b.run))),
		).toEqual(
			doubtful
				.map((ticket) => ({
					run: runIds.get(ticket.subject),
					status: ticket.pick ? 'reviewed' : 'not_reviewed',
					stratum: 'doubtful',
				}))
				.sort((a, b) => String(a.run).localeCompare(String(b.run))),
		);
		expect(finished.outputs[REVIEW]?.[0]).toHaveLength(
			doubtful.filter((ticket) => !ticket.pick).length,
		);
		process.stdout.write(
			`audit doubtful e2e: ${rows.length} rows for ${doubtful.length} doubtful tickets (${rows.filter((row) => row.status === 'not_reviewed').length} not reviewed)\n`,
		);
	});
});
