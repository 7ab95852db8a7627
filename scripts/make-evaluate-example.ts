/**
 * Writes examples/ticket-routing-evaluate.json: the labeled set of ticket-routing-labeled.csv
 * (made by scripts/make-labeled-set.ts, the same rows) embedded in a Set node; the first 100 are
 * routed by Decide at its defaults and Evaluate scores its answers for free: 100 units a click.
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
const service = 'n8n-nodes-decision-service.decisionService';

/** Tickets evaluated: what a click costs. One window of the sandbox's Pro key (120 a minute). */
const LIMIT = 100;
const NOTE = [
	'## Before you run it',
	`This run decides **${LIMIT} tickets: ${LIMIT} units** (one decide each; Evaluate scores Decide's answers for free) and takes a few seconds on the sandbox's Pro key (120 decides a minute).`,
	'',
	`To evaluate all ${tickets.length}, set **Max Items** of *First ${LIMIT} tickets* to ${tickets.length}: ${tickets.length} units, about 2 minutes on Pro. The Free plan has 100 units a month.`,
	'',
	'The result is on **Report**: a summary in words, the figures, and the HTML report under Binary.',
].join('\n');

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
		id: 'b3d5c0de-2201-4e00-8000-00000000000b',
		name: 'First 100 tickets',
		type: 'n8n-nodes-base.limit',
		typeVersion: 1,
		position: [660, 300],
		parameters: { maxItems: LIMIT },
	},
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000005',
		name: 'Route ticket',
		type: service,
		typeVersion: 1,
		position: [880, 300],
		credentials,
		// Decide at its defaults (Simplify on), with one output: Evaluate reads every answer.
		parameters: {
			resource: 'decision',
			operation: 'decide',
			decision,
			inputFields: {
				mappingMode: 'defineBelow',
				value: { subject: '={{ $json.subject }}', body: '={{ $json.body }}' },
				matchingColumns: [],
				schema: ['subject', 'body'].map((id) => ({
					id,
					displayName: id,
					required: true,
					defaultMatch: false,
					canBeUsedToMatch: false,
					display: true,
					type: 'string',
				})),
			},
			outputMode: 'singleOutput',
			options: {},
		},
	},
	{
		id: 'b3d5c0de-2201-4e00-8000-000000000006',
		name: 'Evaluate',
		type: service,
		typeVersion: 1,
		position: [1100, 300],
		credentials,
		// Evaluate at its defaults: the expected answer is each ticket's `expected`.
		parameters: { resource: 'decision', operation: 'evaluate', decision },
	},
	...[
		['Report', 1340, 200, 'b3d5c0de-2201-4e00-8000-000000000009'],
		['Scored tickets', 1340, 400, 'b3d5c0de-2201-4e00-8000-00000000000a'],
	].map(([name, x, y, id]) => ({
		id,
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [x, y],
		parameters: {},
	})),
	{
		id: 'b3d5c0de-2201-4e00-8000-00000000000c',
		name: 'What this costs',
		type: 'n8n-nodes-base.stickyNote',
		typeVersion: 1,
		position: [600, 20],
		parameters: {
			width: 620,
			height: 220,
			content: NOTE,
		},
	},
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
		'One item each': { main: [to('First 100 tickets')] },
		'First 100 tickets': { main: [to('Route ticket')] },
		'Route ticket': { main: [to('Evaluate')] },
		Evaluate: { main: [to('Report'), to('Scored tickets')] },
	},
	settings: { executionOrder: 'v1' },
	pinData: {},
	meta: {
		description: `Routes ${LIMIT} of the ${tickets.length} labeled tickets (examples/ticket-routing-labeled.csv) with Decide at its defaults and evaluates its answers for free: ${LIMIT} units in all. The Report output carries a summary in words, the figures and the HTML report (binary).`,
	},
};

writeFileSync(
	join(__dirname, '..', 'examples', 'ticket-routing-evaluate.json'),
	`${JSON.stringify(workflow, null, 2)}\n`,
);
