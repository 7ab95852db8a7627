/**
 * Runs our node inside n8n-core's own engine (WorkflowExecute), with a credentials helper that
 * resolves the real credential type's `authenticate` expressions the way n8n does, and real HTTP
 * to the sandbox. No n8n server: the engine, the node and the network are real.
 */
import {
	Credentials,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	ICredentialsHelper,
	Workflow,
	createRunExecutionData,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialsDetails,
	type INodeExecutionData,
	type INodeType,
	type IRun,
	type IWorkflowExecuteAdditionalData,
	type INodeParameters,
	type ILoadOptionsFunctions,
} from 'n8n-workflow';
import { DecisionServiceApi } from '../credentials/DecisionServiceApi.credentials';

import { NODE_TYPE } from './n8n-env';
import {
	NODE_NAME,
	SingleNodeTypes,
	decisionNode,
	evaluateOnNode,
	outputNames,
	singleNodeWorkflow,
	type NodeSettings,
} from './n8n-expressions';

// The pure half (a workflow of the node, its expressions) lives in n8n-expressions.ts.
export { NODE_TYPE, NODE_NAME, SingleNodeTypes, decisionNode, evaluateOnNode, outputNames };

export interface EngineCredentials {
	apiKey: string;
	baseUrl: string;
}

class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialType: ICredentialType,
		private readonly data: ICredentialDataDecryptedObject,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	/** As n8n's CredentialsHelper: call a function, or resolve each `=…` header expression with $credentials in scope. */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = this.credentialType.authenticate;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (typeof authenticate !== 'object')
			throw new Error('the credential type has no authenticate');
		const headers = { ...(requestOptions.headers ?? {}) } as IDataObject;
		for (const [name, value] of Object.entries(authenticate.properties.headers ?? {})) {
			headers[name] = workflow.expression.getSimpleParameterValue(
				node,
				value as string,
				'internal',
				{ $credentials: credentials },
				undefined,
				'',
			) as string;
		}
		return { ...requestOptions, headers };
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.data };
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails): Promise<Credentials> {
		return new Credentials(nodeCredentials, this.credentialType.name, '');
	}

	async updateCredentials(): Promise<void> {}
	async updateCredentialsOauthTokenData(): Promise<void> {}
	getCredentialsProperties() {
		return this.credentialType.properties;
	}
}

export interface RunNodeOptions extends NodeSettings {
	items: IDataObject[];
	credentials: EngineCredentials;
	/** Another build of the node (e.g. the bundled dist) instead of the source. */
	nodeType?: INodeType;
	/** Cancels the execution this long after it starts, as the editor's Stop button does. */
	cancelAfterMs?: number;
	/** The execution's ID; each run gets its own unless a test reuses one on purpose. */
	executionId?: string;
}

export interface NodeRunResult {
	/** Items per output of the node, as the engine recorded them (error output last when used). */
	outputs: INodeExecutionData[][];
	/** The node's error when the run failed. */
	error?: { message: string; description?: string | null; context?: IDataObject };
	run: IRun;
	/** Everything the engine recorded, serialised: to assert that no secret leaked anywhere. */
	serialised: string;
}

let executions = 0;

export function additionalDataFor(
	credentials: EngineCredentials,
	hooks: ExecutionLifecycleHooks,
	executionId = `engine-test-${++executions}`,
): IWorkflowExecuteAdditionalData {
	const credentialsHelper = new TestCredentialsHelper(new DecisionServiceApi(), { ...credentials });
	// The engine reads only some of these fields; the rest of the interface serves n8n's server.
	return {
		executionId,
		hooks,
		credentialsHelper,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		variables: {},
		currentNodeParameters: undefined,
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used in these tests');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('task runners are not used in these tests');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

/**
 * n8n-core's lifecycle hooks for a run of `workflow`, and the run they saw finish (n8n hands the
 * finished run to its hooks, with data the returned promise may lack).
 */
export function lifecycleHooks(
	workflow: Workflow,
	mode: 'manual' | 'webhook',
	executionId: string,
): { hooks: ExecutionLifecycleHooks; finished: () => IRun | undefined } {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: 'engine-test',
		name: 'engine test',
		active: false,
		isArchived: false,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	let finished: IRun | undefined;
	hooks.addHandler('workflowExecuteAfter', (run) => {
		finished = run;
	});
	return { hooks, finished: () => finished };
}

/** Runs `workflow` from `start` on `items` in n8n-core's WorkflowExecute and returns the finished run. */
export async function runInEngine(
	workflow: Workflow,
	start: INode,
	items: IDataObject[],
	credentials: EngineCredentials,
	cancelAfterMs?: number,
	/** Each run gets its own execution unless a test reuses one on purpose. */
	executionId = `engine-test-${++executions}`,
): Promise<IRun> {
	const { hooks, finished } = lifecycleHooks(workflow, 'manual', executionId);
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{ node: start, data: { main: [items.map((json) => ({ json }))] }, source: null },
			],
		},
	});
	const execute = new WorkflowExecute(
		additionalDataFor(credentials, hooks, executionId),
		'manual',
		runExecutionData,
	);
	const execution = execute.processRunExecutionData(workflow);
	const canceller =
		cancelAfterMs === undefined ? undefined : setTimeout(() => execution.cancel(), cancelAfterMs);
	const returned = await execution.finally(() => clearTimeout(canceller));
	return finished() ?? returned;
}

/** Runs the node once on `items`, as the first node of a workflow, and returns what the engine recorded. */
export async function runNode(options: RunNodeOptions): Promise<NodeRunResult> {
	const { workflow, node } = singleNodeWorkflow(options);
	const run = await runInEngine(
		workflow,
		node,
		options.items,
		options.credentials,
		options.cancelAfterMs,
		options.executionId,
	);
	const task = run.data.resultData.runData[NODE_NAME]?.[0];
	const error = task?.error ?? run.data.resultData.error;
	return {
		outputs: (task?.data?.main ?? []).map((output: INodeExecutionData[] | null) => output ?? []),
		error: error
			? {
					message: error.message,
					description: (error as { description?: string | null }).description,
					context: (error as { context?: IDataObject }).context,
				}
			: undefined,
		run,
		serialised: JSON.stringify(run),
	};
}

/** A load-options context of n8n-core for the node with these parameters, for listSearch, loadOptions and resourceMapping. */
export function loadOptionsContext(
	parameters: INodeParameters,
	credentials: EngineCredentials,
): ILoadOptionsFunctions {
	const { workflow, node } = singleNodeWorkflow({ parameters });
	const hooks = new ExecutionLifecycleHooks('manual', 'engine-test-run', {} as never);
	const additionalData = additionalDataFor(
		credentials,
		hooks,
		`engine-load-options-${++executions}`,
	);
	additionalData.currentNodeParameters = parameters;
	return new LoadOptionsContext(workflow, node, additionalData, 'parameters');
}
