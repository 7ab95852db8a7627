/**
 * The review example's store branch (examples/ticket-routing-review.json: *Reviewed by a person* →
 * *Labeled row* → *Store reviews*, which runs examples/review-store.json) in workflows of a test's own: a classify
 * decision reviewed by a person, its label outputs wired to the branch as docs/quality-watch.md
 * says; and the branch alone fed by a webhook, a copy of each item per label it holds (as Review
 * puts a classify review on each picked label's output), for n8n 1.x where Review cannot wait.
 */
import type { Decision } from '../../src/contract';
import { CREDENTIAL_ID, CREDENTIAL_NAME, NODE_TYPE, outputNamesOf } from '../../harness/n8n-env';
import { readExample, type WorkflowJson } from '../../harness/n8n-executions';
import { MESSAGE_NODE } from '../../harness/n8n-review';
import { forReview, freshOutputsList } from '../../nodes/DecisionService/outputs/list';
import { STORE_EXAMPLE } from '../../scripts/make-review-store';

/** The example's store branch, in order; the first takes every answer output's items. */
export const STORE_BRANCH = ['Reviewed by a person', 'Labeled row', 'Store reviews'];
/** The node of the store sub-workflow (examples/review-store.json) that stores the rows. */
export const STORE_NODE = 'Store review';

type Node = WorkflowJson['nodes'][number] & Record<string, unknown>;

/** examples/review-store.json, the sub-workflow the branch's last node runs (n8n 2.x). */
export function storeWorkflow(): WorkflowJson {
	return readExample(STORE_EXAMPLE);
}

/**
 * The example's store branch, its nodes as shipped. With `tableId` (an expression or an id: n8n
 * 1.x's Data Table node finds a table by its id only) its last node is the sub-workflow's own
 * *Store review* in its place, the table picked by that id, since the sub-workflow cannot see the
 * caller's items.
 */
export function storeBranch(tableId?: string): Node[] {
	const example = readExample('ticket-routing-review.json');
	return STORE_BRANCH.map((name) => {
		const node = example.nodes.find((each) => each.name === name);
		if (!node) throw new Error(`ticket-routing-review.json has no node "${name}"`);
		if (name !== STORE_BRANCH[2] || tableId === undefined) return node;
		const store = storeWorkflow().nodes.find((each) => each.name === STORE_NODE)!;
		return {
			...store,
			name,
			position: (node as Node).position,
			parameters: {
				...store.parameters,
				dataTableId: { __rl: true, mode: 'id', value: tableId },
			},
		};
	});
}

const to = (node: string) => [{ node, type: 'main', index: 0 }];
const branchConnections = () =>
	Object.fromEntries(
		STORE_BRANCH.slice(0, -1).map((name, index) => [name, { main: [to(STORE_BRANCH[index + 1])] }]),
	);

function nodeOf(workflowId: string) {
	return (name: string, type: string, typeVersion: number, parameters: object, y = 0): Node => ({
		id: `${workflowId}-${name.replace(/\W/g, '')}`,
		name,
		type,
		typeVersion,
		position: [0, y] as [number, number],
		parameters: parameters as Record<string, unknown>,
	});
}

function webhookNode(workflow: { id: string; path: string }): Node {
	return {
		...nodeOf(workflow.id)('Items in', 'n8n-nodes-base.webhook', 2, {
			httpMethod: 'POST',
			path: workflow.path,
			responseMode: 'onReceived',
			options: {},
		}),
		webhookId: `${workflow.id}-hook`,
	} as Node;
}

/** Two-label and one-label messages of the sandbox's `content-labels`, as a person labels them. */
export const LABEL_MESSAGES = [
	{
		text: 'Limited time offer: use promo code SAVE20 for a discount!',
		labels: ['spam', 'promotion'],
	},
	{ text: 'How do I reset my password?', labels: ['question'] },
];

/**
 * A classify decision decided (its items `{ text }` from the webhook's `items`), the doubtful ones
 * reviewed by a person, every answer output of Review (not Not Reviewed) wired to the example's
 * store branch: a two-label review reaches it twice.
 */
export function classifyReviewWorkflow(
	workflow: { id: string; name: string; path: string },
	decision: Decision,
): WorkflowJson {
	const node = nodeOf(workflow.id);
	const locator = { __rl: true, mode: 'list', value: decision.slug };
	const list = freshOutputsList(decision);
	const routes = { mappingMode: 'defineBelow', value: {}, matchingColumns: [], schema: list };
	const credentials = { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
	const decide = {
		resource: 'decision',
		operation: 'decide',
		decision: locator,
		inputMode: 'json',
		jsonInput: '={{ { "text": $json.text } }}',
		routes,
		options: {},
	};
	const review = {
		resource: 'decision',
		operation: 'review',
		decision: locator,
		routes: { ...routes, schema: forReview(list) },
	};
	const decideOutputs = outputNamesOf(decide);
	const reviewOutputs = outputNamesOf(review);
	return {
		id: workflow.id,
		name: workflow.name,
		active: false,
		nodes: [
			webhookNode(workflow),
			node('One item each', 'n8n-nodes-base.splitOut', 1, {
				fieldToSplitOut: 'body.items',
				options: {},
			}),
			{ ...node('Decide', NODE_TYPE, 1, decide), credentials } as Node,
			// Above Review on the canvas: n8n runs the upper branch first, so the link is written
			// before the execution waits.
			node(
				MESSAGE_NODE,
				'n8n-nodes-base.set',
				3.4,
				{
					assignments: {
						assignments: [
							{
								id: 'a',
								name: 'review_link',
								type: 'string',
								value: '={{ $execution.resumeUrl }}',
							},
						],
					},
					includeOtherFields: false,
					options: {},
				},
				-400,
			),
			{
				...node('Review', NODE_TYPE, 1, review),
				credentials,
				webhookId: `${workflow.id}-review`,
			} as Node,
			...storeBranch(),
		],
		connections: {
			'Items in': { main: [to('One item each')] },
			'One item each': { main: [to('Decide')] },
			Decide: {
				main: decideOutputs.map((name) =>
					name === 'Uncertain' ? [...to(MESSAGE_NODE), ...to('Review')] : [],
				),
			},
			Review: {
				main: reviewOutputs.map((_, index) => (index === 0 ? [] : to(STORE_BRANCH[0]))),
			},
			...branchConnections(),
		},
		settings: { executionOrder: 'v1' },
	} as WorkflowJson;
}

/**
 * The store branch fed by a webhook: `items` (each `{ text, review }`, as Review writes them) go
 * through one Filter per label, which lets an item by when its `review.answer` holds that label:
 * an item with two labels reaches the branch twice, in two runs, as from Review's two outputs.
 * `tableId` as in storeBranch.
 */
export function copiesPerLabelWorkflow(
	workflow: { id: string; name: string; path: string },
	labels: string[],
	tableId?: string,
): WorkflowJson {
	const node = nodeOf(workflow.id);
	const filters = labels.map((label, index) =>
		node(
			`Label ${label}`,
			'n8n-nodes-base.filter',
			2.2,
			{
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: `${workflow.id}-${label}`,
							leftValue: "={{ ',' + ($json.review?.answer ?? '') + ',' }}",
							rightValue: `,${label},`,
							operator: { type: 'string', operation: 'contains' },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
			index * 160,
		),
	);
	return {
		id: workflow.id,
		name: workflow.name,
		active: false,
		nodes: [
			webhookNode(workflow),
			node('One item each', 'n8n-nodes-base.splitOut', 1, {
				fieldToSplitOut: 'body.items',
				options: {},
			}),
			...filters,
			...storeBranch(tableId),
		],
		connections: {
			'Items in': { main: [to('One item each')] },
			'One item each': { main: [filters.flatMap((filter) => to(filter.name))] },
			...Object.fromEntries(
				filters.map((filter) => [filter.name, { main: [to(STORE_BRANCH[0])] }]),
			),
			...branchConnections(),
		},
		settings: { executionOrder: 'v1' },
	} as WorkflowJson;
}
