/**
 * Writes examples/ticket-routing-audit.json (docs/audit.md): a share of the confident answers
 * checked by a person, so the stored reviews hold a sample of all traffic, not only the doubtful
 * items.
 *
 * - Flow A (Run example): the sample tickets routed by *Route ticket* with Audit Share 20 %; each
 *   ticket goes to its team; a copy of each picked answer (a flat row) goes to the Audit output and
 *   into the Data Table `decision_audit_queue` (created on the first run, columns of src/answer/audit.ts).
 * - Flow B (every weekday at 9; its trigger shipped switched off, so that the editor's main button
 *   runs Flow A): up to 20 queued answers turned back into the items they were,
 *   reviewed by a person on one page (Review); each review stored in `decision_reviews` by the
 *   review store's node (scripts/make-review-store.ts: an Upsert on review_id that fails the run
 *   when the table refuses a row), then its row leaves the queue. A review not stored leaves
 *   nothing; n8n's Retry of the red run stores it and empties its row. An answer not reviewed
 *   stays queued for the next drain.
 *
 * The decision, the sample tickets, the store branch and the Outputs lists are read from the
 * review example, so the two stay alike. Run: npx tsx scripts/make-audit-example.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AUDIT_QUEUE_COLUMNS } from '../src/answer/audit';
import { LABELED_ROW_COLUMNS } from '../src/answer';
import { dataTable, ensureTable, noOp, sticky, table, to, type Node } from './example-nodes';
import { storeReviewNode } from './make-review-store';
import {
	AUDIT_OUTPUT_NAME,
	ENTRY,
	OUTPUTS_LIST_PARAMETER,
	forReview,
} from '../nodes/DecisionService/outputs/list';

const examples = join(__dirname, '..', 'examples');
export const AUDIT_EXAMPLE = 'ticket-routing-audit.json';
export const QUEUE_TABLE = 'decision_audit_queue';
export const REVIEWS_TABLE = 'decision_reviews';
/** Audit Share of the example: high, so the few sample tickets show a sample. */
export const EXAMPLE_SHARE = 20;
/** Queued answers a drain puts on one review page. */
export const DRAIN_LIMIT = 20;

type Routes = { value: Record<string, unknown>; schema: Array<Record<string, unknown>> };

const review = JSON.parse(readFileSync(join(examples, 'ticket-routing-review.json'), 'utf8')) as {
	nodes: Node[];
};
const fromReview = (name: string): Node => {
	const node = review.nodes.find((each) => each.name === name);
	if (!node) throw new Error(`ticket-routing-review.json has no node "${name}"`);
	return structuredClone(node);
};

const uuid = (n: number) => `a0d17e11-5a3b-4000-8000-${String(n).padStart(12, '0')}`;

/** A copy of a review-example node with an id of this example and a place on its canvas. */
const copied = (name: string, n: number, position: [number, number], rename = name): Node => ({
	...fromReview(name),
	id: uuid(n),
	name: rename,
	position,
});

// ---------------------------------------------------------------- flow A: route, queue the sample
/** Flow A's message with the doubtful tickets' link (flow B's keeps the review example's name). */
const DOUBTFUL_MESSAGE = 'Message for doubtful tickets';
const route = copied('Route ticket', 1, [660, 300]);
{
	const routes = route.parameters[OUTPUTS_LIST_PARAMETER] as Routes;
	// The list as a refresh loads it for a decision picked anew with the share set: Audit right
	// after Other (nodes/DecisionService/outputs/list.ts, freshOutputsList with `audit`).
	const other = routes.schema.findIndex((entry) => entry.id === ENTRY.other);
	const audit = {
		...routes.schema[other],
		id: ENTRY.audit,
		displayName: AUDIT_OUTPUT_NAME,
		defaultValue: AUDIT_OUTPUT_NAME,
	};
	routes.schema.splice(other + 1, 0, audit);
	routes.value = Object.fromEntries(
		routes.schema
			.filter((entry) => entry.display !== false && entry.defaultValue != null)
			.map((entry) => [entry.id, entry.defaultValue]),
	);
	route.parameters.options = { auditShare: EXAMPLE_SHARE };
}

const ROUTE_NOTE = [
	'## A sample of the confident answers',
	`*Route ticket* has **Audit Share ${EXAMPLE_SHARE} %** (Options). Each ticket still goes to its team; for about ${EXAMPLE_SHARE} in 100 of the confident answers a copy also goes to **Audit**, and *Queue for audit* keeps it in the Data Table **${QUEUE_TABLE}** (created on the first run).`,
	'',
	'The pick is a hash of the ticket: the same ticket is always picked or never, on a retry or a re-run. **No extra units**: the copy is the answer already paid for.',
	'',
	'Doubtful tickets (Uncertain, Pending Review) go to a person as in the review example: *Doubtful tickets* gathers them into *Review doubtful tickets*. Reviewed or not, each is stored in **decision_reviews** (`stratum` doubtful; `status` not_reviewed when nobody answered), so Evaluate knows how many doubtful tickets there were.',
].join('\n');

const flowA: Node[] = [
	{ ...fromReview('Run example'), id: uuid(2), position: [0, 300] },
	ensureTable(uuid(3), 'Audit queue table', QUEUE_TABLE, AUDIT_QUEUE_COLUMNS, [220, 120]),
	// The doubtful tickets' rows are stored before any drain: their table exists from the first run.
	ensureTable(uuid(38), 'Reviews table ready', REVIEWS_TABLE, LABELED_ROW_COLUMNS, [440, 120]),
	{ ...fromReview('Sample tickets'), id: uuid(4), position: [220, 300] },
	{ ...fromReview('One item each'), id: uuid(5), position: [440, 300] },
	route,
	copied('Billing team', 6, [1000, 0]),
	copied('Technical support', 7, [1000, 160]),
	copied('Sales team', 8, [1000, 320]),
	copied('Account management', 9, [1000, 480]),
	// The review example's doubtful path, as it is there: every doubtful ticket reviewed or stored
	// as not reviewed, so the doubtful stratum is whole (issue 43, point 6).
	copied('Doubtful tickets', 30, [840, 700]),
	copied('Message for reviewers', 31, [1000, 620], DOUBTFUL_MESSAGE),
	copied('Review doubtful tickets', 32, [1000, 780]),
	copied('Team lead (not reviewed)', 33, [1300, 700]),
	copied('Reviewed by a person', 34, [1300, 240], 'Reviewed by a person (doubtful)'),
	copied('Labeled row', 35, [1520, 240], 'Labeled row (doubtful)'),
	copied('Store reviews', 36, [1740, 240], 'Store doubtful reviews'),
	copied('Unrouted', 11, [1000, 940]),
	copied('Invalid tickets', 37, [1000, 1260]),
	{
		id: uuid(12),
		name: 'Queue for audit',
		type: dataTable,
		typeVersion: 1.1,
		position: [1000, 1100],
		parameters: {
			resource: 'row',
			operation: 'insert',
			dataTableId: table(QUEUE_TABLE),
			// The Audit rows are flat and named as the table's columns: mapped by name.
			columns: {
				mappingMode: 'autoMapInputData',
				value: {},
				matchingColumns: [],
				schema: [],
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
			options: {},
		},
	},
	sticky(uuid(13), 'A sample of the confident answers', [300, -320], [600, 300], ROUTE_NOTE),
];

// ---------------------------------------------------------------- flow B: drain the queue
const Y = 1500;
const reviewer = copied('Review doubtful tickets', 20, [1100, Y], 'Review audited answers');
{
	const routes = reviewer.parameters[OUTPUTS_LIST_PARAMETER] as Routes;
	// Review's list: the answers only (Uncertain, Pending Review and Other hidden, as Review shows it).
	routes.schema = forReview(routes.schema as never) as never;
	reviewer.parameters.options = {
		instructions:
			'These answers were sent straight to a team. Pick the team that should have answered each ticket, or leave it for later: it stays in the queue for the next review.',
	};
}

const message: Node = {
	...copied('Message for reviewers', 21, [1100, Y - 180]),
	notes:
		'Replace with Slack, Microsoft Teams, Gmail or any node that sends a message, kept above "Review audited answers": n8n runs the upper branch first, so the link is sent before the wait.',
};
(
	(message.parameters.assignments as { assignments: Array<{ name: string; value: string }> })
		.assignments[0] as { value: string }
).value =
	'={{ $input.all().length }} routed tickets were picked for an audit: check their team on this page (it can be sent once): {{ $execution.resumeUrl }}';

const DRAIN_NOTE = [
	'## A person checks the sample',
	'*Every weekday at 9* comes switched off, so that the main button runs *Run example*: select it and press **D** to switch it on, to try this part or before you publish.',
	'',
	`Every weekday at 9, *Queued answers* takes up to **${DRAIN_LIMIT}** rows of **${QUEUE_TABLE}**; *The item to review* turns each back into the ticket and its answer; the review page opens from **Message for reviewers** (its field \`n8n_review_page\`).`,
	'',
	`Each review is stored in **${REVIEWS_TABLE}** with \`stratum\` = audited and its \`audit_share\`, then its row **leaves the queue**. An answer left for later stays queued for the next day.`,
	'',
	`**Reviewer time**: share × confident tickets a day × about 30 s. At ${EXAMPLE_SHARE} % of 200 confident tickets a day: 40 checks, about 20 minutes; at 5 %: 10 checks, about 5 minutes.`,
	'',
	"Evaluate (the quality watch example) reads these rows with the doubtful ones: **accuracy over all traffic**, with its 95 % interval, in the report's `all_traffic`.",
].join('\n');

const flowB: Node[] = [
	{
		id: uuid(14),
		name: 'Every weekday at 9',
		type: 'n8n-nodes-base.scheduleTrigger',
		typeVersion: 1.2,
		position: [0, Y],
		parameters: {
			rule: { interval: [{ field: 'weeks', triggerAtDay: [1, 2, 3, 4, 5], triggerAtHour: 9 }] },
		},
		// Shipped off: n8n's main button starts from the trigger its editor ranks first, and it ranks a
		// schedule above a manual trigger (n8n-editor-ui 2.41.1); off, the button runs Run example, as
		// docs/audit.md begins. Switched on (D) to try this part, or before the workflow is published.
		disabled: true,
	},
	ensureTable(uuid(15), 'Reviews table', REVIEWS_TABLE, LABELED_ROW_COLUMNS, [220, Y]),
	// The queue may not exist yet (no answer picked so far): an empty one, not a failed run.
	ensureTable(uuid(16), 'Audit queue ready', QUEUE_TABLE, AUDIT_QUEUE_COLUMNS, [440, Y]),
	{
		id: uuid(17),
		name: 'Queued answers',
		type: dataTable,
		typeVersion: 1.1,
		position: [660, Y],
		executeOnce: true,
		parameters: {
			resource: 'row',
			operation: 'get',
			dataTableId: table(QUEUE_TABLE),
			matchType: 'allConditions',
			filters: {
				conditions: [{ keyName: 'decision', condition: 'eq', keyValue: 'ticket-routing' }],
			},
			returnAll: false,
			limit: DRAIN_LIMIT,
			// Oldest first: what waits longest is reviewed first.
			orderBy: true,
			orderByColumn: 'createdAt',
			orderByDirection: 'ASC',
		},
	},
	{
		// The row's `item` is the ticket as sent and its answer, as JSON text: back to an item.
		id: uuid(18),
		name: 'The item to review',
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position: [880, Y],
		parameters: { mode: 'raw', jsonOutput: '={{ $json.item }}', options: {} },
	},
	message,
	reviewer,
	noOp(uuid(22), 'Stays in the queue (not reviewed)', [1400, Y - 120]),
	copied('Reviewed by a person', 23, [1400, Y + 60]),
	copied('Labeled row', 24, [1620, Y + 60]),
	// The review example's store, in this run: a review not stored fails it here, so nothing leaves
	// the queue; n8n's Retry stores the same reviews (once, by review_id), then they leave it.
	storeReviewNode(uuid(26), [1840, Y + 60]),
	{
		id: uuid(27),
		name: 'Leave the queue',
		type: dataTable,
		typeVersion: 1.1,
		position: [2060, Y + 60],
		parameters: {
			resource: 'row',
			operation: 'deleteRows',
			dataTableId: table(QUEUE_TABLE),
			matchType: 'allConditions',
			filters: {
				conditions: [{ keyName: 'run_id', condition: 'eq', keyValue: '={{ $json.run_id }}' }],
			},
			options: {},
		},
	},
	sticky(uuid(28), 'A person checks the sample', [300, Y - 520], [640, 340], DRAIN_NOTE),
];
for (const node of flowB) if (node.onError === undefined) delete node.onError;

const reviewOutputs = (routes: Routes) =>
	routes.schema.filter((entry) => entry.display !== false && !entry.removed).length;
const answers = reviewOutputs(reviewer.parameters[OUTPUTS_LIST_PARAMETER] as Routes);

export const auditExample = {
	id: 'dsExTicketAudit',
	name: 'Decision Service: ticket routing with an audit sample',
	active: false,
	nodes: [...flowA, ...flowB],
	connections: {
		'Run example': {
			main: [[...to('Sample tickets'), ...to('Audit queue table'), ...to('Reviews table ready')]],
		},
		'Sample tickets': { main: [to('One item each')] },
		'One item each': { main: [to('Route ticket')] },
		// Teams, Uncertain, Pending Review, Other, Audit, then the error output.
		'Route ticket': {
			main: [
				to('Billing team'),
				to('Technical support'),
				to('Sales team'),
				to('Account management'),
				to('Doubtful tickets', 0),
				to('Doubtful tickets', 1),
				to('Unrouted'),
				to('Queue for audit'),
				to('Invalid tickets'),
			],
		},
		'Doubtful tickets': { main: [[...to(DOUBTFUL_MESSAGE), ...to('Review doubtful tickets')]] },
		// Not Reviewed, then one output per team, as in the review example.
		'Review doubtful tickets': {
			main: [
				to('Team lead (not reviewed)'),
				to('Billing team'),
				to('Technical support'),
				to('Sales team'),
				to('Account management'),
			],
		},
		...Object.fromEntries(
			['Billing team', 'Technical support', 'Sales team', 'Account management'].map((team) => [
				team,
				{ main: [to('Reviewed by a person (doubtful)')] },
			]),
		),
		'Team lead (not reviewed)': { main: [to('Labeled row (doubtful)')] },
		'Reviewed by a person (doubtful)': { main: [to('Labeled row (doubtful)')] },
		'Labeled row (doubtful)': { main: [to('Store doubtful reviews')] },
		'Every weekday at 9': { main: [to('Reviews table')] },
		'Reviews table': { main: [to('Audit queue ready')] },
		'Audit queue ready': { main: [to('Queued answers')] },
		'Queued answers': { main: [to('The item to review')] },
		'The item to review': {
			main: [[...to('Message for reviewers'), ...to('Review audited answers')]],
		},
		// Not Reviewed, then one output per team: every reviewed answer is stored.
		'Review audited answers': {
			main: [
				to('Stays in the queue (not reviewed)'),
				...Array.from({ length: answers }, () => to('Reviewed by a person')),
			],
		},
		'Reviewed by a person': { main: [to('Labeled row')] },
		'Labeled row': { main: [to('Store review')] },
		'Store review': { main: [to('Leave the queue')] },
	},
	settings: { executionOrder: 'v1' },
	pinData: {},
	meta: {
		templateCredsSetupCompleted: true,
		description: `Tickets routed with Audit Share ${EXAMPLE_SHARE} %: a sample of the confident answers queued in ${QUEUE_TABLE}; every weekday a person checks up to ${DRAIN_LIMIT} of them on one page, each review stored in ${REVIEWS_TABLE} (stratum audited) and taken off the queue. No extra units.`,
	},
};

if (require.main === module)
	writeFileSync(join(examples, AUDIT_EXAMPLE), `${JSON.stringify(auditExample, null, '\t')}\n`);
