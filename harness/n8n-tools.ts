/**
 * Our node in n8n-core beside other nodes: as an AI-agent tool, called through n8n-core's own tool
 * path (the one an agent node calls), and wired to downstream nodes by its outputs, so that a test
 * sees where each connection's items go.
 *
 * - Tool path: an agent stand-in node asks n8n-core for its connected tools
 *   (`getInputConnectionData('ai_tool')`: get-input-connection-data.ts → createNodeAsTool →
 *   makeHandleToolInvocation, with its Retry On Fail loop and `mapResult`, which keeps output 0
 *   only), then invokes the tool as n8n's Tool Executor node does (`tool.invoke(args)`).
 * - The tool variant of the node type is built as n8n's server builds it for every node with
 *   `usableAsTool` (n8n 2.41 packages/cli tool-generation/ai-tools.ts, convertNodeToAiTool): the
 *   server is not part of n8n-core, so this repeats its few steps.
 */
import {
	NodeConnectionTypes,
	Workflow,
	deepCopy,
	type IConnections,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type INodeProperties,
	type INodeType,
	type INodeTypes,
	type IRun,
} from 'n8n-workflow';
import { DecisionService } from '../nodes/DecisionService/DecisionService.node';
import { NODE_TYPE, decisionNode, runInEngine, type EngineCredentials } from './n8n-engine';

export const TOOL_TYPE = `${NODE_TYPE}Tool`;
export const AGENT_TYPE = 'test.agentStandIn';
export const COLLECTOR_TYPE = 'test.collector';

/** Node types by name, for a workflow of several nodes. */
export class NamedNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType>) {}
	getByName(name: string): INodeType {
		return this.getByNameAndVersion(name);
	}
	getByNameAndVersion(name: string): INodeType {
		const type = this.types[name];
		if (!type) throw new Error(`no node type ${name} in this test workflow`);
		return type;
	}
	getKnownTypes() {
		return {};
	}
}

/** The AI-tool variant n8n's server derives from a node type with `usableAsTool` (see above). */
export function toolVariant(nodeType: INodeType = new DecisionService()): INodeType {
	const description = deepCopy(nodeType.description);
	description.name += 'Tool';
	description.displayName += ' Tool';
	description.inputs = [];
	description.outputs = [NodeConnectionTypes.AiTool];
	delete description.usableAsTool;
	const names = description.properties.map((property) => property.name);
	if (!names.includes('toolDescription')) {
		// What n8n adds when the node declares no description of its own.
		const added: INodeProperties[] = [
			{
				displayName: 'Tool Description',
				name: 'descriptionType',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Set Automatically', value: 'auto' },
					{ name: 'Set Manually', value: 'manual' },
				],
				default: 'auto',
			},
			{
				displayName: 'Description',
				name: 'toolDescription',
				type: 'string',
				default: description.description,
				required: true,
				displayOptions: { show: { descriptionType: ['manual'] } },
			},
		];
		description.properties.splice(0, 0, ...added);
	}
	// The node's methods and execute are the base type's: n8n shares them the same way.
	return Object.assign(Object.create(nodeType) as INodeType, { description });
}

/** Passes its input through: stands for whatever a workflow connects to an output. */
export class CollectorNode implements INodeType {
	description = {
		displayName: 'Collector',
		name: COLLECTOR_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Test stand-in for a downstream node',
		defaults: { name: 'Collector' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

/** One tool call as the agent saw it: the text n8n handed back, parsed, or what was thrown. */
export interface ToolCall {
	args: IDataObject;
	/** The string n8n-core returned to the agent (JSON of output 0's items). */
	raw?: string;
	/** `raw` parsed: the items' json n8n handed to the agent. */
	response?: unknown;
	/** The message of an error thrown to the agent instead of an answer. */
	thrown?: string;
}

export interface ToolRunResult {
	/** The tool's name and description as n8n-core gave them to the agent. */
	name: string;
	description: string;
	calls: ToolCall[];
	/** How many times n8n-core ran the node's execute (Retry On Fail re-runs it). */
	executions: number;
	run: IRun;
	serialised: string;
}

/** A stand-in for an agent node: gets its tools from n8n-core and calls the first with each argument set. */
function agentStandIn(
	calls: IDataObject[],
	seen: { result?: Omit<ToolRunResult, 'executions' | 'run' | 'serialised'> },
): INodeType {
	return {
		description: {
			displayName: 'Agent stand-in',
			name: AGENT_TYPE,
			group: ['transform'],
			version: 1,
			description: 'Calls its connected tool like an agent',
			defaults: { name: 'Agent' },
			inputs: [
				NodeConnectionTypes.Main,
				{ type: NodeConnectionTypes.AiTool, displayName: 'Tools', required: true },
			],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const tools = (await this.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as Array<{
				name: string;
				description: string;
				invoke(args: IDataObject): Promise<string>;
			}>;
			const tool = tools[0];
			const results: ToolCall[] = [];
			for (const args of calls) {
				try {
					const raw = await tool.invoke(args);
					results.push({ args, raw, response: JSON.parse(raw) as unknown });
				} catch (error) {
					results.push({ args, thrown: (error as Error).message });
				}
			}
			seen.result = { name: tool.name, description: tool.description, calls: results };
			return [[{ json: { calls: results.length } }]];
		},
	};
}

export interface RunAsToolOptions {
	/** The tool node's parameters as saved in the tool panel. */
	parameters: INodeParameters;
	/** The arguments of each call, as the agent's model would send them (keys of the $fromAI() calls). */
	calls: IDataObject[];
	credentials: EngineCredentials;
	/** Node settings of the tool node (Retry On Fail, On Error). */
	settings?: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries' | 'onError'>;
	nodeType?: INodeType;
}

export const TOOL_NODE_NAME = 'Decide';

/** Calls the node as an AI-agent tool through n8n-core's tool path, once per entry of `calls`. */
export async function runAsTool(options: RunAsToolOptions): Promise<ToolRunResult> {
	const seen: { result?: Omit<ToolRunResult, 'executions' | 'run' | 'serialised'> } = {};
	const agent: INode = {
		id: 'agent-node',
		name: 'Agent',
		type: AGENT_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const tool: INode = {
		id: 'tool-node',
		name: TOOL_NODE_NAME,
		type: TOOL_TYPE,
		typeVersion: 1,
		position: [200, 200],
		parameters: options.parameters,
		credentials: { decisionServiceApi: { id: 'cred-1', name: 'Sandbox' } },
		...(options.settings ?? {}),
	};
	const workflow = new Workflow({
		id: 'engine-tool-test',
		nodes: [agent, tool],
		connections: {
			[TOOL_NODE_NAME]: {
				[NodeConnectionTypes.AiTool]: [
					[{ node: 'Agent', type: NodeConnectionTypes.AiTool, index: 0 }],
				],
			},
		},
		nodeTypes: new NamedNodeTypes({
			[AGENT_TYPE]: agentStandIn(options.calls, seen),
			[TOOL_TYPE]: toolVariant(options.nodeType),
		}),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const run = await runInEngine(workflow, workflow.getNode('Agent')!, [{}], options.credentials);
	const agentError = run.data.resultData.error;
	if (!seen.result) {
		throw new Error(
			`the agent stand-in did not finish: ${agentError?.message ?? 'no error recorded'}`,
		);
	}
	return {
		...seen.result,
		executions: run.data.resultData.runData[TOOL_NODE_NAME]?.length ?? 0,
		run,
		serialised: JSON.stringify(run),
	};
}

export interface WiredRunOptions {
	/** The Decision Service node's parameters and settings. */
	parameters: INodeParameters;
	onError?: INode['onError'];
	/** For each output index of the node (n8n's error output included), the collector wired to it. */
	wires: Array<string | undefined>;
	items: IDataObject[];
	credentials: EngineCredentials;
}

export interface WiredRunResult {
	/** Items each collector received. */
	received: Record<string, INodeExecutionData[]>;
	run: IRun;
	serialised: string;
}

export const WIRED_NODE_NAME = 'Decision Service';

/**
 * Runs the node wired by output index to collector nodes, as a saved workflow connects it: n8n
 * keeps connections by index, so this is where a moved output would show.
 */
export async function runWired(options: WiredRunOptions): Promise<WiredRunResult> {
	const wiredNode = decisionNode(options, WIRED_NODE_NAME);
	const collectors = [...new Set(options.wires.filter((name): name is string => !!name))];
	const nodes: INode[] = [
		wiredNode,
		...collectors.map((name, index) => ({
			id: `collector-${index}`,
			name,
			type: COLLECTOR_TYPE,
			typeVersion: 1,
			position: [400, index * 100] as [number, number],
			parameters: {},
		})),
	];
	const connections: IConnections = {
		[WIRED_NODE_NAME]: {
			main: options.wires.map((name) =>
				name ? [{ node: name, type: NodeConnectionTypes.Main, index: 0 }] : [],
			),
		},
	};
	const workflow = new Workflow({
		id: 'engine-wired-test',
		nodes,
		connections,
		nodeTypes: new NamedNodeTypes({
			[NODE_TYPE]: new DecisionService(),
			[COLLECTOR_TYPE]: new CollectorNode(),
		}),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const run = await runInEngine(
		workflow,
		workflow.getNode(WIRED_NODE_NAME)!,
		options.items,
		options.credentials,
	);
	if (run.data.resultData.error) {
		throw new Error(`the wired workflow failed: ${run.data.resultData.error.message}`);
	}
	const received: Record<string, INodeExecutionData[]> = {};
	for (const name of collectors) {
		received[name] = (run.data.resultData.runData[name] ?? []).flatMap(
			(task) => task.data?.main?.[0] ?? [],
		);
	}
	return { received, run, serialised: JSON.stringify(run) };
}
