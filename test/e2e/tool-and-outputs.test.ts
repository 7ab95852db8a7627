/**
 * In real n8n (the packed tarball installed as a community package):
 * - the AI-agent tool variant: listed, its Answers loaded through the endpoint the editor calls,
 *   its description as n8n hands it to a real AI Agent's model (a scripted OpenAI-compatible model
 *   on loopback), the answer of every call read by the agent, and the Tool Executor's path;
 * - outputs that keep their meaning: a workflow wired on every output is refreshed through the
 *   editor's endpoint after each change of the decision on the service and run with real items.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject, INodeParameters, ResourceMapperField } from 'n8n-workflow';
import { startFakeLlm, type FakeLlm } from '../../harness/fake-llm';
import {
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	NODE_TYPE,
	executeWorkflow,
	freePort,
	packTarball,
	prepareN8n,
	signIn,
	startN8n,
	type N8nInstance,
	type WorkflowRun,
} from '../../harness/n8n-env';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import {
	LABEL_ADDED,
	POSTS,
	ROUTE_CHANGES,
	TICKETS,
	canvasOutputs,
	expectedArrivals,
	inputIndex,
	mergeLikeEditor,
	movedWires,
	wireEverything,
	wiresAfterRefresh,
} from '../support/outputs';

jest.setTimeout(600_000);

const TOOL_TYPE = `${NODE_TYPE}Tool`;
const OPENAI_CREDENTIAL = { id: 'fakeOpenAi', name: 'Fake OpenAI' };
const DS_CREDENTIAL = { decisionServiceApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };

let sb: TestSandbox;
let llm: FakeLlm;
let work: string;
let n8n: N8nInstance;
let cookie: string;
const runs: WorkflowRun[] = [];

async function rest<T>(method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${n8n.url}/rest${path}`, {
		method,
		headers: { cookie, 'content-type': 'application/json', 'browser-id': 'decision-service-setup' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
	return (JSON.parse(text) as { data: T }).data;
}

/** The Outputs (or Answers) list as the editor loads it: n8n's endpoint, then the editor's merge. */
async function loadList(type: string, parameters: INodeParameters): Promise<INodeParameters> {
	const { fields } = await rest<{ fields: ResourceMapperField[] }>(
		'POST',
		'/dynamic-node-parameters/resource-mapper-fields',
		{
			nodeTypeAndVersion: { name: type, version: 1 },
			currentNodeParameters: parameters,
			path: 'parameters.routes',
			methodName: 'getRouteOutputs',
			credentials: DS_CREDENTIAL,
		},
	);
	return mergeLikeEditor(parameters.routes as never, fields);
}

/** Saves a workflow through the REST API, runs it with `n8n execute` beside the started n8n. */
async function run(workflow: IDataObject): Promise<WorkflowRun> {
	const { id } = await rest<{ id: string }>('POST', '/workflows', {
		active: false,
		settings: { executionOrder: 'v1' },
		...workflow,
	});
	const result = await executeWorkflow(n8n, id, {
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
	});
	runs.push(result);
	expect(result.error).toBeUndefined();
	return result;
}

const node = (
	name: string,
	type: string,
	typeVersion: number,
	parameters: IDataObject,
	extra = {},
) => ({
	id: name.replace(/\W+/g, '-'),
	name,
	type,
	typeVersion,
	position: [0, 0],
	parameters,
	...extra,
});

beforeAll(async () => {
	sb = await startTestSandbox();
	llm = await startFakeLlm();
	work = mkdtempSync(join(tmpdir(), 'decision-service-tool-e2e-'));
	const prepared = prepareN8n({
		userFolder: join(work, 'user'),
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: DEMO_KEYS.pro,
		port: await freePort(),
	});
	const credentials = join(work, 'openai.json');
	writeFileSync(
		credentials,
		JSON.stringify([
			{ ...OPENAI_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'sk-fake', url: llm.baseUrl } },
		]),
	);
	prepared.cli(['import:credentials', `--input=${credentials}`]);
	n8n = await startN8n(prepared);
	cookie = await signIn(n8n.url);
});

afterAll(async () => {
	await n8n?.stop();
	await llm?.close();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
	for (const key of Object.values(DEMO_KEYS))
		expect(runs.map((each) => JSON.stringify(each.raw)).join('\n')).not.toContain(key);
});

const toolNode = (name: string, slug: string, routes: INodeParameters | undefined) =>
	node(
		name,
		TOOL_TYPE,
		1,
		{
			resource: 'decision',
			operation: 'decide',
			decision: { __rl: true, mode: 'list', value: slug },
			inputMode: 'text',
			text: "={{ $fromAI('text', 'The ticket text', 'string') }}",
			...(routes ? { routes } : {}),
		},
		{ credentials: DS_CREDENTIAL },
	);

describe('the AI-agent tool', () => {
	let answers: INodeParameters;

	beforeAll(async () => {
		answers = await loadList(TOOL_TYPE, {
			resource: 'decision',
			operation: 'decide',
			decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
		});
	});

	it('is listed with its own description setting (n8n adds no automatic one that could not name the decision)', async () => {
		const response = await fetch(`${n8n.url}/types/nodes.json`, { headers: { cookie } });
		const types = (await response.json()) as Array<{
			name: string;
			outputs?: unknown;
			properties: Array<{ name: string; default?: unknown; options?: Array<{ value: string }> }>;
		}>;
		const tool = types.find((type) => type.name === TOOL_TYPE);
		expect(tool).toBeDefined();
		expect(tool?.outputs).toEqual(['ai_tool']);
		const descriptionType = tool?.properties.find(
			(property) => property.name === 'descriptionType',
		);
		expect(descriptionType?.default).toBe('fromDecision');
		expect(descriptionType?.options?.map((option) => option.value)).toEqual([
			'fromDecision',
			'manual',
		]);
	});

	it("a real AI Agent reads the decision's question and answers in the description, and the answer of every call", async () => {
		llm.script([
			{ text: 'I was charged twice on my invoice, please refund.' },
			{ text: 'The app crashes with an error every time I log in.' },
		]);
		const result = await run({
			name: 'Agent with the Decision Service tool',
			nodes: [
				node('Run', 'n8n-nodes-base.manualTrigger', 1, {}),
				node('AI Agent', '@n8n/n8n-nodes-langchain.agent', 3.1, {
					promptType: 'define',
					text: 'Route these two tickets.',
					options: {},
				}),
				node(
					'OpenAI Chat Model',
					'@n8n/n8n-nodes-langchain.lmChatOpenAi',
					1.2,
					{ model: { __rl: true, mode: 'id', value: 'gpt-fake' }, options: {} },
					{ credentials: { openAiApi: OPENAI_CREDENTIAL } },
				),
				toolNode('Decide', 'ticket-routing', answers),
			],
			connections: {
				Run: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
				'OpenAI Chat Model': {
					ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
				},
				Decide: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			},
		});
		const offered = llm.requests[0].tools?.[0]?.function;
		expect(offered?.name).toBe('Decide');
		expect(offered?.description).toMatch(
			/^Asks the Decision Service decision "ticket-routing": Which team should handle this support ticket\? It picks one option: billing, technical, sales, account\. Returns JSON/,
		);
		// What n8n sent the model back for each call: the compact answer, the second option included.
		const toolMessages = llm.requests[1].messages.filter((message) => message.role === 'tool');
		const answered = toolMessages.map(
			(message) => JSON.parse(String(message.content)) as IDataObject[],
		);
		expect(answered.map((items) => items.map((item) => [item.status, item.choice]))).toEqual([
			[['ok', 'billing']],
			[['ok', 'technical']],
		]);
		for (const items of answered) expect(String(items[0].run_id)).toMatch(/^run_/);
		expect(String(result.outputs['AI Agent'][0][0].json.output)).toMatch(/"choice":"technical"/);
	});

	it("answers through n8n's Tool Executor, and a failure reaches the caller as text saying what to do", async () => {
		const result = await run({
			name: 'Tool Executor with the Decision Service tool',
			nodes: [
				node('Run', 'n8n-nodes-base.manualTrigger', 1, {}),
				node('Call the tool', '@n8n/n8n-nodes-langchain.toolExecutor', 1, {
					query: JSON.stringify({
						Decide: { text: 'The app crashes with an error every time I log in.' },
					}),
				}),
				node('Call a missing decision', '@n8n/n8n-nodes-langchain.toolExecutor', 1, {
					query: JSON.stringify({ Missing: { text: 'Refund please' } }),
				}),
				toolNode('Decide', 'ticket-routing', answers),
				toolNode('Missing', 'no-such-decision', undefined),
			],
			connections: {
				Run: {
					main: [
						[
							{ node: 'Call the tool', type: 'main', index: 0 },
							{ node: 'Call a missing decision', type: 'main', index: 0 },
						],
					],
				},
				Decide: { ai_tool: [[{ node: 'Call the tool', type: 'ai_tool', index: 0 }]] },
				Missing: { ai_tool: [[{ node: 'Call a missing decision', type: 'ai_tool', index: 0 }]] },
			},
		});
		// The Tool Executor puts the string n8n hands an agent in its item.
		const told = (name: string) =>
			JSON.parse(String(result.outputs[name][0][0].json)) as IDataObject[];
		expect(told('Call the tool')).toEqual([
			expect.objectContaining({ status: 'ok', choice: 'technical' }),
		]);
		const [failure] = told('Call a missing decision');
		expect(Object.keys(failure)).toEqual(['error']);
		expect(String(failure.error)).toMatch(/no-such-decision.*Check the slug/s);
	});
});

describe('outputs that keep their meaning', () => {
	/** The workflow: items from a Set node, the Decision Service node, one No-Op per wire meaning. */
	function wiredWorkflow(
		label: string,
		parameters: INodeParameters,
		wires: Array<string | undefined>,
		items: IDataObject[],
	): IDataObject {
		const targets = [...new Set(wires.filter((wire): wire is string => !!wire))];
		return {
			name: `Stable outputs: ${label}`,
			nodes: [
				node('Run', 'n8n-nodes-base.manualTrigger', 1, {}),
				node('Items', 'n8n-nodes-base.set', 3.4, {
					mode: 'raw',
					jsonOutput: JSON.stringify({ items }),
					options: {},
				}),
				node('One item each', 'n8n-nodes-base.splitOut', 1, {
					fieldToSplitOut: 'items',
					options: {},
				}),
				node('Decision Service', NODE_TYPE, 1, parameters, {
					credentials: DS_CREDENTIAL,
					onError: 'continueErrorOutput',
				}),
				...targets.map((name) => node(name, 'n8n-nodes-base.noOp', 1, {})),
			],
			connections: {
				Run: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
				Items: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
				'One item each': { main: [[{ node: 'Decision Service', type: 'main', index: 0 }]] },
				'Decision Service': {
					main: wires.map((wire) => (wire ? [{ node: wire, type: 'main', index: 0 }] : [])),
				},
			},
		};
	}

	async function routeAndCheck(
		label: string,
		parameters: INodeParameters,
		wires: Array<string | undefined>,
		items: IDataObject[],
	) {
		const result = await run(wiredWorkflow(label, parameters, wires, items));
		const expected = expectedArrivals(items, result.outputs['Decision Service'], parameters, wires);
		const received: Record<string, number[]> = {};
		for (const meaning of Object.keys(expected)) {
			received[meaning] = (result.outputs[meaning]?.[0] ?? [])
				.map((item) => inputIndex(items, item.json as IDataObject))
				.sort((a, b) => a - b);
		}
		expect({ label, received }).toEqual({ label, received: expected });
		return received;
	}

	const decide = (slug: string): INodeParameters => ({
		resource: 'decision',
		operation: 'decide',
		decision: { __rl: true, mode: 'list', value: slug },
		inputMode: 'json',
		jsonInput: '={{ $json }}',
		outputMode: 'routeToOutputs',
		options: {},
	});

	async function publish(slug: string, version: IDataObject) {
		await sb.control('POST', `/decisions/${slug}/versions`, { key: DEMO_KEYS.pro, ...version });
	}

	async function refresh(parameters: INodeParameters, wires: Array<string | undefined>) {
		const next = { ...parameters, routes: await loadList(NODE_TYPE, parameters) };
		expect(movedWires(wires, parameters, next)).toEqual([]);
		return { next, wires: wiresAfterRefresh(wires, next) };
	}

	it('route: options added first, last, in the middle, one removed, reordered, the policy changed', async () => {
		await sb.control('POST', '/reset');
		let parameters = decide('ticket-routing');
		parameters = { ...parameters, routes: await loadList(NODE_TYPE, parameters) };
		let wires = wireEverything(parameters);
		const saved = await routeAndCheck('saved', parameters, wires, TICKETS);
		expect(saved.error).toEqual([5]);
		for (const change of ROUTE_CHANGES) {
			await publish('ticket-routing', change.version);
			({ next: parameters, wires } = await refresh(parameters, wires));
			const received = await routeAndCheck(change.label, parameters, wires, TICKETS);
			expect(received.error).toEqual([5]);
			if (change.label === 'an option added first') {
				expect(canvasOutputs(parameters).slice(6)).toEqual([
					'Other',
					'Error (kept in place)',
					'legal',
					'Error',
				]);
				expect(received['key legal']).toEqual([6]);
			}
		}
	});

	it('classify: a label added', async () => {
		await sb.control('POST', '/reset');
		let parameters = decide('content-labels');
		parameters = { ...parameters, routes: await loadList(NODE_TYPE, parameters) };
		let wires = wireEverything(parameters);
		await routeAndCheck('saved', parameters, wires, POSTS);
		await publish('content-labels', LABEL_ADDED);
		({ next: parameters, wires } = await refresh(parameters, wires));
		const received = await routeAndCheck('a label added', parameters, wires, POSTS);
		expect(received['key event']).toContain(4);
	});
});
