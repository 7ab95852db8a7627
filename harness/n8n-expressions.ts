/**
 * The node in a one-node workflow of n8n-workflow, and its description's expressions (outputs,
 * subtitle, the tool's description) evaluated by n8n-workflow's expression engine as the editor
 * evaluates them. n8n-workflow only: unit tests use it without loading n8n-core, whose size alone
 * makes a jest worker's exit slower than jest waits for it.
 */
import {
	Workflow,
	type INode,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
} from 'n8n-workflow';
import { DecisionService } from '../nodes/DecisionService/DecisionService.node';
import { NODE_TYPE } from './n8n-env';

export const NODE_NAME = 'Decision Service';

/** What a test sets on the node: its parameters and n8n's error settings. */
export interface NodeSettings {
	parameters: INodeParameters;
	onError?: INode['onError'];
	/** n8n's Retry On Fail setting of the node: the engine re-runs the whole node on a failure. */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
}

export class SingleNodeTypes implements INodeTypes {
	constructor(private readonly nodeType: INodeType) {}
	getByName(): INodeType {
		return this.nodeType;
	}
	getByNameAndVersion(): INodeType {
		return this.nodeType;
	}
	getKnownTypes() {
		return {};
	}
}

/** The Decision Service node of a test workflow, with the sandbox credential and n8n's error settings. */
export function decisionNode(options: NodeSettings, name = NODE_NAME): INode {
	return {
		id: 'decision-node',
		name,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: { decisionServiceApi: { id: 'cred-1', name: 'Sandbox' } },
		...(options.onError ? { onError: options.onError } : {}),
		...(options.retryOnFail ? { retryOnFail: true, ...options.retryOnFail } : {}),
	};
}

/** A workflow of the node alone (the source, or another build such as the bundled dist). */
export function singleNodeWorkflow(options: NodeSettings & { nodeType?: INodeType }) {
	const nodeType = options.nodeType ?? new DecisionService();
	const node = decisionNode(options);
	const workflow = new Workflow({
		id: 'engine-test',
		nodes: [node],
		connections: {},
		nodeTypes: new SingleNodeTypes(nodeType),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	return { workflow, node: workflow.getNode(NODE_NAME)! };
}

/** The node's outputs as n8n computes them from the parameters (names shown on the canvas). */
export function outputNames(parameters: INodeParameters, nodeType?: INodeType): string[] {
	const { workflow, node } = singleNodeWorkflow({ parameters, nodeType });
	const description = (nodeType ?? new DecisionService()).description;
	return (
		workflow.expression.getSimpleParameterValue(
			node,
			description.outputs as string,
			'internal',
			{},
		) as Array<{ displayName?: string }>
	).map((output) => output.displayName ?? 'main');
}

/**
 * An expression of the node's description (its subtitle, say) evaluated by n8n-workflow's
 * expression engine on a node with these parameters (defaults filled in), as the editor does.
 */
export function evaluateOnNode(
	parameters: INodeParameters,
	expression: string,
	nodeType?: INodeType,
): unknown {
	const { workflow, node } = singleNodeWorkflow({ parameters, nodeType });
	return workflow.expression.getSimpleParameterValue(node, expression, 'internal', {});
}
