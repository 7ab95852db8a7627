/**
 * The fault matrix in REAL n8n: a Decide workflow (route mode, `ticket-routing`, N items) runs in
 * n8n with the packed package installed, against the fault proxy in front of the sandbox, once per
 * case (a fault script × Retry On Fail × On Error), and each run is counted: items in, items per
 * output and on the error output (or the workflow error), decides charged, decide requests the
 * proxy received and forwarded, answers lost after charging, requests that reached the canary.
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

/** What n8n does with a node error: stop the workflow, continue on the regular output(s), or use the error output. */
export type OnError = 'stop' | 'continue' | 'errorOutput';

export interface MatrixCase {
	/** Shown in the report; unique within a batch. */
	name: string;
	script: FaultScript | FaultRule[];
	/** Items into the Decide node. Default 24. */
	items?: number;
	/** n8n's Retry On Fail on the node (`true`: n8n's defaults, 3 tries, 1 s apart). */
	retryOnFail?: boolean | { maxTries?: number; waitBetweenTriesMs?: number };
	/** Default 'stop' (continue-on-fail off). */
	onError?: OnError;
	/** The node's Options (e.g. `{ timeout: 10, concurrency: 5, maxRateLimitWait: 5 }`). */
	options?: Record<string, unknown>;
}

export interface MatrixResult {
	name: string;
	scope: string;
	itemsIn: number;
	/** Items per output, by output name (billing, technical, sales, account, Uncertain, Pending Review, Other); {} when the workflow failed. */
	outputs: Record<string, number>;
	/** Items on the error output (0 unless onError is 'errorOutput'). */
	errorOutput: number;
	/** Sum of `outputs` and `errorOutput`. */
	itemsOut: number;
	/** The workflow's error as n8n reports it (its description or message, and the node), when the run failed. */
	workflowError?: string;
	/** Decides the sandbox answered 2xx (charged) for this case. */
	charged: number;
	decideRequests: {
		/** Decide requests that reached the proxy. */
		received: number;
		/** …that the proxy forwarded to the sandbox. */
		forwarded: number;
		/** Answers the sandbox gave that never reached n8n (reset/hang after, cut body, client gone). */
		lostAfterAnswer: number;
		/** Answers delivered altered (patched or replaced). */
		altered: number;
	};
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
	durationMs: number;
}

export interface FaultMatrixOptions {
	sandbox: TestSandbox;
	/** The key the credentials carry. Default the Scale demo key (600 decides a minute: a batch stays under it). */
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

export const DECIDE_NODE = 'Decide';

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

/** The workflow of one case: Manual Trigger → N tickets → one item each → Decide. */
export function matrixWorkflow(
	id: string,
	credentialId: string,
	matrixCase: MatrixCase,
): Record<string, unknown> {
	const items = matrixCase.items ?? 24;
	const tickets = Array.from({ length: items }, (_, index) => ({
		n: index + 1,
		...MATRIX_TICKETS[index % MATRIX_TICKETS.length],
	}));
	const retry = matrixCase.retryOnFail;
	const onError = matrixCase.onError ?? 'stop';
	const decide: Record<string, unknown> = {
		id: `${id}-decide`,
		name: DECIDE_NODE,
		type: NODE_TYPE,
		typeVersion: 1,
		position: [660, 300],
		credentials: { decisionServiceApi: { id: credentialId, name: credentialId } },
		parameters: decideParameters(matrixCase.options),
	};
	if (onError === 'continue') decide.onError = 'continueRegularOutput';
	if (onError === 'errorOutput') decide.onError = 'continueErrorOutput';
	if (retry) {
		decide.retryOnFail = true;
		if (typeof retry === 'object') {
			if (retry.maxTries !== undefined) decide.maxTries = retry.maxTries;
			if (retry.waitBetweenTriesMs !== undefined)
				decide.waitBetweenTries = retry.waitBetweenTriesMs;
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
			decide,
		],
		connections: {
			Start: { main: [[{ node: 'Tickets', type: 'main', index: 0 }]] },
			Tickets: { main: [[{ node: 'One item each', type: 'main', index: 0 }]] },
			'One item each': { main: [[{ node: DECIDE_NODE, type: 'main', index: 0 }]] },
		},
	};
}

interface BatchExecution {
	workflowId: string;
	executionStatus: string;
	error?: string;
}

type Snapshot = {
	data: {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<unknown[] | null> } }>>;
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
			return { matrixCase, scope, workflowId, credentialId };
		});
		if (new Set(cases.map((each) => each.name)).size !== cases.length)
			throw new Error('fault matrix: case names must be unique within a batch');

		const credentialsFile = join(batch, 'credentials.json');
		writeFileSync(
			credentialsFile,
			JSON.stringify(
				planned.map(({ scope, credentialId }) => ({
					id: credentialId,
					name: credentialId,
					type: 'decisionServiceApi',
					data: { apiKey, baseUrl: proxy.baseUrlFor(scope) },
				})),
			),
		);
		await n8n.cliAsync(['import:credentials', `--input=${credentialsFile}`]);
		rmSync(credentialsFile);
		for (const { matrixCase, workflowId, credentialId } of planned)
			writeFileSync(
				join(workflowsDir, `${workflowId}.json`),
				JSON.stringify(matrixWorkflow(workflowId, credentialId, matrixCase)),
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

		const results = planned.map(({ matrixCase, scope, workflowId }): MatrixResult => {
			const execution = executions.find((each) => each.workflowId === workflowId);
			const names = outputNamesOf(decideParameters(matrixCase.options));
			const outputs: Record<string, number> = {};
			let errorOutput = 0;
			let workflowError: string | undefined;
			const snapshotFile = join(snapshots, `${workflowId}-snapshot.json`);
			if (execution?.executionStatus === 'success' && existsSync(snapshotFile)) {
				const snapshot = JSON.parse(readFileSync(snapshotFile, 'utf8')) as Snapshot;
				const tasks = snapshot.data.resultData.runData[DECIDE_NODE] ?? [];
				const main = tasks[tasks.length - 1]?.data?.main ?? [];
				names.forEach((name, index) => (outputs[name] = main[index]?.length ?? 0));
				if (main.length > names.length) errorOutput = main[names.length]?.length ?? 0;
			} else {
				workflowError = execution?.error ?? `no result for ${workflowId} (exit ${code})`;
			}
			const counters = proxy.counters(scope);
			const hits = counters.canaryHits;
			return {
				name: matrixCase.name,
				scope,
				itemsIn: matrixCase.items ?? 24,
				outputs,
				errorOutput,
				itemsOut: Object.values(outputs).reduce((sum, count) => sum + count, 0) + errorOutput,
				...(workflowError !== undefined ? { workflowError } : {}),
				charged: sumOf(counters.upstreamOk, DECIDE_ROUTE),
				decideRequests: {
					received: sumOf(counters.received, DECIDE_ROUTE),
					forwarded: sumOf(counters.forwarded, DECIDE_ROUTE),
					lostAfterAnswer: sumOf(counters.lostAfterAnswer, DECIDE_ROUTE),
					altered: sumOf(counters.altered, DECIDE_ROUTE),
				},
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

/** One line per case: the figures a reader needs (for logs and reports). */
export function formatMatrixReport(report: MatrixReport): string {
	const lines = report.cases.map((each) => {
		const outputs = Object.entries(each.outputs)
			.filter(([, count]) => count > 0)
			.map(([name, count]) => `${name} ${count}`)
			.join(', ');
		const figures = [
			`in ${each.itemsIn}`,
			`out ${each.itemsOut}${outputs ? ` (${outputs}${each.errorOutput ? `, error output ${each.errorOutput}` : ''})` : each.errorOutput ? ` (error output ${each.errorOutput})` : ''}`,
			`charged ${each.charged}`,
			`decides received ${each.decideRequests.received} forwarded ${each.decideRequests.forwarded} lost ${each.decideRequests.lostAfterAnswer} altered ${each.decideRequests.altered}`,
			`canary ${each.canary.hits} (key ${each.canary.withKey}, body ${each.canary.withBody})`,
			each.workflowError ? `workflow error: ${each.workflowError}` : '',
		].filter(Boolean);
		return `${each.name}: ${figures.join(' · ')}`;
	});
	lines.push(
		`usage delta ${report.usageDelta} (sum of charged ${report.chargedTotal}), ${Math.round(report.durationMs / 1000)} s`,
	);
	return lines.join('\n');
}
