/**
 * Writes examples/ticket-routing-evaluate.json: the labeled set of ticket-routing-labeled.csv
 * (made by scripts/make-labeled-set.ts, the same rows) embedded in a Set node, evaluated twice:
 * on fresh items (one unit each) and on items an earlier Decide already answered (free).
 * Run: npx tsx scripts/make-evaluate-example.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeLabeledSet } from './make-labeled-set';

const tickets = makeLabeledSet().map(({ id, subject, body, expected }) => ({
	id,
	subject,
	body,
	expected,
}));

const credentials = {
	decisionServiceApi: { id: 'decisionServiceSandbox', name: 'Decision Service sandbox' },
};
const decision = {
	__rl: true,
	mode: 'list',
	value: 'ticket-routing',
	cachedResultName: 'Ticket routing (route)',
};
const input = '={{ { "subject": $json.subject, "body": $json.body } }}';
const service = 'n8n-nodes-decision-service.decisionService';

const nodes = [
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000001',
		name: 'Run example',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 300],
		parameters: {},
	},
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000002',
		name: 'Labeled tickets',
		type: 'n8n-nodes-base.set',
		typeVersion: 3.4,
		position: [220, 300],
		parameters: {
			mode: 'raw',
			jsonOutput: JSON.stringify({ tickets }, null, 1),
			options: {},
		},
	},
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000003',
		name: 'One item each',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position: [440, 300],
		parameters: { fieldToSplitOut: 'tickets', options: {} },
	},
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000004',
		name: 'Evaluate on fresh tickets',
		type: service,
		typeVersion: 1,
		position: [700, 160],
		credentials,
		parameters: {
			resource: 'decision',
			operation: 'evaluate',
			decision,
			inputMode: 'json',
			jsonInput: input,
			expected: '={{ $json.expected }}',
			targetAccuracy: 0.9,
			evaluateOptions: {},
		},
	},
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000005',
		name: 'Decide (production)',
		type: service,
		typeVersion: 1,
		position: [700, 440],
		credentials,
		parameters: {
			resource: 'decision',
			operation: 'decide',
			decision,
			inputMode: 'json',
			jsonInput: input,
			outputMode: 'singleOutput',
			// The full run, so Evaluate also gets the probabilities (the gap table).
			options: { simplify: false },
		},
	},
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000006',
		name: 'Evaluate already decided',
		type: service,
		typeVersion: 1,
		position: [960, 440],
		credentials,
		parameters: {
			resource: 'decision',
			operation: 'evaluate',
			decision,
			inputMode: 'json',
			jsonInput: input,
			expected: '={{ $json.expected }}',
			targetAccuracy: 0.9,
			evaluateOptions: {},
		},
	},
	...[
		['Report (fresh)', 960, 80, 'b3d5c0de-2201-4e00-8000-000000000007'],
		['Scored tickets (fresh)', 960, 240, 'b3d5c0de-2201-4e00-8000-000000000008'],
		['Report (free)', 1220, 360, 'b3d5c0de-2201-4e00-8000-000000000009'],
		['Scored tickets (free)', 1220, 520, 'b3d5c0de-2201-4e00-8000-00000000000a'],
	].map(([name, x, y, id]) => ({
		id,
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [x, y],
		parameters: {},
	})),
];

const to = (node: string) => [{ node, type: 'main', index: 0 }];
const workflow = {
	id: 'dsExTicketEval1',
	name: 'Decision Service: evaluate ticket routing',
	active: false,
	nodes,
	connections: {
		'Run example': { main: [to('Labeled tickets')] },
		'Labeled tickets': { main: [to('One item each')] },
		'One item each': { main: [[...to('Evaluate on fresh tickets'), ...to('Decide (production)')]] },
		'Evaluate on fresh tickets': { main: [to('Report (fresh)'), to('Scored tickets (fresh)')] },
		'Decide (production)': { main: [to('Evaluate already decided')] },
		'Evaluate already decided': { main: [to('Report (free)'), to('Scored tickets (free)')] },
	},
	settings: { executionOrder: 'v1' },
	pinData: {},
	meta: {
		description:
			'Evaluates the ticket-routing decision on 240 labeled tickets (examples/ticket-routing-labeled.csv): once on fresh tickets (one unit each), once on tickets an earlier Decide already answered (free). The Report output carries the figures and the HTML report (binary).',
	},
};

writeFileSync(
	join(__dirname, '..', 'examples', 'ticket-routing-evaluate.json'),
	`${JSON.stringify(workflow, null, 2)}\n`,
);
