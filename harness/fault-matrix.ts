/**
 * The fault matrix in REAL n8n: a workflow with one operation of our node (Decide in route mode on
 * `ticket-routing` by default; or Decision → Get Many, Get, Create, Template → Get Many) runs on
 * N items in n8n with the packed package installed, against the fault proxy in front of the
 * sandbox, once per case (operation × a fault script × Retry On Fail × On Error), and each run is
 * counted: items in, items per output and on the error output (or the workflow error), the failed
 * items' messages, decides charged, the operation's requests the proxy received and forwarded,
 * answers lost after the service answered, decisions created, requests that reached the canary.
 *
 * One n8n process for a whole batch: every case gets its own proxy scope and its own credential
 * whose base URL is that scope's (`/m/<scope>/v1`), so its requests, counters and n8n's rate gate
 * (keyed by base URL and key) are its own; the workflows are imported together and run one after
 * the other by `n8n execute-batch` (about 10 s of start-up and imports per batch, then well under
 * a second per run without slow faults).
 *
 * "Charged" per case is the number of decides the sandbox answered 2xx through the proxy: the
 * sandbox charges exactly those (errors are never charged), and every decide of the batch goes
 * through the proxy. The batch's sandbox usage delta is reported beside their sum as a check.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
	NODE_TYPE,
	freePort,
	outputNamesOf,
	packTarball,
	prepareN8n,
	type N8nInstance,
} from './n8n-env';
import { ensureN8n } from './n8n-install';
import {
	DECIDE_ROUTE,
	startFaultProxy,
	sumOf,
	type CanaryHit,
	type FaultProxy,
	type FaultRule,
	type FaultScript,
} from './fault-proxy';
import { DEMO_KEYS, type TestSandbox } from './sandbox';

const CREATE_ROUTE = /^POST \/v1\/decisions$/;

/** What n8n does with a node error: stop the workflow, continue on the regular output(s), or use the error output. */
export type OnError = 'stop' | 'continue' | 'errorOutput';

/**
 * The operation a case runs. Reads: Decision → Get Many (limit 1), Get (`ticket-routing`),
 * Template → Get Many (limit 1). Creates, each item its own decision, named after the case and the
 * item so the sandbox's decisions can be counted per case: from a template with a name and from a
 * definition (idempotent on the slug the name gives), and from a description with neither name nor
 * slug (the service drafts the name: not provably idempotent; needs the sandbox's drafter).
 */
export type MatrixOperation =
	| 'decide'
	| 'decisionGetMany'
	| 'decisionGet'
	| 'templateGetMany'
	| 'createFromTemplate'
	| 'createFromDefinition'
	| 'createFromDescription';

export interface OperationInfo {
	/** The request each item makes, for fault rules (`path` is a RegExp source) and counters. */
	method: 'GET' | 'POST';
	path: string;
	/** `METHOD path` as the proxy's counters key it. */
	route: RegExp;
}

export const OPERATIONS: Record<MatrixOperation, OperationInfo> = {
	decide: { method: 'POST', path: '^/v1/decide/', route: DECIDE_ROUTE },
	decisionGetMany: { method: 'GET', path: '^/v1/decisions$', route: /^GET \/v1\/decisions$/ },
	decisionGet: {
		method: 'GET',
		path: '^/v1/decisions/ticket-routing$',
		route: /^GET \/v1\/decisions\/ticket-routing$/,
	},
	templateGetMany: { method: 'GET', path: '^/v1/templates$', route: /^GET \/v1\/templates$/ },
	createFromTemplate: { method: 'POST', path: '^/v1/decisions$', route: CREATE_ROUTE },
	createFromDefinition: { method: 'POST', path: '^/v1/decisions$', route: CREATE_ROUTE },
	createFromDescription: { method: 'POST', path: '^/v1/decisions$', route: CREATE_ROUTE },
};

export const isCreate = (operation: MatrixOperation): boolean => operation.startsWith('create');

export interface MatrixCase {
	/** Shown in the report; unique within a batch. */
	name: string;
	/** Default 'decide'. */
	operation?: MatrixOperation;
	script: FaultScript | FaultRule[];
	/** The key of this case's credential; default the batch's (FaultMatrixOptions.apiKey). */
	apiKey?: string;
	/** Items into the Decide node. Default 24. */
	items?: number;
	/** n8n's Retry On Fail on the node (`true`: n8n's defaults, 3 tries, 1 s apart). */
	retryOnFail?: boolean | { maxTries?: number; waitBetweenTriesMs?: number };
	/** Default 'stop' (continue-on-fail off). */
	onError?: OnError;
	/** Decide's Options (e.g. `{ timeout: 10, concurrency: 5, maxRateLimitWait: 5 }`). */
	options?: Record<string, unknown>;
}

/** A failed item as it came out of the node (error output, Other, or the only output under continue). */
export interface FailedItem {
	/** The input item it pairs with. */
	item?: number;
	message: string;
	/** Decide's `error.may_have_been_charged`; absent for the other operations (their `error` is the message). */
	mayHaveBeenCharged?: boolean;
}

export interface MatrixResult {
	name: string;
	operation: MatrixOperation;
	scope: string;
	itemsIn: number;
	/**
	 * Items per output, {} when the workflow failed. Decide: by output name (billing, technical,
	 * sales, account, Uncertain, Pending Review, Other). The other operations have one output:
	 * `results` (answers) and `failed` (items carrying `error`, under continue-on-fail).
	 */
	outputs: Record<string, number>;
	/** Items on the error output (0 unless onError is 'errorOutput'). */
	errorOutput: number;
	/** Sum of `outputs` and `errorOutput`. */
	itemsOut: number;
	/** The workflow's error as n8n reports it (its description or message, and the node), when the run failed. */
	workflowError?: string;
	/** Items that came out failed (on the error output, Other, or the only output), with their messages. */
	failed: FailedItem[];
	/** Decides the sandbox answered 2xx (charged) for this case (0 for the other operations). */
	charged: number;
	/** The requests of the case's operation (OPERATIONS[operation].route). */
	requests: {
		/** Requests that reached the proxy. */
		received: number;
		/** …that the proxy forwarded to the sandbox. */
		forwarded: number;
		/** …that the sandbox refused for the key's rate (429, free, waited out and sent again). */
		rateLimited: number;
		/** Answers the sandbox gave that never reached n8n (reset/hang after, cut body, client gone). */
		lostAfterAnswer: number;
		/** Answers delivered altered (patched or replaced). */
		altered: number;
	};
	/**
	 * Creates only: `answered201`, creates the sandbox answered 201 (made a new decision);
	 * `decisions`, the case's decisions in the sandbox after the batch. One decision per item at
	 * most, each made once: decisions == answered201 <= items.
	 */
	created?: { answered201: number; decisions: number };
	/** Requests of this case that reached the canary (another origin). */
	canary: { hits: number; withKey: number; withBody: number; list: CanaryHit[] };
	/** Faults the proxy applied, by kind. */
	faults: Record<string, number>;
}

export interface MatrixReport {
	cases: MatrixResult[];
	/** The sandbox's usage delta for the key over the whole batch. */
	usageDelta: number;
	/** Sum of `charged` over the cases: equals `usageDelta` when every decide went through the proxy. */
	chargedTotal: number;
	/** Sum of `itemsIn` over the cases. */
	itemsTotal: number;
	/** Requests of every case that reached the canary. */
	canaryTotal: number;
	durationMs: number;
}

export interface FaultMatrixOptions {
	/** Create from a description needs its drafter on (`startTestSandbox({ drafter: true })`). */
	sandbox: TestSandbox;
	/**
	 * The key the credentials carry unless a case gives its own; `usageDelta` is this key's.
	 * Default the Scale demo key (600 decides a minute: a batch stays under it).
	 */
	apiKey?: string;
	/** A packed tarball of the package; packed from the project when omitted. */
	tarball?: string;
	/** Where n8n's user folder goes; a temporary folder (removed on close) when omitted. */
	workDir?: string;
	log?: (line: string) => void;
}

export interface FaultMatrix {
	proxy: FaultProxy;
	n8n: N8nInstance;
	run(cases: MatrixCase[]): Promise<MatrixReport>;
	close(): Promise<void>;
}

/** The name of the node under test in every case's workflow. */
export const MATRIX_NODE = 'Decision Service';

/** Tickets the sandbox's engine routes clearly, one per option of the demo `ticket-routing`. */
export const MATRIX_TICKETS = [
	{ subject: 'Charged twice', body: 'I was charged twice on my invoice' },
	{ subject: 'App crashes', body: 'The app crashes with an error when I upload a file' },
	{ subject: 'Quote', body: 'I would like a demo and a quote for 50 licences for my team' },
	{ subject: 'Password', body: 'I forgot my password and cannot log in' },
] as const;

const ROUTES = ['billing', 'technical', 'sales', 'account'];

function column(id: string) {
	return {
		id,
		displayName: id,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: 'string',
	};
}

/** The Decide node's parameters: route mode on `ticket-routing`, subject and body mapped, the four options saved as outputs. */
export function decideParameters(options: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		resource: 'decision',
		operation: 'decide',
		decision: {
			__rl: true,
			mode: 'list',
			value: 'ticket-routing',
			cachedResultName: 'Ticket routing (route)',
		},
		inputMode: 'mapFields',
		inputFields: {
			mappingMode: 'defineBelow',
			value: { subject: '={{ $json.subject }}', body: '={{ $json.body }}' },
			matchingColumns: [],
			schema: [
				{ ...column('subject'), required: true },
				{ ...column('body'), required: true },
			],
			attemptToConvertTypes: false,
			convertFieldsToString: false,
		},
		outputMode: 'routeToOutputs',
		routes: {
			mappingMode: 'defineBelow',
			value: {},
			matchingColumns: [],
			schema: ROUTES.map(column),
			attemptToConvertTypes: false,
			convertFieldsToString: false,
		},
		options,
	};
}

/**
 * The decisions a create case makes have names (or drafted names) holding `fm <tag> … <n>`: their
 * slugs hold `fm-<tag>-` (the tag is unique per case within a matrix).
 */
export function caseDecisionSlug(tag: string): RegExp {
	return new RegExp(`(^|-)fm-${tag}-`);
}

/** The node's parameters for a case's operation; `tag` names what a create makes. */
export function operationParameters(
	operation: MatrixOperation,
	tag: string,
	options: Record<string, unknown> = {},
): Record<string, unknown> {
	switch (operation) {
		case 'decide':
			return decideParameters(options);
		case 'decisionGetMany':
			return { resource: 'decision', operation: 'getAll', returnAll: false, limit: 1 };
		case 'decisionGet':
			return {
				resource: 'decision',
				operation: 'get',
				decision: { __rl: true, mode: 'slug', value: 'ticket-routing' },
			};
		case 'templateGetMany':
			return {
				resource: 'template',
				operation: 'getAll',
				locale: 'en',
				returnAll: false,
				limit: 1,
			};
		case 'createFromTemplate':
			return {
				resource: 'decision',
				operation: 'create',
				createFrom: 'template',
				locale: 'en',
				template: 'support-ticket-routing',
				additionalFields: { customName: `=FM ${tag} template {{ $json.n }}` },
			};
		case 'createFromDefinition':
			return {
				resource: 'decision',
				operation: 'create',
				createFrom: 'definition',
				decisionName: `=FM ${tag} definition {{ $json.n }}`,
				decisionType: 'route',
				instructions: 'Which team should handle this ticket?',
				itemsMode: 'text',
				itemsText: 'billing, technical',
				additionalFields: {},
			};
		case 'createFromDescription':
			// No name, no slug: the drafter names it "Route tickets FM <tag> <n>".
			return {
				resource: 'decision',
				operation: 'create',
				createFrom: 'description',
				describe: `=Route tickets FM ${tag} {{ $json.n }} to billing or technical`,
				additionalFields: {},
			};
	}
}

/** The workflow of one case: Manual Trigger → N tickets → one item each → the node under test. */
export function matrixWorkflow(
	id: string,
	credentialId: string,
	matrixCase: MatrixCase,
	tag: string,
): Record<string, unknown> {
	const items = matrixCase.items ?? 24;
	const tickets = Array.from({ length: items }, (_, index) => ({
		n: index + 1,
		...MATRIX_TICKETS[index % MATRIX_TICKETS.length],
	}));
	const retry = matrixCase.retryOnFail;
	const onError = matrixCase.onError ?? 'stop';
	const node: Record<string, unknown> = {
		id: `${id}-node`,
		name: MATRIX_NODE,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [660, 300],
		credentials: { decisionServiceApi: { id: credentialId, name: credentialId } },
		parameters: operationParameters(matrixCase.operation ?? 'decide', tag, matrixCase.options),
	};
	if (onError === 'continue') node.onError = 'continueRegularOutput';
	if (onError === 'errorOutput') node.onError = 'continueErrorOutput';
	if (retry) {
		node.retryOnFail = true;
		if (typeof retry === 'object') {
			if (retry.maxTries !== undefined) node.maxTries = retry.maxTries;
			if (retry.waitBetweenTriesMs !== undefined) node.waitBetweenTries = retry.waitBetweenTriesMs;
		}
	}
	return {
		id,
		name: `Fault matrix: ${matrixCase.name}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-trigger`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 300],
				parameters: {},
			},
			{
				id: `${id}-tickets`,
				name: 'Tickets',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [220, 300],
				parameters: { mode: 'raw', jsonOutput: JSON.stringify({ tickets }), options: {} },
			},
			{
				id: `${id}-split`,
				name: 'One item each',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [440, 300],
				parameters: { fieldToSplitOut: 'tickets', options: {} },
			},
			node,
		],
		connections: {
			Start: { main: [[{ node: 'Tickets', type: 'main', index: 0 }]] },
			Tickets: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
			'One item each': { main: [[{ node: MATRIX_NODE, type: 'main', index: 0 }]] },
		},
	};
}

type OutputItem = { json: Record<string, unknown>; pairedItem?: unknown };

/** The failed item an output item is, if it carries an `error` (Decide's object, or the other operations' message). */
function failedItemOf(item: OutputItem): FailedItem | undefined {
	const error = item.json.error;
	if (error === undefined || error === null) return undefined;
	const paired = item.pairedItem as { item?: number } | undefined;
	const at = typeof paired?.item === 'number' ? { item: paired.item } : {};
	if (typeof error === 'string') return { ...at, message: error };
	if (typeof error === 'object') {
		const object = error as { message?: unknown; may_have_been_charged?: unknown };
		return {
			...at,
			message: String(object.message ?? JSON.stringify(error)),
			...(typeof object.may_have_been_charged === 'boolean'
				? { mayHaveBeenCharged: object.may_have_been_charged }
				: {}),
		};
	}
	return { ...at, message: String(error) };
}

interface BatchExecution {
	workflowId: string;
	executionStatus: string;
	error?: string;
}

type Snapshot = {
	data: {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<OutputItem[] | null> } }>>;
			error?: { message?: string; description?: string };
		};
	};
};

/** Runs n8n's CLI for this instance; resolves with its exit code (execute-batch exits 1 when a workflow failed). */
function runCli(instance: N8nInstance, args: string[]): Promise<{ code: number; output: string }> {
	return promisify(execFile)(process.execPath, [ensureN8n(), ...args], {
		env: instance.env,
		maxBuffer: 256 * 1024 * 1024,
	}).then(
		({ stdout, stderr }) => ({ code: 0, output: `${stdout}\n${stderr}` }),
		(error: { code?: number; stdout?: string; stderr?: string }) => ({
			code: typeof error.code === 'number' ? error.code : 1,
			output: `${error.stdout ?? ''}\n${error.stderr ?? ''}`,
		}),
	);
}

export async function startFaultMatrix(options: FaultMatrixOptions): Promise<FaultMatrix> {
	const log = options.log ?? (() => {});
	const apiKey = options.apiKey ?? DEMO_KEYS.scale;
	const ownWork = options.workDir === undefined;
	const work = options.workDir ?? mkdtempSync(join(tmpdir(), 'decision-service-matrix-'));
	mkdirSync(work, { recursive: true });
	const proxy = await startFaultProxy({ target: options.sandbox.sandbox.origin });
	const tarball = options.tarball ?? packTarball(join(work, 'pack'));
	log(`fault matrix: n8n user folder ${join(work, 'user')}`);
	const n8n = prepareN8n({
		userFolder: join(work, 'user'),
		tarball,
		sandboxBaseUrl: proxy.baseUrl,
		apiKey,
		port: await freePort(),
	});
	let batches = 0;

	const run = async (cases: MatrixCase[]): Promise<MatrixReport> => {
		const started = Date.now();
		batches += 1;
		const batch = join(work, `batch-${batches}`);
		const workflowsDir = join(batch, 'workflows');
		const snapshots = join(batch, 'snapshots');
		mkdirSync(workflowsDir, { recursive: true });
		mkdirSync(snapshots, { recursive: true });
		const planned = cases.map((matrixCase, index) => {
			const tag = `b${batches}c${index + 1}`;
			const scope = tag;
			const workflowId = `dsFmWf${tag}`;
			const credentialId = `dsFmCred${tag}`;
			proxy.reset(scope);
			proxy.script(matrixCase.script, scope);
			const operation = matrixCase.operation ?? 'decide';
			return { matrixCase, operation, tag, scope, workflowId, credentialId };
		});
		if (new Set(cases.map((each) => each.name)).size !== cases.length)
			throw new Error('fault matrix: case names must be unique within a batch');

		const credentialsFile = join(batch, 'credentials.json');
		writeFileSync(
			credentialsFile,
			JSON.stringify(
				planned.map(({ matrixCase, scope, credentialId }) => ({
					id: credentialId,
					name: credentialId,
					type: 'decisionServiceApi',
					data: { apiKey: matrixCase.apiKey ?? apiKey, baseUrl: proxy.baseUrlFor(scope) },
				})),
			),
		);
		await n8n.cliAsync(['import:credentials', `--input=${credentialsFile}`]);
		rmSync(credentialsFile);
		for (const { matrixCase, tag, workflowId, credentialId } of planned)
			writeFileSync(
				join(workflowsDir, `${workflowId}.json`),
				JSON.stringify(matrixWorkflow(workflowId, credentialId, matrixCase, tag)),
			);
		await n8n.cliAsync(['import:workflow', '--separate', `--input=${workflowsDir}`]);

		const usageBefore = (await options.sandbox.usage(apiKey)).used;
		const outputFile = join(batch, 'results.json');
		log(`fault matrix: running ${cases.length} case(s) in one n8n process`);
		const { code, output } = await runCli(n8n, [
			'execute-batch',
			`--ids=${planned.map((each) => each.workflowId).join(',')}`,
			'--concurrency=1',
			'--retries=0',
			`--snapshot=${snapshots}`,
			`--output=${outputFile}`,
		]);
		if (!existsSync(outputFile))
			throw new Error(`n8n execute-batch wrote no results (exit ${code}):\n${output.slice(-3000)}`);
		await proxy.idle(60_000);
		const usageDelta = (await options.sandbox.usage(apiKey)).used - usageBefore;
		const executions = (
			JSON.parse(readFileSync(outputFile, 'utf8')) as { executions: BatchExecution[] }
		).executions;
		// The decisions of every key a create case used, read from the sandbox itself.
		const decisionsByKey = new Map<string, string[]>();
		for (const { matrixCase, operation } of planned) {
			const key = matrixCase.apiKey ?? apiKey;
			if (!isCreate(operation) || decisionsByKey.has(key)) continue;
			const listed = await options.sandbox.client(key).listDecisions();
			decisionsByKey.set(
				key,
				listed.map((decision) => decision.slug),
			);
		}

		const results = planned.map((each): MatrixResult => {
			const { matrixCase, operation, tag, scope, workflowId } = each;
			const execution = executions.find((one) => one.workflowId === workflowId);
			// Decide's outputs by name; the other operations have one output.
			const names =
				operation === 'decide' ? outputNamesOf(decideParameters(matrixCase.options)) : ['main'];
			const outputs: Record<string, number> = {};
			let errorOutput = 0;
			const failed: FailedItem[] = [];
			let workflowError: string | undefined;
			const snapshotFile = join(snapshots, `${workflowId}-snapshot.json`);
			if (execution?.executionStatus === 'success' && existsSync(snapshotFile)) {
				const snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as Snapshot;
				const tasks = snapshot.data.resultData.runData[MATRIX_NODE] ?? [];
				const main = (tasks[tasks.length - 1]?.data?.main ?? []).map((items) => items ?? []);
				const found = main.flatMap((items) => items.flatMap((item) => failedItemOf(item) ?? []));
				failed.push(...found);
				if (operation === 'decide') {
					names.forEach((name, index) => (outputs[name] = main[index]?.length ?? 0));
				} else {
					const regular = main[0] ?? [];
					const failures = regular.filter((item) => failedItemOf(item)).length;
					outputs.results = regular.length - failures;
					outputs.failed = failures;
				}
				if (main.length > names.length) errorOutput = main[names.length]?.length ?? 0;
			} else {
				workflowError = execution?.error ?? `no result for ${workflowId} (exit ${code})`;
			}
			const counters = proxy.counters(scope);
			const hits = counters.canaryHits;
			const route = OPERATIONS[operation].route;
			const created = isCreate(operation)
				? {
						answered201: proxy
							.exchanges(scope)
							.filter(
								(exchange) =>
									route.test(`${exchange.method} ${exchange.path}`) &&
									exchange.upstreamStatus === 201,
							).length,
						decisions: (decisionsByKey.get(matrixCase.apiKey ?? apiKey) ?? []).filter((slug) =>
							caseDecisionSlug(tag).test(slug),
						).length,
					}
				: undefined;
			return {
				name: matrixCase.name,
				operation,
				scope,
				itemsIn: matrixCase.items ?? 24,
				outputs,
				errorOutput,
				itemsOut: Object.values(outputs).reduce((sum, count) => sum + count, 0) + errorOutput,
				...(workflowError !== undefined ? { workflowError } : {}),
				failed,
				charged: sumOf(counters.upstreamOk, DECIDE_ROUTE),
				requests: {
					received: sumOf(counters.received, route),
					forwarded: sumOf(counters.forwarded, route),
					rateLimited: sumOf(counters.upstreamRateLimited, route),
					lostAfterAnswer: sumOf(counters.lostAfterAnswer, route),
					altered: sumOf(counters.altered, route),
				},
				...(created ? { created } : {}),
				canary: {
					hits: hits.length,
					withKey: hits.filter((hit) => hit.authorization).length,
					withBody: hits.filter((hit) => hit.body).length,
					list: hits,
				},
				faults: { ...counters.faults },
			};
		});
		return {
			cases: results,
			usageDelta,
			chargedTotal: results.reduce((sum, each) => sum + each.charged, 0),
			itemsTotal: results.reduce((sum, each) => sum + each.itemsIn, 0),
			canaryTotal: results.reduce((sum, each) => sum + each.canary.hits, 0),
			durationMs: Date.now() - started,
		};
	};

	return {
		proxy,
		n8n,
		run,
		async close() {
			await proxy.close();
			if (ownWork) rmSync(work, { recursive: true, force: true });
		},
	};
}

/** One line per operation: its cases and the sums of their figures. */
function operationSummary(report: MatrixReport): string[] {
	const operations = [...new Set(report.cases.map((each) => each.operation))];
	return operations.map((operation) => {
		const cases = report.cases.filter((each) => each.operation === operation);
		const sum = (figure: (each: MatrixResult) => number) =>
			cases.reduce((total, each) => total + figure(each), 0);
		const created = cases.some((each) => each.created)
			? ` · created ${sum((each) => each.created?.answered201 ?? 0)} (decisions ${sum((each) => each.created?.decisions ?? 0)})`
			: '';
		return `${operation} (${cases.length} cases): in ${sum((each) => each.itemsIn)} · out ${sum((each) => each.itemsOut)} · failed ${sum((each) => each.failed.length)} · stopped runs ${sum((each) => (each.workflowError ? 1 : 0))} · charged ${sum((each) => each.charged)}${created} · requests ${sum((each) => each.requests.received)} · canary ${sum((each) => each.canary.hits)}`;
	});
}

/** One line per case, one per operation, then the totals: the figures a reader needs (for logs and reports). */
export function formatMatrixReport(report: MatrixReport): string {
	const lines = report.cases.map((each) => {
		const outputs = Object.entries(each.outputs)
			.filter(([, count]) => count > 0)
			.map(([name, count]) => `${name} ${count}`);
		if (each.errorOutput) outputs.push(`error output ${each.errorOutput}`);
		const figures = [
			each.operation,
			`in ${each.itemsIn}`,
			`out ${each.itemsOut}${outputs.length ? ` (${outputs.join(', ')})` : ''}`,
			`charged ${each.charged}`,
			each.created
				? `created ${each.created.answered201} (decisions ${each.created.decisions})`
				: '',
			`requests received ${each.requests.received} forwarded ${each.requests.forwarded} rate-limited ${each.requests.rateLimited} lost ${each.requests.lostAfterAnswer} altered ${each.requests.altered}`,
			`canary ${each.canary.hits} (key ${each.canary.withKey}, body ${each.canary.withBody})`,
			each.workflowError ? `workflow error: ${each.workflowError}` : '',
		].filter(Boolean);
		return `${each.name}: ${figures.join(' · ')}`;
	});
	lines.push(...operationSummary(report));
	lines.push(
		`${report.cases.length} cases, ${report.itemsTotal} items, charged ${report.chargedTotal} (usage delta ${report.usageDelta}), canary hits ${report.canaryTotal}, ${Math.round(report.durationMs / 1000)} s`,
	);
	return lines.join('\n');
}
