/**
 * Issue 19 in real n8n, from the packed tarball: a route decision whose option keys are names that
 * JavaScript objects have (`constructor`, `prototype`, `valueof`…) puts every item on its own
 * output, charged once per item; an item's field `constructor` and JSON key `__proto__` are sent
 * as the item's own values.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	NODE_TYPE,
	executeWorkflow,
	freePort,
	outputNamesOf,
	packTarball,
	prepareN8n,
	type N8nInstance,
	type WorkflowRun,
} from '../../harness/n8n-env';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { freshOutputsList } from '../../nodes/DecisionService/outputs/list';
import { ownValue } from '../../src/contract';
import { JS_FIELD_NAMES, JS_KEYS, jsonText, ownKeys } from '../support/js-names';

jest.setTimeout(600_000);

const KEY = DEMO_KEYS.pro;
const WORKFLOW_ID = 'dsJsNames0001';
const NODE = 'Route JS names';

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance;
let run: WorkflowRun;
let routesParameters: Record<string, unknown>;
let usedBefore: number;

/** One item per key: its text names the key; every item has a field constructor and a key __proto__. */
const items = JS_KEYS.map(
	(key, index): Array<[string, string]> => [
		['text', `a text about ${key} words`],
		['constructor', `mine ${index}`],
		['__proto__', `also mine ${index}`],
	],
);

beforeAll(async () => {
	sb = await startTestSandbox();
	await sb.client(KEY).createDecision({
		name: 'JS names',
		slug: 'constructor',
		type: 'route',
		instructions: 'Which JavaScript name does the text mention?',
		confidence_threshold: 0.3,
		context: { fields: JS_FIELD_NAMES.map((name) => ({ name, required: false })) },
		options: JS_KEYS.map((key) => ({ key, description: `Texts about ${key} words` })),
	});
	const decision = await sb.client(KEY).getDecision('constructor');
	routesParameters = {
		resource: 'decision',
		operation: 'decide',
		decision: { __rl: true, mode: 'list', value: 'constructor' },
		inputMode: 'json',
		jsonInput: '={{ $json }}',
		outputMode: 'routeToOutputs',
		routes: {
			mappingMode: 'defineBelow',
			value: {},
			matchingColumns: [],
			schema: freshOutputsList(decision),
		},
		// The full run: its probabilities are checked below.
		options: { simplify: false },
	};
	work = mkdtempSync(join(tmpdir(), 'decision-service-js-names-'));
	const workflows = join(work, 'workflows');
	mkdirSync(workflows);
	const workflow = {
		id: WORKFLOW_ID,
		name: 'JS names',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'n1',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'n2',
				name: 'Items',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [200, 0],
				parameters: {
					mode: 'raw',
					jsonOutput: `{"items": [${items.map((entries) => jsonText(entries)).join(',')}]}`,
					options: {},
				},
			},
			{
				id: 'n3',
				name: 'One item each',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [400, 0],
				parameters: { fieldToSplitOut: 'items', options: {} },
			},
			{
				id: 'n4',
				name: NODE,
				type: NODE_TYPE,
				typeVersion: 1,
				position: [600, 0],
				parameters: routesParameters,
				credentials: { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
			'One item each': { main: [[{ node: NODE, type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
	writeFileSync(join(workflows, 'js-names.json'), JSON.stringify(workflow));
	n8n = prepareN8n({
		userFolder: join(work, 'user'),
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflowsDir: workflows,
		port: await freePort(),
	});
	usedBefore = (await sb.usage(KEY)).used;
	run = await executeWorkflow(n8n, WORKFLOW_ID);
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

describe('a route decision keyed by names that are JavaScript’s own, in real n8n', () => {
	it('puts every item on its own output, nothing on Uncertain, Pending Review or Other', () => {
		expect(run.error).toBeUndefined();
		const names = outputNamesOf(routesParameters);
		expect(names).toEqual([...JS_KEYS, 'Uncertain', 'Pending Review', 'Other']);
		const outputs = run.outputs[NODE];
		JS_KEYS.forEach((key, index) => {
			expect(outputs[index].map((item) => item.pairedItem)).toEqual([{ item: index }]);
			const answer = outputs[index][0].json.decision as Record<string, unknown>;
			expect(answer.choice).toBe(key);
			expect(answer.routing_note).toBeUndefined();
			expect(ownKeys(answer.probabilities)).toEqual([...JS_KEYS]);
		});
		for (const fixed of outputs.slice(JS_KEYS.length)) expect(fixed ?? []).toEqual([]);
	});

	it('is charged once per item', async () => {
		expect((await sb.usage(KEY)).used - usedBefore).toBe(JS_KEYS.length);
	});

	it('sends the item’s own constructor and __proto__ values', async () => {
		const outputs = run.outputs[NODE];
		for (const [index] of JS_KEYS.entries()) {
			const runId = (outputs[index][0].json.decision as Record<string, unknown>).run_id as string;
			const stored = await sb.control<{ input: Record<string, unknown> }>(
				'GET',
				`/runs/${runId}?key=${encodeURIComponent(KEY)}`,
			);
			expect(ownValue(stored.input, 'constructor')).toBe(`mine ${index}`);
			expect(ownValue(stored.input, '__proto__')).toBe(`also mine ${index}`);
		}
	});
});
