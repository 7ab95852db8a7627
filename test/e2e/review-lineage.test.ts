/**
 * Review keeps each item's lineage in real n8n: after a person submits the page, every item on
 * every output of Review points at its own input item, so `$('One item each').item` in a node after
 * Review (straight after an output, or after a Merge of all of them) gives that ticket's own
 * subject, for the ticket left for later (Not Reviewed) and for the reviewed ones alike.
 *
 * n8n 2.41.1 resumes a waiting node disabled and forwards the lists its webhook returned, and
 * n8n-core's `addPairedItemLineage` rewrites every forwarded item's `pairedItem` to its position in
 * its list and the list's index as an input (workflow-execute.js): without Review's own routing on
 * resume (execute.ts, `routeOnResume`), the ticket left for later traced to the first ticket's
 * subject, silently, and the reviewed ones to an input Review does not have.
 *
 * The workflow is the review example behind a webhook (harness/n8n-review.ts), its Review outputs
 * rewired: each to a Set node of its own, and all of them into a Merge (append) with one Set after
 * it; each Set writes `{{ $json.subject }}` and `{{ $('One item each').item.json.subject }}`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { N8nInstance } from '../../harness/n8n-env';
import {
	triggerWebhook,
	waitForExecution,
	type Execution,
	type Item,
	type OwnerSession,
	type WorkflowJson,
	startN8nWithWorkflows,
} from '../../harness/n8n-executions';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import { LINEAGE_WARNING_FIELD } from '../../nodes/DecisionService/actions/decision/review/resume';
import {
	MESSAGE_NODE,
	NOT_REVIEWED,
	fillReview,
	openPage,
	parseForm,
	reviewWorkflow,
	submitForm,
	waitingLinkIn,
	type Page,
} from '../../harness/n8n-review';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { REVIEW_TICKETS, isDoubtful, ticketItem } from '../support/review';

jest.setTimeout(600_000);

const KEY = DEMO_KEYS.pro;
const WORKFLOW = { id: 'dsReviewLineage1', path: 'decision-service-review-lineage' };
/** The node that makes one item per ticket: what the expressions after Review look back at. */
const SPLIT = 'One item each';
const MERGE = 'Merge outputs';
const AFTER_MERGE = 'Check merged';
const checkOf = (output: string) => `Check ${output}`;

/**
 * What the person picks, by subject. Review's input holds the doubtful tickets in ticket order
 * (hello, Invoice and crash, Bill and login, Password and payment): the third is left for later,
 * so it is first on Not Reviewed but not Review's first item; two go to the same output.
 */
const PICKS: Record<string, string | undefined> = {
	hello: 'billing',
	'Invoice and crash': 'account',
	'Bill and login': undefined,
	'Password and payment': 'account',
};

const doubtful = REVIEW_TICKETS.filter((ticket) => isDoubtful(ticket));

/** A Set node that writes the item's subject and the subject `$('One item each').item` gives. */
function checkNode(name: string, position: [number, number]) {
	return {
		id: `c0ffee00-0000-4000-8000-${String(Math.abs(hash(name)))
			.padStart(12, '0')
			.slice(0, 12)}`,
		name,
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position,
		// An expression that cannot trace the item fails that item only; the test shows which.
		onError: 'continueRegularOutput',
		parameters: {
			mode: 'manual',
			assignments: {
				assignments: [
					{ id: 'own', name: 'own', type: 'string', value: '={{ $json.subject }}' },
					{
						id: 'traced',
						name: 'traced',
						type: 'string',
						value: `={{ $('${SPLIT}').item.json.subject }}`,
					},
				],
			},
			options: {},
		},
	};
}

function hash(text: string): number {
	let value = 7;
	for (const char of text) value = (value * 31 + char.charCodeAt(0)) | 0;
	return value;
}

/** The review example with Review's outputs rewired to the checks (see the file's comment). */
function lineageWorkflow() {
	const base = reviewWorkflow({ ...WORKFLOW, name: 'Review e2e: lineage' });
	const outputs = base.reviewOutputs;
	const merge = {
		id: 'c0ffee00-0000-4000-8000-00000000beef',
		name: MERGE,
		type: 'n8n-nodes-base.merge',
		typeVersion: 3.2,
		position: [1800, 1000] as [number, number],
		parameters: { mode: 'append', numberInputs: outputs.length },
	};
	const workflow: WorkflowJson = {
		...base.workflow,
		nodes: [
			...base.workflow.nodes,
			...outputs.map((output, index) => checkNode(checkOf(output), [1800, 200 * index])),
			merge,
			checkNode(AFTER_MERGE, [2000, 1000]),
		],
		connections: {
			...base.workflow.connections,
			[base.review]: {
				main: outputs.map((output, index) => [
					{ node: checkOf(output), type: 'main', index: 0 },
					{ node: MERGE, type: 'main', index },
				]),
			},
			[MERGE]: { main: [[{ node: AFTER_MERGE, type: 'main', index: 0 }]] },
		},
	};
	return { ...base, workflow };
}

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;

/** What a check node gave for each item it got: the item's subject and the traced one (or the error). */
function checked(execution: Execution, node: string): Array<{ own: unknown; traced: unknown }> {
	return (execution.outputs[node]?.[0] ?? []).map((item: Item) => ({
		own: item.json.own,
		traced: item.json.error !== undefined ? `error: ${String(item.json.error)}` : item.json.traced,
	}));
}

on2(`Review keeps item lineage in n8n ${n8nVersion()}`, () => {
	const lineage = lineageWorkflow();
	let waiting: Execution;
	let submitted: Page;
	let finished: Execution;

	beforeAll(async () => {
		sb = await startTestSandbox();
		work = mkdtempSync(join(tmpdir(), 'decision-service-review-lineage-'));
		({ n8n, session } = await startN8nWithWorkflows({
			work,
			sandboxBaseUrl: sb.baseUrl,
			apiKey: KEY,
			workflows: [lineage.workflow],
		}));

		const executionId = await triggerWebhook(session, WORKFLOW.id, WORKFLOW.path, {
			tickets: REVIEW_TICKETS.map((ticket, index) => ticketItem(ticket, index, 'lineage')),
		});
		waiting = await waitForExecution(session, executionId, ['waiting']);
		const link = waitingLinkIn(waiting, MESSAGE_NODE);
		const page = await openPage(link);
		const form = parseForm(page.html);
		fillReview(
			page.html,
			form,
			Object.entries(PICKS).map(([marker, answer]) => ({ marker, answer })),
		);
		submitted = await submitForm(link, form);
		finished = await waitForExecution(session, executionId, ['success', 'error']);
	});

	it('reaches Review with the doubtful tickets in ticket order, and resumes on the submit', () => {
		expect(doubtful.map((ticket) => ticket.subject)).toEqual(Object.keys(PICKS));
		expect((waiting.outputs[lineage.decide][5] ?? []).map((item) => item.json.subject)).toEqual(
			Object.keys(PICKS),
		);
		expect(submitted.status).toBe(200);
		expect({ status: finished.status, error: finished.error }).toEqual({
			status: 'success',
			error: undefined,
		});
	});

	it('puts each ticket on its pick’s output, the one left for later on Not Reviewed', () => {
		const outputs = finished.outputs[lineage.review];
		const subjects = Object.fromEntries(
			lineage.reviewOutputs.map((name, index) => [
				name,
				(outputs[index] ?? []).map((item) => item.json.subject),
			]),
		);
		expect(subjects).toEqual(
			Object.fromEntries(
				lineage.reviewOutputs.map((name) => [
					name,
					Object.keys(PICKS).filter((subject) => (PICKS[subject] ?? NOT_REVIEWED) === name),
				]),
			),
		);
	});

	it("traces every item on every output of Review to its own ticket: $('One item each').item", () => {
		const outputs = finished.outputs[lineage.review];
		const results = lineage.reviewOutputs.map((name, index) => ({
			output: name,
			items: checked(finished, checkOf(name)),
			expected: (outputs[index] ?? []).map((item) => ({
				own: item.json.subject,
				traced: item.json.subject,
			})),
		}));
		expect(results.map(({ output, items }) => ({ output, items }))).toEqual(
			results.map(({ output, expected }) => ({ output, items: expected })),
		);
		expect(results.reduce((sum, each) => sum + each.items.length, 0)).toBe(doubtful.length);
	});

	it('traces them after a Merge (append) of all of Review’s outputs too', () => {
		const merged = checked(finished, AFTER_MERGE);
		expect(merged).toHaveLength(doubtful.length);
		expect(merged).toEqual(merged.map((each) => ({ own: each.own, traced: each.own })));
		expect(merged.map((each) => each.own).sort()).toEqual(Object.keys(PICKS).sort());
	});

	it('marks no item: this n8n resumes a review as Review knows (no lineageWarning)', () => {
		// On an n8n that resumes a review differently, every item would carry the warning
		// (test/node/review-lineage.test.ts forces that case; docs/compatibility.md).
		const items = finished.outputs[lineage.review].flat();
		expect(items.length).toBe(doubtful.length);
		expect(items.filter((item) => LINEAGE_WARNING_FIELD in item.json)).toEqual([]);
	});

	it('keeps Review’s own items pointing at its input: pairedItem is the index on its one input', () => {
		const inputs = (waiting.outputs[lineage.decide][5] ?? []).map((item) => item.json.subject);
		const paired = finished.outputs[lineage.review].flat().map((item) => ({
			subject: item.json.subject,
			pairedItem: item.pairedItem,
		}));
		expect(paired).toEqual(
			paired.map((each) => ({
				subject: each.subject,
				pairedItem: { item: inputs.indexOf(each.subject) },
			})),
		);
	});
});
