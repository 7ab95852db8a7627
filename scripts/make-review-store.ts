/**
 * Writes the review example's store (docs/quality-watch.md, section 1):
 *
 * - examples/review-store.json ("Decision Service: store reviews"): a sub-workflow that stores the
 *   rows it is given in the Data Table `decision_reviews`, one row per `review_id` (an Upsert). It
 *   fails, red in n8n's Executions, whenever a row is not stored (table missing, renamed, a column
 *   gone, the size cap): n8n retries a failed execution from the failed node with its saved input,
 *   so Retry stores the same rows once the table is fixed, and never twice.
 * - examples/ticket-routing-review.json: after the teams, its reviews handed to that sub-workflow
 *   (Execute Workflow, waiting, On Error: Continue), so a failed store never stops a ticket. The
 *   other nodes and any sticky note are kept as they are: the file is read first.
 *
 * The table's columns are src/answer's (LABELED_ROW_COLUMNS).
 * Run: npx tsx scripts/make-review-store.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LABELED_ROW_COLUMNS } from '../src/answer';
import { ensureTable, fieldAsItem, sticky, to, upsertRows, type Node } from './example-nodes';

const examples = join(__dirname, '..', 'examples');
export const REVIEWS_TABLE = 'decision_reviews';
export const STORE_EXAMPLE = 'review-store.json';
export const STORE_WORKFLOW = { id: 'dsExReviewStore', name: 'Decision Service: store reviews' };

const uuid = (prefix: string, n: number) =>
	`${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;

const R = (n: number) => uuid('7a11c4e0-5e34', n);
const TEAMS = ['Billing team', 'Technical support', 'Sales team', 'Account management'];
/** The store branch's nodes in the review example (the last two are gone since the sub-workflow). */
const STORE = [
	'Reviews table',
	'Reviewed by a person',
	'Labeled row',
	'Store reviews',
	'Once per review',
	'Store review',
];

/**
 * Data Table → Upsert on `review_id`, Map Automatically, On Error at n8n's default (stop): a row
 * the table refuses fails the node (with On Error: Continue, n8n 2.41.1 lets a refused bulk insert
 * or upsert pass with no error on its items: DataTable/actions/router.js), and n8n's Retry runs it
 * again on its saved input. A review sent twice (a classify review on two outputs, a retry, a
 * re-run) updates its row in place: one row per review.
 */
export const storeReviewNode = (id: string, position: [number, number]): Node =>
	upsertRows(id, 'Store review', REVIEWS_TABLE, 'review_id', position);

const S = (n: number) => uuid('7a11c4e0-5e35', n);
const STORE_NOTE = [
	'## Every review stored, or this execution is red',
	`*Store review* keeps each review as one row of **${REVIEWS_TABLE}**, found by its \`review_id\`: a review sent again updates its row, never adds a second one.`,
	'',
	'When the table refuses a row (deleted, renamed, a column removed, the size limit reached), this execution **fails**: red in *Executions*, the cause in its error, the reviews in the input of *Store review*. The tickets are not stopped: they reached their teams in the review workflow.',
	'',
	`**The way back**: fix the table (run *Reviews table* in the review example to create it again, rename it back to ${REVIEWS_TABLE}, add the column back, or make room), then open the red execution and click **Retry → Retry with original workflow**. n8n runs *Store review* again on the same reviews: each is stored once. Nobody reviews again.`,
].join('\n');

/** The sub-workflow that stores reviews (examples/review-store.json). */
export const storeWorkflow = {
	...STORE_WORKFLOW,
	active: false,
	nodes: [
		{
			id: S(1),
			name: 'Reviews to store',
			type: 'n8n-nodes-base.executeWorkflowTrigger',
			typeVersion: 1.1,
			position: [0, 300],
			parameters: { inputSource: 'passthrough' },
		},
		storeReviewNode(S(2), [220, 300]),
		sticky(
			S(3),
			'Every review stored, or this execution is red',
			[-60, -140],
			[620, 400],
			STORE_NOTE,
		),
	] as Node[],
	connections: { 'Reviews to store': { main: [to('Store review')] } },
	settings: { executionOrder: 'v1' },
	pinData: {},
	meta: {
		description: `Stores review rows in ${REVIEWS_TABLE}, one per review_id. A row not stored fails this execution (red in Executions); fix the table and Retry it: the same reviews are stored, once.`,
	},
};

function withStore(review: {
	nodes: Node[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
	[field: string]: unknown;
}) {
	const nodes = review.nodes.filter((node) => !STORE.includes(node.name));
	const connections = Object.fromEntries(
		Object.entries(review.connections)
			.filter(([name]) => !STORE.includes(name))
			.map(([name, each]) => [
				name,
				{
					...each,
					main: each.main.map((targets) =>
						targets.filter((target) => !STORE.includes(target.node)),
					),
				},
			]),
	);
	nodes.push(
		ensureTable(R(1), 'Reviews table', REVIEWS_TABLE, LABELED_ROW_COLUMNS, [220, 120]),
		{
			id: R(2),
			name: 'Reviewed by a person',
			type: 'n8n-nodes-base.filter',
			typeVersion: 2.2,
			position: [1760, 240],
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: R(5),
							leftValue: "={{ $json.review?.status ?? '' }}",
							rightValue: 'reviewed',
							operator: { type: 'string', operation: 'equals' },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
		},
		fieldAsItem(R(3), 'Labeled row', 'review', [1980, 240]),
		// Another execution stores the rows (examples/review-store.json): one that fails is red
		// there and n8n can retry it, and this one goes on (On Error: Continue), so a failed store
		// never stops a ticket. Waiting for it keeps the stores of one execution one after another
		// (a classify review reaches the branch once per label, one review_id).
		{
			id: R(7),
			name: 'Store reviews',
			type: 'n8n-nodes-base.executeWorkflow',
			typeVersion: 1.2,
			position: [2200, 240],
			onError: 'continueRegularOutput',
			notes:
				'Runs "Decision Service: store reviews". A review not stored makes that execution red in Executions, ready to retry; the tickets here go on.',
			parameters: {
				workflowId: {
					__rl: true,
					mode: 'list',
					value: STORE_WORKFLOW.id,
					cachedResultName: STORE_WORKFLOW.name,
				},
				workflowInputs: {
					mappingMode: 'defineBelow',
					value: {},
					matchingColumns: [],
					schema: [],
					attemptToConvertTypes: false,
					convertFieldsToString: true,
				},
				options: { waitForSubWorkflow: true },
			},
		},
	);
	const trigger = nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')!;
	// The trigger's first target stays the sample data (tests replace the two by a webhook).
	connections[trigger.name].main[0].push({
		node: 'Reviews table',
		type: 'main',
		index: 0,
	} as never);
	for (const team of TEAMS) connections[team] = { main: [to('Reviewed by a person')] };
	connections['Reviewed by a person'] = { main: [to('Labeled row')] };
	// Items nobody reviewed carry a row too (status not_reviewed): stored, so Evaluate counts every
	// doubtful item, reviewed or not (issue 43). Past the filter, which keeps the reviewed ones.
	connections['Team lead (not reviewed)'] = { main: [to('Labeled row')] };
	connections['Labeled row'] = { main: [to('Store reviews')] };
	// Saved after each node: an n8n stopped after the review keeps it, and Retry goes on from there.
	const settings = { ...(review.settings as object), saveExecutionProgress: true };
	return { ...review, nodes, connections, settings };
}

if (require.main === module) {
	const reviewFile = join(examples, 'ticket-routing-review.json');
	const review = withStore(JSON.parse(readFileSync(reviewFile, 'utf8')));
	writeFileSync(reviewFile, `${JSON.stringify(review, null, '\t')}\n`);
	writeFileSync(join(examples, STORE_EXAMPLE), `${JSON.stringify(storeWorkflow, null, '\t')}\n`);
}
