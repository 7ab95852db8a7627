/**
 * Writes the review example's store (docs/quality-watch.md, section 1): the reviews of
 * examples/ticket-routing-review.json stored in the Data Table `decision_reviews`. The other nodes
 * and any sticky note are kept as they are: the file is read first.
 *
 * The table's columns are src/answer's (LABELED_ROW_COLUMNS).
 * Run: npx tsx scripts/make-review-store.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LABELED_ROW_COLUMNS } from '../src/answer';
import { ensureTable, fieldAsItem, insertRows, to, type Node } from './example-nodes';

const examples = join(__dirname, '..', 'examples');
export const REVIEWS_TABLE = 'decision_reviews';

const uuid = (prefix: string, n: number) =>
	`${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;

const R = (n: number) => uuid('7a11c4e0-5e34', n);
const TEAMS = ['Billing team', 'Technical support', 'Sales team', 'Account management'];
const STORE = [
	'Reviews table',
	'Reviewed by a person',
	'Labeled row',
	'Once per review',
	'Store review',
];

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
		// One row per review: Review puts a classify review on each picked label's output, so the
		// copies arrive here in separate runs, all with one review_id. n8n's Remove Duplicates keeps
		// the first (its history is n8n's database, shared by main and workers) and a re-run of the
		// execution stores nothing twice. Its history holds 100,000 ids (n8n's default, 10,000,
		// makes the node fail once it is full). An Upsert on review_id would do it too, but n8n
		// 2.41.1's per-item error path fails the execution when the table is missing
		// (docs/quality-watch.md).
		{
			id: R(6),
			name: 'Once per review',
			type: 'n8n-nodes-base.removeDuplicates',
			typeVersion: 2,
			position: [2200, 240],
			parameters: {
				operation: 'removeItemsSeenInPreviousExecutions',
				dedupeValue: '={{ $json.review_id }}',
				options: { historySize: 100000 },
			},
		},
		// Insert is one bulk call: a store that fails (the table deleted) never stops the tickets,
		// they are routed already.
		{
			...insertRows(R(4), 'Store review', REVIEWS_TABLE, [2420, 240]),
			onError: 'continueRegularOutput',
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
	connections['Labeled row'] = { main: [to('Once per review')] };
	connections['Once per review'] = { main: [to('Store review')] };
	return { ...review, nodes, connections };
}

if (require.main === module) {
	const reviewFile = join(examples, 'ticket-routing-review.json');
	const review = withStore(JSON.parse(readFileSync(reviewFile, 'utf8')));
	writeFileSync(reviewFile, `${JSON.stringify(review, null, '\t')}\n`);
}
