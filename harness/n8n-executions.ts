/**
 * Workflows run by a webhook in a started n8n (regular or queue mode), and their executions read
 * back through n8n's REST API as the owner: the executions of a workflow, one execution's status
 * and run data (stored in the `flatted` format, parsed with n8n's own copy), a bounded wait for a
 * status. Also an example workflow with its manual trigger and sample data replaced by a Webhook
 * trigger, so a test sends its own items.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import {
	exampleWorkflows,
	freePort,
	packTarball,
	prepareN8n,
	projectRoot,
	signIn,
	startN8n,
	type ExampleWorkflow,
	type N8nInstance,
} from './n8n-env';
import { n8nBin } from './n8n-install';

export type Item = { json: Record<string, unknown>; pairedItem?: unknown };

/** An example workflow as stored in examples/: nodes, connections, settings. */
export interface WorkflowJson extends Omit<ExampleWorkflow, 'file'> {
	active?: boolean;
	connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	>;
	settings?: Record<string, unknown>;
	pinData?: Record<string, unknown>;
	[field: string]: unknown;
}

type WorkflowNode = WorkflowJson['nodes'][number] & Record<string, unknown>;

/** examples/<file> parsed. */
export function readExample(file: string): WorkflowJson {
	return JSON.parse(readFileSync(join(projectRoot, 'examples', file), 'utf8')) as WorkflowJson;
}

/**
 * The fields that make a trigger node a Webhook trigger (POST `path`, answers at once), spread over
 * it: its name, position and wires stay. Switched on, as an example may ship its schedule off.
 */
export function webhookFields(workflowId: string, path: string) {
	return {
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: `${workflowId}-${path}`,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		disabled: false,
	};
}

/** examples/<file> with its trigger (the node whose type ends in Trigger) a webhook in its place. */
export function exampleOnWebhook(
	file: string,
	options: { id: string; name: string; path: string },
): WorkflowJson {
	const workflow = readExample(file);
	return {
		...workflow,
		id: options.id,
		name: options.name,
		active: false,
		nodes: workflow.nodes.map((node) =>
			/Trigger$/.test(node.type) ? { ...node, ...webhookFields(options.id, options.path) } : node,
		),
	};
}

/**
 * The workflow with its manual trigger and the node that makes the sample data replaced by a
 * Webhook trigger (POST `path`, answers at once): the node that split the sample data into items
 * now splits the request's body (`fieldToSplitOut` `tickets` → `body.tickets`). Everything else is
 * kept as it is.
 */
export function withWebhookTrigger(
	workflow: WorkflowJson,
	options: { id: string; name: string; path: string },
): WorkflowJson {
	const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
	if (!trigger) throw new Error(`${workflow.name} has no manual trigger`);
	const next = (name: string) => workflow.connections[name]?.main[0]?.[0]?.node;
	const sample = next(trigger.name);
	const split = sample && next(sample);
	const splitNode = workflow.nodes.find((node) => node.name === split);
	if (!sample || splitNode?.type !== 'n8n-nodes-base.splitOut')
		throw new Error(`${workflow.name}: expected manual trigger → sample data → Split Out`);
	const replaced = [trigger.name, sample];
	// Ids of its own per workflow, as n8n gives each webhook node (it stores webhooks with their
	// webhookId).
	const uuid = (seed: string) =>
		createHash('sha256')
			.update(`${options.id}/${seed}`)
			.digest('hex')
			.slice(0, 32)
			.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
	const webhook: WorkflowNode = {
		id: uuid('node'),
		name: 'Items in',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: (trigger as WorkflowNode).position,
		webhookId: uuid('webhook'),
		parameters: { httpMethod: 'POST', path: options.path, responseMode: 'onReceived', options: {} },
	};
	const nodes = workflow.nodes
		.filter((node) => !replaced.includes(node.name))
		.map((node) =>
			node.name === split
				? {
						...node,
						parameters: {
							...node.parameters,
							fieldToSplitOut: `body.${String(node.parameters.fieldToSplitOut)}`,
						},
					}
				: node,
		);
	const connections = Object.fromEntries(
		Object.entries(workflow.connections).filter(([name]) => !replaced.includes(name)),
	);
	return {
		...workflow,
		id: options.id,
		name: options.name,
		active: false,
		nodes: [webhook, ...nodes],
		connections: {
			[webhook.name]: { main: [[{ node: split, type: 'main', index: 0 }]] },
			...connections,
		},
	};
}

/**
 * The workflows and the examples they run as sub-workflows (an Execute Workflow node naming an
 * example's id, as the review example runs examples/review-store.json), each once.
 */
export function withSubWorkflows(workflows: WorkflowJson[]): WorkflowJson[] {
	const all = [...workflows];
	const examples = exampleWorkflows();
	for (let index = 0; index < all.length; index++)
		for (const node of all[index].nodes) {
			if (node.type !== 'n8n-nodes-base.executeWorkflow') continue;
			const id = (node.parameters.workflowId as { value?: unknown } | undefined)?.value;
			const example = examples.find((each) => each.id === id);
			if (example && !all.some((each) => each.id === id))
				all.push(readExample(basename(example.file)));
		}
	return all;
}

/**
 * Writes workflows into `dir` (one file each), for prepareN8n's `workflowsDir`, with the examples
 * they run as sub-workflows (withSubWorkflows).
 */
export function writeWorkflows(dir: string, workflows: WorkflowJson[]): string {
	mkdirSync(dir, { recursive: true });
	for (const workflow of withSubWorkflows(workflows))
		writeFileSync(join(dir, `${workflow.id}.json`), JSON.stringify(workflow, null, 2));
	return dir;
}

/**
 * Publishes imported workflows (before `n8n start`). n8n 2.41 registers their webhooks in the
 * background, after it printed that it is ready: triggerWebhook waits for them.
 */
export function publishWorkflows(instance: N8nInstance, ids: string[]): void {
	for (const id of ids) instance.cli(['update:workflow', `--id=${id}`, '--active=true']);
}

/**
 * Real n8n in `work` with the package packed afresh, the sandbox credential, `workflows` imported
 * and published, started, and the owner's session: what the tests that trigger workflows by their
 * webhook share.
 */
export async function startN8nWithWorkflows(options: {
	work: string;
	sandboxBaseUrl: string;
	apiKey: string;
	workflows: WorkflowJson[];
}): Promise<{ n8n: N8nInstance; session: OwnerSession }> {
	const prepared = prepareN8n({
		userFolder: join(options.work, 'user'),
		tarball: packTarball(join(options.work, 'pack')),
		sandboxBaseUrl: options.sandboxBaseUrl,
		apiKey: options.apiKey,
		workflowsDir: writeWorkflows(join(options.work, 'workflows'), options.workflows),
		port: await freePort(),
	});
	// Sub-workflows too: n8n 2.x runs a published one for a production execution.
	publishWorkflows(
		prepared,
		withSubWorkflows(options.workflows).map((workflow) => String(workflow.id)),
	);
	const n8n = await startN8n(prepared);
	return { n8n, session: await ownerSession(n8n.url) };
}

/** The owner's REST session on one n8n (one sign-in: n8n limits how often /rest/login may be called). */
export interface OwnerSession {
	url: string;
	cookie: string;
}

export async function ownerSession(url: string): Promise<OwnerSession> {
	return { url, cookie: await signIn(url) };
}

/** n8n ties the session cookie to the browser-id header it was issued with (see signIn). */
const ownerHeaders = (session: OwnerSession) => ({
	cookie: session.cookie,
	'browser-id': 'decision-service-setup',
});

export interface ExecutionSummary {
	id: string;
	status: string;
	mode: string;
	finished?: boolean;
	waitTill?: string | null;
}

/** The executions of a workflow, newest first (at most 100). */
export async function listExecutions(
	session: OwnerSession,
	workflowId: string,
): Promise<ExecutionSummary[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const response = await fetch(`${session.url}/rest/executions?filter=${filter}&limit=100`, {
		headers: ownerHeaders(session),
	});
	if (!response.ok)
		throw new Error(`listing executions answered ${response.status}: ${await response.text()}`);
	return ((await response.json()) as { data: { results: ExecutionSummary[] } }).data.results;
}

type TaskData = {
	data?: { main: Array<Item[] | null> };
	error?: { message: string; description?: string };
	executionStatus?: string;
};

export interface Execution {
	id: string;
	status: string;
	finished: boolean;
	waitTill?: string | null;
	/** Every run of every node that ran, in order (a node fed by two parents runs twice). */
	runData: Record<string, TaskData[]>;
	/** Per node, the items each output received, over all its runs. */
	outputs: Record<string, Item[][]>;
	/** The workflow's error, if it stopped on one. */
	error?: { message: string; description?: string; node?: string };
	lastNodeExecuted?: string;
	/** The stored run data as n8n keeps it (flatted text), to look for what must not be there. */
	raw: string;
}

/** The per-node outputs of some runs: items of each output index, over every run in order. */
export function itemsPerOutput(tasks: TaskData[] | undefined): Item[][] {
	const outputs: Item[][] = [];
	for (const task of tasks ?? [])
		(task.data?.main ?? []).forEach((items, index) => {
			outputs[index] = [...(outputs[index] ?? []), ...(items ?? [])];
		});
	for (let index = 0; index < outputs.length; index++) outputs[index] ??= [];
	return outputs;
}

/** n8n's own copy of `flatted`: always beside the n8n that stored the data. */
function parseFlatted(text: string): unknown {
	const flatted = createRequire(n8nBin())('flatted') as { parse(text: string): unknown };
	return flatted.parse(text);
}

/** One execution, with its run data. */
export async function readExecution(session: OwnerSession, id: string): Promise<Execution> {
	const response = await fetch(`${session.url}/rest/executions/${id}`, {
		headers: ownerHeaders(session),
	});
	if (!response.ok)
		throw new Error(`execution ${id} answered ${response.status}: ${await response.text()}`);
	const { data } = (await response.json()) as {
		data: { status: string; finished: boolean; waitTill?: string | null; data: string };
	};
	const run = parseFlatted(data.data) as {
		resultData: {
			runData: Record<string, TaskData[]>;
			error?: { message: string; description?: string; node?: { name: string } };
			lastNodeExecuted?: string;
		};
	};
	const { runData, error, lastNodeExecuted } = run.resultData;
	return {
		id,
		status: data.status,
		finished: data.finished,
		waitTill: data.waitTill,
		runData,
		outputs: Object.fromEntries(
			Object.entries(runData).map(([name, tasks]) => [name, itemsPerOutput(tasks)]),
		),
		error: error
			? { message: error.message, description: error.description, node: error.node?.name }
			: undefined,
		lastNodeExecuted,
		raw: data.data,
	};
}

/** Statuses after which an execution changes no more. */
export const FINISHED_STATUSES = ['success', 'error', 'crashed', 'canceled'];

/**
 * Polls an execution (every 250 ms, at most `timeoutMs`) until `check` holds; fails early, with
 * what it holds, when it finished and `check` does not hold.
 */
export async function waitForExecutionWhere(
	session: OwnerSession,
	id: string,
	what: string,
	check: (execution: Execution) => boolean,
	timeoutMs = 120_000,
): Promise<Execution> {
	const deadline = Date.now() + timeoutMs;
	let last: Execution | undefined;
	const state = () =>
		`status ${last?.status}, last node ${last?.lastNodeExecuted}, error ${JSON.stringify(last?.error ?? null)}`;
	while (Date.now() < deadline) {
		last = await readExecution(session, id).catch(() => undefined);
		if (last && check(last)) return last;
		if (last && FINISHED_STATUSES.includes(last.status))
			throw new Error(`execution ${id} ended, not ${what}: ${state()}`);
		await new Promise((resolveWait) => setTimeout(resolveWait, 250));
	}
	throw new Error(`execution ${id} not ${what} after ${timeoutMs} ms: ${state()}`);
}

/** Polls an execution until its status is one of `statuses` (see waitForExecutionWhere). */
export function waitForExecution(
	session: OwnerSession,
	id: string,
	statuses: string[],
	timeoutMs = 120_000,
): Promise<Execution> {
	return waitForExecutionWhere(
		session,
		id,
		statuses.join(' or '),
		(execution) => statuses.includes(execution.status),
		timeoutMs,
	);
}

/**
 * Sends `body` to a published workflow's webhook and returns the id of the execution it started:
 * the one new execution of the workflow (so one trigger at a time per workflow).
 */
export async function triggerWebhook(
	session: OwnerSession,
	workflowId: string,
	path: string,
	body: unknown,
	timeoutMs = 60_000,
): Promise<string> {
	const before = new Set((await listExecutions(session, workflowId)).map((each) => each.id));
	// n8n 2.41 publishes workflows in the background (its publication service, every 10 s): its
	// "Editor is now accessible" line may come before a published workflow's webhook answers. A
	// webhook that is not registered yet answers 404 and starts nothing, so it is tried again.
	const registered = Date.now() + timeoutMs;
	let response: Response;
	for (;;) {
		response = await fetch(`${session.url}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		if (response.status !== 404 || Date.now() > registered) break;
		await response.text();
		await new Promise((resolveWait) => setTimeout(resolveWait, 500));
	}
	if (!response.ok)
		throw new Error(`webhook ${path} answered ${response.status}: ${await response.text()}`);
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const started = (await listExecutions(session, workflowId)).filter(
			(each) => !before.has(each.id),
		);
		if (started.length > 1)
			throw new Error(`several executions started at once: ${started.map((each) => each.id)}`);
		if (started.length === 1) return started[0].id;
		await new Promise((resolveWait) => setTimeout(resolveWait, 250));
	}
	throw new Error(`no execution of ${workflowId} appeared ${timeoutMs} ms after its webhook`);
}

/**
 * Retries a failed or crashed execution as the editor's *Retry → Retry with original workflow*
 * does (n8n runs the failed node again on its saved input) and returns the new execution's id; the
 * REST call answers once the retry has finished.
 */
export async function retryExecution(session: OwnerSession, id: string): Promise<string> {
	const response = await fetch(`${session.url}/rest/executions/${id}/retry`, {
		method: 'POST',
		headers: { ...ownerHeaders(session), 'content-type': 'application/json' },
		body: JSON.stringify({ loadWorkflow: false }),
	});
	const text = await response.text();
	if (!response.ok)
		throw new Error(`retrying execution ${id} answered ${response.status}: ${text}`);
	return String((JSON.parse(text) as { data: { id: string } }).data.id);
}
