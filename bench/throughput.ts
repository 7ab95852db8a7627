/**
 * `npm run bench -- --only throughput`: issue 12's scenarios in real n8n. Each plan (Starter,
 * Pro, Scale) at each latency the API text describes (200 ms, 800 ms, and a fallback mix: 600 ms
 * with 10 % at 3–5 s), injected by the sandbox in each decide's engine phase (after its rate unit
 * was taken, see sandbox/faults.ts: latency_at); contenders: our node
 * with default settings (no option set), the HTTP Request node's default, and the HTTP Request
 * node batched to the plan's rate. Then two n8n processes on one key (Scale, 800 ms), each posting
 * half of the items at once, as two queue-mode workers would.
 *
 * Every contender continues on fail and the webhook answers with every item, so failed items and
 * their errors are counted (a 429 that reached the user is a failed item whose error is
 * `rate_limited`). The service's side comes from the sandbox's record of each exchange.
 *
 * Flags: --window-ms (default 20 000: the plan's minute scaled 3×), --rounds (default 1),
 * --quick (10 s windows, 200 ms and the fallback mix only, at most 240 items a run; the report
 * files go to a temporary folder).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import {
	DEMO_KEYS,
	startSandbox,
	type RunningSandbox,
	type SandboxExchange,
} from '../sandbox/server';
import type { FaultRule } from '../sandbox/faults';
import { N8N_VERSION } from '../harness/n8n-install';
import {
	freePort,
	packTarball,
	prepareN8n,
	projectRoot,
	startN8n,
	type N8nInstance,
} from '../harness/n8n-env';
import { cpuMs, machine, machineBusyMs, peakRssMb, resetPeakRss } from './measure';
import {
	controlSandbox,
	figure,
	measureIdleCpu,
	successTimes,
	sustainedRateRatio,
	waitForWebhooks,
} from './n8n-bench';
import { renderRatePlots, type RateSeries } from './plot';
import { bearerCredentialIdOf, benchWorkflow, type Contender } from './workflows';

export interface ThroughputOptions {
	quick: boolean;
	/** The sandbox's rate window: the plan's minute, scaled. */
	windowMs: number;
	rounds: number;
}

export interface Plan {
	name: string;
	slug: string;
	key: string;
	/** Requests per window. */
	limit: number;
}

export const FREE: Plan = { name: 'Free (30/min)', slug: 'free', key: DEMO_KEYS.free, limit: 30 };
export const PLANS: Plan[] = [
	{ name: 'Starter (60/min)', slug: 'starter', key: DEMO_KEYS.starter, limit: 60 },
	{ name: 'Pro (120/min)', slug: 'pro', key: DEMO_KEYS.pro, limit: 120 },
	{ name: 'Scale (600/min)', slug: 'scale', key: DEMO_KEYS.scale, limit: 600 },
];

export interface Latency {
	name: string;
	/** The sandbox's fault rules: a wait before it handles each decide, nothing else. */
	rules: FaultRule[];
}

/**
 * The wait is the engine's: the decide takes its rate unit when it arrives (a rate limiter in
 * front of the engines), a 429 comes back at once, and the answer leaves after the wait.
 */
const DECIDES = { method: 'POST', path: '^/v1/decide/', latency_at: 'engine' as const };
/** The API text: "the primary engine usually answers in under one second, a fallback after a primary-engine timeout can take a few seconds". */
export const LATENCIES: Latency[] = [
	{ name: '200 ms', rules: [{ ...DECIDES, latency_ms: 200 }] },
	{ name: '800 ms', rules: [{ ...DECIDES, latency_ms: 800 }] },
	{
		name: '600 ms, 10 % at 3–5 s',
		rules: [
			{ ...DECIDES, probability: 0.1, latency_ms: 3000, latency_max_ms: 5000 },
			{ ...DECIDES, latency_ms: 600 },
		],
	},
];
export const SCALE = PLANS[2];
const TWO_PROCESS_LATENCY = LATENCIES[1];

export const CONTENDERS: Contender[] = ['decision-service', 'http-default', 'http-batched'];
export const contenderLabel = (contender: Contender) =>
	contender === 'decision-service' ? 'decision-service (default settings)' : contender;

/** One n8n process of the bench. */
export interface BenchN8n {
	instance: N8nInstance;
	/** n8n's own CPU use while idle, subtracted from each run's figure. */
	idleCpuMsPerSecond: number;
	/**
	 * When our node last finished a run with each key in this process: its rate gate lives in the
	 * process and remembers the key's window, and the sandbox is reset before each run.
	 */
	gateUsedAt: Map<string, number>;
}

/** Items posted to one n8n's webhook in a run. */
export interface Share {
	n8n: BenchN8n;
	path: string;
	items: number;
}

export interface ThroughputFigures {
	wallMs: number;
	items: number;
	/** Successful decides, counted by the service. */
	ok: number;
	/** Items − ok. */
	failed: number;
	/** Items that came back with an error (continue on fail), and of those with `rate_limited`. */
	failedReported: number;
	rateLimitedToUser: number;
	/** Executions that did not answer with the items (status and the start of the body). */
	executionErrors: string[];
	/** The first failed item's error, shortened: what the user saw. */
	sampleError?: string;
	/** 429 answers the service sent to the decides. */
	sent429: number;
	/** Achieved ÷ plan rate (sustainedRateRatio); null with fewer than two windows of requests. */
	rateRatio: number | null;
	/** n8n CPU per item, idle subtracted, over every process of the run. */
	cpuMsPerItem: number;
	/**
	 * CPU the rest of the machine used during the run (not n8n, not this process: the sandbox
	 * runs here), in cores: another job's load shows here, and the CPU figures are then suspect.
	 */
	otherCores: number;
	/** Peak RSS of each n8n process of the run. */
	peakRssMb: number[];
	/** Decides the service held at once: mean (sum of holding times ÷ span) and max. */
	inFlightMean: number;
	inFlightMax: number;
	/** Arrival of each successful decide at the service (ms, performance.now() of this process). */
	timestamps: number[];
	/** How long the service held each of those decides (arrival to answer), in the same order. */
	held: number[];
	/** When the service refused a decide with a 429 (its arrival, same clock). */
	refusedAt: number[];
	/** From posting the items to the run's first request at the service (any /v1 call), ms. */
	firstRequestMs: number;
	/** From the run's first request at the service to its last decide's answer, ms. */
	makespanMs: number;
	/** Reads of a decision in the run (our node's, to check inputs; none when a kept copy served). */
	decisionReads: number;
}

interface Row {
	plan: string;
	latency: string;
	contender: string;
	runs: ThroughputFigures[];
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every API exchange the sandbox answered; cleared before each run. */
const exchanges: SandboxExchange[] = [];
/** The sandbox's onExchange for a bench that reuses runOnce. */
export const recordExchange = (exchange: SandboxExchange): void => {
	exchanges.push(exchange);
};

/** The decides among the exchanges recorded since the run began. */
const decideExchanges = () =>
	exchanges.filter(
		(exchange) => exchange.method === 'POST' && exchange.path.startsWith('/v1/decide/'),
	);

function serviceSide(): Pick<ThroughputFigures, 'sent429' | 'inFlightMean' | 'inFlightMax'> {
	const decides = decideExchanges();
	if (!decides.length) return { sent429: 0, inFlightMean: Number.NaN, inFlightMax: 0 };
	const held = decides.reduce((sum, exchange) => sum + (exchange.sentAt - exchange.receivedAt), 0);
	const span =
		Math.max(...decides.map((exchange) => exchange.sentAt)) -
		Math.min(...decides.map((exchange) => exchange.receivedAt));
	// Arrivals before departures at the same instant: a decide answered as the next arrives still counts once.
	const events = decides
		.flatMap((exchange) => [
			{ at: exchange.receivedAt, step: 1 },
			{ at: exchange.sentAt, step: -1 },
		])
		.sort((a, b) => a.at - b.at || a.step - b.step);
	let inFlight = 0;
	let inFlightMax = 0;
	for (const event of events) {
		inFlight += event.step;
		inFlightMax = Math.max(inFlightMax, inFlight);
	}
	return {
		sent429: decides.filter((exchange) => exchange.status === 429).length,
		inFlightMean: span > 0 ? held / span : Number.NaN,
		inFlightMax,
	};
}

/**
 * A failed item's error that is a 429: our node's error carries the service's code; the HTTP
 * Request node keeps the HTTP error it got (status 429), with n8n's own message for a 429.
 */
const RATE_LIMITED =
	/rate_limited|"(statusCode|status|httpCode)":"?429\b|Try spacing your requests out/;

/**
 * A failed item's error as the report shows it: only these fields. The HTTP Request node's error
 * is the whole HTTP error, whose request configuration holds the Authorization header: never shown.
 */
function shownError(error: unknown): string {
	if (typeof error !== 'object' || error === null) return String(error).slice(0, 200);
	const fields = error as Record<string, unknown>;
	const shown = Object.fromEntries(
		['message', 'code', 'status', 'httpCode'].flatMap((name) =>
			fields[name] === undefined ? [] : [[name, fields[name]]],
		),
	);
	return JSON.stringify(shown).slice(0, 200);
}

/** Posts a share's items and counts what came back: items with an error, and of those the rate-limited ones. */
async function post(
	share: Share,
	firstIndex: number,
): Promise<{ failed: number; rateLimited: number; sampleError?: string; error?: string }> {
	const items = Array.from({ length: share.items }, (_, index) => ({
		text: `Message ${firstIndex + index}: how do I export my data? Limited offer inside.`,
	}));
	const response = await request(`${share.n8n.instance.url}/webhook/${share.path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ items }),
		headersTimeout: 30 * 60_000,
		bodyTimeout: 30 * 60_000,
	});
	const text = await response.body.text();
	let answered: unknown;
	try {
		answered = JSON.parse(text);
	} catch {
		answered = undefined;
	}
	if (response.statusCode !== 200 || !Array.isArray(answered))
		return {
			failed: share.items,
			rateLimited: 0,
			error: `HTTP ${response.statusCode}: ${text.slice(0, 200)}`,
		};
	const failedItems = (answered as Array<Record<string, unknown>>).filter(
		(item) => item !== null && typeof item === 'object' && 'error' in item,
	);
	return {
		// An item missing from the answer failed too.
		failed: failedItems.length + Math.max(0, share.items - answered.length),
		rateLimited: failedItems.filter((item) => RATE_LIMITED.test(JSON.stringify(item.error))).length,
		sampleError: failedItems.length ? shownError(failedItems[0].error) : undefined,
	};
}

/** Before each run: the sandbox new (usage, windows), its window and latency set, nothing recorded. */
async function startRun(
	sandbox: RunningSandbox,
	latency: Latency,
	windowMs: number,
): Promise<void> {
	await controlSandbox(sandbox, '/reset', {});
	await controlSandbox(sandbox, '/clock', { rate_window_ms: windowMs });
	if (latency.rules.length)
		await controlSandbox(sandbox, '/faults', { seed: 1, rules: latency.rules });
	exchanges.length = 0;
}

export async function runOnce(
	sandbox: RunningSandbox,
	plan: Plan,
	latency: Latency,
	contender: Contender,
	shares: Share[],
	windowMs: number,
): Promise<ThroughputFigures> {
	if (contender === 'decision-service') {
		const lastUse = Math.max(
			...shares.map((share) => share.n8n.gateUsedAt.get(plan.key) ?? -Infinity),
		);
		const waitMs = lastUse + windowMs + 1_000 - performance.now();
		if (waitMs > 0) await sleep(waitMs);
	}
	await startRun(sandbox, latency, windowMs);
	const pids = shares.map((share) => share.n8n.instance.process!.pid!);
	const cpuBefore = pids.map((pid) => cpuMs(pid));
	for (const pid of pids) resetPeakRss(pid);
	const machineBefore = machineBusyMs();
	const selfBefore = process.cpuUsage();
	const started = performance.now();
	let firstIndex = 0;
	const answers = await Promise.all(
		shares.map((share) => {
			const posted = post(share, firstIndex);
			firstIndex += share.items;
			return posted;
		}),
	);
	const wallMs = performance.now() - started;
	const n8nCpu = pids.reduce((sum, pid, index) => sum + cpuMs(pid) - cpuBefore[index], 0);
	const selfUsage = process.cpuUsage(selfBefore);
	const selfCpu = (selfUsage.user + selfUsage.system) / 1000;
	const otherCores = Math.max(0, machineBusyMs() - machineBefore - n8nCpu - selfCpu) / wallMs;
	if (contender === 'decision-service')
		for (const share of shares) share.n8n.gateUsedAt.set(plan.key, performance.now());
	const items = shares.reduce((sum, share) => sum + share.items, 0);
	const cpu = shares.reduce(
		(sum, share, index) =>
			sum +
			Math.max(
				0,
				cpuMs(pids[index]) - cpuBefore[index] - share.n8n.idleCpuMsPerSecond * (wallMs / 1000),
			),
		0,
	);
	const ok = successTimes(sandbox, plan.key).length;
	// When the service counted each successful decide against the window: its arrival.
	const successes = exchanges
		.filter(
			(exchange) =>
				exchange.method === 'POST' &&
				exchange.path.startsWith('/v1/decide/') &&
				exchange.status === 200,
		)
		.sort((a, b) => a.receivedAt - b.receivedAt);
	const timestamps = successes.map((exchange) => exchange.receivedAt);
	const api = exchanges.filter((exchange) => exchange.path.startsWith('/v1/'));
	const firstRequest = Math.min(...api.map((exchange) => exchange.receivedAt));
	const lastAnswer = Math.max(
		...api
			.filter((exchange) => exchange.path.startsWith('/v1/decide/'))
			.map((exchange) => exchange.sentAt),
	);
	return {
		wallMs,
		items,
		ok,
		failed: items - ok,
		failedReported: answers.reduce((sum, answer) => sum + answer.failed, 0),
		rateLimitedToUser: answers.reduce((sum, answer) => sum + answer.rateLimited, 0),
		executionErrors: answers.flatMap((answer) => (answer.error ? [answer.error] : [])),
		sampleError: answers.find((answer) => answer.sampleError)?.sampleError,
		rateRatio: sustainedRateRatio(timestamps, plan.limit, windowMs),
		cpuMsPerItem: cpu / items,
		otherCores,
		peakRssMb: pids.map((pid) => peakRssMb(pid)),
		...serviceSide(),
		timestamps,
		held: successes.map((exchange) => exchange.sentAt - exchange.receivedAt),
		refusedAt: exchanges
			.filter(
				(exchange) =>
					exchange.method === 'POST' &&
					exchange.path.startsWith('/v1/decide/') &&
					exchange.status === 429,
			)
			.map((exchange) => exchange.receivedAt)
			.sort((a, b) => a - b),
		firstRequestMs: firstRequest - started,
		makespanMs: lastAnswer - firstRequest,
		decisionReads: api.filter(
			(exchange) => exchange.method === 'GET' && exchange.path.startsWith('/v1/decisions/'),
		).length,
	};
}

/**
 * The service alone: `items` decides sent at once by the least client there is (bench/burst-client.ts,
 * a child process), on the same sandbox, plan and latency as a contender's run. Its makespan on the
 * service's clock is the fastest any client finishes that burst on this machine: the sandbox serves
 * every request on one thread of a machine n8n shares, so a burst reaches it over some hundreds of
 * ms however fast it is sent, which the makespan floor (a service that takes every request at once)
 * does not count.
 */
export async function runServiceAlone(
	sandbox: RunningSandbox,
	plan: Plan,
	latency: Latency,
	items: number,
	windowMs: number,
): Promise<{ makespanMs: number; ok: number }> {
	await startRun(sandbox, latency, windowMs);
	const client = fork(
		join(projectRoot, 'bench', 'burst-client.ts'),
		[`${sandbox.baseUrl}/decide/content-labels`, plan.key, String(items)],
		{ execArgv: ['--import', 'tsx'], stdio: 'inherit' },
	);
	await new Promise<void>((resolve, reject) => {
		client.once('error', reject);
		client.once('exit', (code) =>
			code === 0 ? resolve() : reject(new Error(`burst client exited with ${code}`)),
		);
	});
	const decides = decideExchanges();
	if (!decides.length) throw new Error('the burst client reached no decide');
	return {
		makespanMs:
			Math.max(...decides.map((exchange) => exchange.sentAt)) -
			Math.min(...decides.map((exchange) => exchange.receivedAt)),
		ok: decides.filter((exchange) => exchange.status === 200).length,
	};
}

function table(rows: Row[], planHeader = 'Plan'): string {
	const header = `| ${planHeader} | Latency | Contender | Wall s | Items ok | Items failed | 429s reaching the user | 429s sent by the service | Achieved ÷ plan rate | Decides in flight at the service, mean / max | n8n CPU ms/item (idle subtracted) | Peak RSS MB (n8n) | Other load on the machine, cores |`;
	const lines = rows.map((row) =>
		[
			row.plan,
			row.latency,
			row.contender,
			figure(row.runs, (run) => run.wallMs / 1000),
			figure(row.runs, (run) => run.ok, 0),
			figure(row.runs, (run) => run.failed, 0),
			figure(row.runs, (run) => run.rateLimitedToUser, 0),
			figure(row.runs, (run) => run.sent429, 0),
			figure(row.runs, (run) => run.rateRatio, 3),
			`${figure(row.runs, (run) => run.inFlightMean)} / ${figure(row.runs, (run) => run.inFlightMax, 0)}`,
			figure(row.runs, (run) => run.cpuMsPerItem, 2),
			row.runs[0].peakRssMb.length > 1
				? row.runs[0].peakRssMb
						.map((_, index) => figure(row.runs, (run) => run.peakRssMb[index], 0))
						.join(' + ')
				: figure(row.runs, (run) => run.peakRssMb[0], 0),
			figure(row.runs, (run) => run.otherCores, 2),
		].join(' | '),
	);
	return [header, `|${'---|'.repeat(13)}`, ...lines.map((line) => `| ${line} |`)].join('\n');
}

/** An n8n user folder with the bench's credentials and workflows, every workflow published. */
export function prepareBenchN8n(
	folder: string,
	tarball: string,
	sandbox: RunningSandbox,
	workflowsDir: string,
	workflowIds: string[],
	credentials: Array<{ id: string; key: string }>,
	port: number,
): N8nInstance {
	const prepared = prepareN8n({
		userFolder: folder,
		tarball,
		sandboxBaseUrl: sandbox.baseUrl,
		apiKey: DEMO_KEYS.pro,
		workflowsDir,
		port,
	});
	const credentialsFile = join(folder, 'bench-credentials.json');
	writeFileSync(
		credentialsFile,
		JSON.stringify(
			credentials.flatMap((credential) => [
				{
					id: credential.id,
					name: credential.id,
					type: 'decisionServiceApi',
					data: { apiKey: credential.key, baseUrl: sandbox.baseUrl },
				},
				{
					id: bearerCredentialIdOf(credential.id),
					name: bearerCredentialIdOf(credential.id),
					type: 'httpBearerAuth',
					data: { token: credential.key },
				},
			]),
		),
	);
	prepared.cli(['import:credentials', `--input=${credentialsFile}`]);
	rmSync(credentialsFile);
	// Webhooks listen only on published (active) workflows.
	for (const id of workflowIds) prepared.cli(['publish:workflow', `--id=${id}`]);
	return prepared;
}

export async function startBenchN8n(prepared: N8nInstance, paths: string[]): Promise<BenchN8n> {
	// BENCH_N8N_CPU_PROF=DIR: n8n writes a CPU profile there when it stops (to see where a run's time goes).
	const profileDir = process.env.BENCH_N8N_CPU_PROF;
	const instance = await startN8n(prepared, {
		nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
	});
	console.log(`n8n ${N8N_VERSION} at ${instance.url} (pid ${instance.process?.pid})`);
	await waitForWebhooks(instance, paths);
	return { instance, idleCpuMsPerSecond: 0, gateUsedAt: new Map() };
}

export const NO_LATENCY: Latency = { name: 'none', rules: [] };

/**
 * What the makespan and throughput benches set up alike: the package packed, a credential per
 * plan, one workflow per plan and contender (our node's on Scale also in a folder of its own, for a
 * second n8n process on the same key), and the sandbox and window every run uses.
 */
export interface BenchSetUp {
	sandbox: RunningSandbox;
	windowMs: number;
	/** The temporary folder everything lives in. */
	work: string;
	tarball: string;
	credentials: Array<{ id: string; key: string }>;
	workflowsDir: string;
	twoProcessDir: string;
	/** Every plan and contender's workflow id and webhook path, in the same order. */
	workflowIds: string[];
	paths: string[];
	idOf: (plan: Plan, contender: Contender) => string;
	pathOf: (plan: Plan, contender: Contender) => string;
}

export function setUpBench(options: {
	sandbox: RunningSandbox;
	windowMs: number;
	work: string;
	/** The start of every credential id, workflow id and webhook path: 'makespan', 'throughput'. */
	prefix: string;
	plans: Plan[];
	/** The HTTP Request node takes the key from a Bearer Auth credential; otherwise typed into a header. */
	bearerCredentials: boolean;
}): BenchSetUp {
	const { sandbox, windowMs, work, prefix, plans } = options;
	const tarball = packTarball(join(work, 'pack'));
	const credentials = plans.map((plan) => ({ id: `${prefix}Cred${plan.slug}`, key: plan.key }));
	const workflowsDir = join(work, 'workflows');
	const twoProcessDir = join(work, 'workflows-two-processes');
	mkdirSync(workflowsDir);
	mkdirSync(twoProcessDir);
	const idOf = (plan: Plan, contender: Contender) =>
		`${prefix}${plan.slug}${contender.replace(/-/g, '')}`;
	const pathOf = (plan: Plan, contender: Contender) => `${prefix}-${plan.slug}-${contender}`;
	const workflowIds: string[] = [];
	const paths: string[] = [];
	for (const [index, plan] of plans.entries()) {
		for (const contender of CONTENDERS) {
			const id = idOf(plan, contender);
			workflowIds.push(id);
			paths.push(pathOf(plan, contender));
			const workflow = benchWorkflow({
				id,
				contender,
				webhookPath: pathOf(plan, contender),
				credentialId: credentials[index].id,
				baseUrl: sandbox.baseUrl,
				apiKey: plan.key,
				bearerCredentialId: options.bearerCredentials
					? bearerCredentialIdOf(credentials[index].id)
					: undefined,
				perItemOutcome: true,
				batch:
					contender === 'http-batched' ? { size: plan.limit, intervalMs: windowMs } : undefined,
			});
			writeFileSync(join(workflowsDir, `${id}.json`), JSON.stringify(workflow));
			if (plan === SCALE && contender === 'decision-service')
				writeFileSync(join(twoProcessDir, `${id}.json`), JSON.stringify(workflow));
		}
	}
	return {
		sandbox,
		windowMs,
		work,
		tarball,
		credentials,
		workflowsDir,
		twoProcessDir,
		workflowIds,
		paths,
		idOf,
		pathOf,
	};
}

/** The main n8n process: every workflow of the set-up, and `extra` ones already in its folder. */
export async function startMainN8n(
	setUp: BenchSetUp,
	extra: Array<{ id: string; path: string }> = [],
): Promise<BenchN8n> {
	return startBenchN8n(
		prepareBenchN8n(
			join(setUp.work, 'user'),
			setUp.tarball,
			setUp.sandbox,
			setUp.workflowsDir,
			[...setUp.workflowIds, ...extra.map((workflow) => workflow.id)],
			setUp.credentials,
			await freePort(),
		),
		[...setUp.paths, ...extra.map((workflow) => workflow.path)],
	);
}

/**
 * A second n8n process on Scale's key, as a second queue-mode worker (each its own rate gate): our
 * node's Scale workflow alone. Added to `started` as soon as it runs, then warmed up with `items`.
 */
export async function startSecondN8n(
	setUp: BenchSetUp,
	started: BenchN8n[],
	items: number,
): Promise<BenchN8n> {
	const second = await startBenchN8n(
		prepareBenchN8n(
			join(setUp.work, 'user-2'),
			setUp.tarball,
			setUp.sandbox,
			setUp.twoProcessDir,
			[setUp.idOf(SCALE, 'decision-service')],
			setUp.credentials,
			await freePort(),
		),
		[setUp.pathOf(SCALE, 'decision-service')],
	);
	started.push(second);
	await runOnce(
		setUp.sandbox,
		SCALE,
		NO_LATENCY,
		'decision-service',
		[{ n8n: second, path: setUp.pathOf(SCALE, 'decision-service'), items }],
		setUp.windowMs,
	);
	return second;
}

/** Warm-up (not measured): each plan and contender once, `items` items; the first executions load code and fill caches. */
export async function warmUp(
	setUp: BenchSetUp,
	n8n: BenchN8n,
	plans: Plan[],
	items: number,
): Promise<void> {
	for (const plan of plans)
		for (const contender of CONTENDERS)
			await runOnce(
				setUp.sandbox,
				plan,
				NO_LATENCY,
				contender,
				[{ n8n, path: setUp.pathOf(plan, contender), items }],
				setUp.windowMs,
			);
}

const logRun = (row: Row, figures: ThroughputFigures, round: number) =>
	console.log(
		`${row.plan} ${row.latency} ${row.contender} round ${round + 1}: ${(figures.wallMs / 1000).toFixed(1)} s, ok ${figures.ok}/${figures.items}, failed ${figures.failed} (reported ${figures.failedReported}, rate_limited ${figures.rateLimitedToUser}), 429s sent ${figures.sent429}, rate ratio ${figures.rateRatio?.toFixed(3) ?? 'n/a'}, in flight ${figures.inFlightMean.toFixed(1)}/${figures.inFlightMax}, ${figures.cpuMsPerItem.toFixed(2)} CPU ms/item, peak RSS ${figures.peakRssMb.map((mb) => mb.toFixed(0)).join('+')} MB, other load ${figures.otherCores.toFixed(2)} cores${figures.executionErrors.length ? `; execution errors: ${figures.executionErrors.join(' | ')}` : ''}${figures.sampleError ? `; first error: ${figures.sampleError}` : ''}`,
	);

/** Requests per second the plan allows in the scaled window. */
const limitPerSecond = (plan: Plan, windowMs: number) => plan.limit / (windowMs / 1000);

/**
 * Latency by latency, plan by plan, each contender `rounds` times on `items` of the plan: a row per
 * contender, and the first round's successes for its plot.
 */
async function runPlans(
	setUp: BenchSetUp,
	main: BenchN8n,
	latencies: Latency[],
	itemsOf: (plan: Plan) => number,
	rounds: number,
): Promise<{ rows: Row[]; series: RateSeries[] }> {
	const rows: Row[] = [];
	const series: RateSeries[] = [];
	// Our node's next run with a key comes after the other plans' runs, so its rate gate's last
	// window has ended and no run waits for it.
	for (const latency of latencies) {
		for (const plan of PLANS) {
			for (const contender of CONTENDERS) {
				const row: Row = {
					plan: plan.name,
					latency: latency.name,
					contender: contenderLabel(contender),
					runs: [],
				};
				for (let round = 0; round < rounds; round++) {
					const figures = await runOnce(
						setUp.sandbox,
						plan,
						latency,
						contender,
						[{ n8n: main, path: setUp.pathOf(plan, contender), items: itemsOf(plan) }],
						setUp.windowMs,
					);
					row.runs.push(figures);
					logRun(row, figures, round);
				}
				rows.push(row);
				series.push({
					scenario: `Throughput ${plan.name}, ${latency.name}`,
					contender: row.contender,
					limitPerSecond: limitPerSecond(plan, setUp.windowMs),
					timestamps: row.runs[0].timestamps,
				});
			}
		}
	}
	return { rows, series };
}

/** One run of n8n processes on Scale's key at 800 ms, each posting its share of `items` at once. */
export function runTwoProcessesOnce(
	setUp: BenchSetUp,
	processes: BenchN8n[],
	items: number,
): Promise<ThroughputFigures> {
	return runOnce(
		setUp.sandbox,
		SCALE,
		TWO_PROCESS_LATENCY,
		'decision-service',
		processes.map((n8n) => ({
			n8n,
			path: setUp.pathOf(SCALE, 'decision-service'),
			items: items / processes.length,
		})),
		setUp.windowMs,
	);
}

/** Two n8n processes on Scale's key, each posting half of `items` at once, `rounds` times. */
async function runTwoProcesses(
	setUp: BenchSetUp,
	processes: BenchN8n[],
	items: number,
	rounds: number,
): Promise<Row> {
	const row: Row = {
		plan: SCALE.name,
		latency: TWO_PROCESS_LATENCY.name,
		contender: `${contenderLabel('decision-service')}, ${items / 2} items each`,
		runs: [],
	};
	for (let round = 0; round < rounds; round++) {
		const figures = await runTwoProcessesOnce(setUp, processes, items);
		row.runs.push(figures);
		logRun(row, figures, round);
	}
	return row;
}

/** Prints the tables and writes throughput.json, throughput-table.md and the plots into `dir`. */
async function writeThroughputReport(
	dir: string,
	report: { rows: Row[]; twoProcesses: Row; series: RateSeries[] },
	run: { windowMs: number; rounds: number; minutes: number },
): Promise<void> {
	const tables = `${table(report.rows)}\n\nTwo n8n processes on one key:\n\n${table([report.twoProcesses], 'Plan (one key)')}`;
	console.log(`\n${tables}\n\nTook ${run.minutes.toFixed(1)} minutes.\n`);
	const plots = await renderRatePlots(report.series, dir);
	writeFileSync(
		join(dir, 'throughput.json'),
		`${JSON.stringify(
			{
				date: new Date().toISOString(),
				n8n: N8N_VERSION,
				windowMs: run.windowMs,
				rounds: run.rounds,
				minutes: run.minutes,
				machine: machine(),
				rows: report.rows,
				twoProcesses: report.twoProcesses,
			},
			(key, value) => (key === 'timestamps' || key === 'held' ? undefined : value),
			2,
		)}\n`,
	);
	writeFileSync(join(dir, 'throughput-table.md'), `${tables}\n\nPlots: ${plots.join(', ')}\n`);
	console.log(`Wrote ${dir}: throughput.json, throughput-table.md, ${plots.join(', ')}`);
}

export async function runThroughput(options: ThroughputOptions): Promise<void> {
	const { quick, windowMs, rounds } = options;
	const begun = performance.now();
	const latencies = quick ? [LATENCIES[0], LATENCIES[2]] : LATENCIES;
	// Three windows of the plan; --quick: at most 240, a smoke run.
	const itemsOf = (plan: Plan) => (quick ? Math.min(2 * plan.limit, 240) : 3 * plan.limit);
	const work = mkdtempSync(join(tmpdir(), 'decision-service-throughput-'));
	const sandbox = await startSandbox({
		port: 0,
		onExchange: recordExchange,
	});
	const started: BenchN8n[] = [];
	try {
		console.log(
			`Sandbox ${sandbox.baseUrl}; rate window ${windowMs} ms (the plan's minute scaled ${(60_000 / windowMs).toFixed(1)}×); ${rounds} round(s).`,
		);
		const setUp = setUpBench({
			sandbox,
			windowMs,
			work,
			prefix: 'throughput',
			plans: PLANS,
			bearerCredentials: false,
		});
		const main = await startMainN8n(setUp);
		started.push(main);
		await warmUp(setUp, main, PLANS, 20);
		main.idleCpuMsPerSecond = await measureIdleCpu(main.instance.process!.pid!);
		console.log(`n8n idle CPU: ${main.idleCpuMsPerSecond.toFixed(1)} ms per second (subtracted)`);

		const { rows, series } = await runPlans(setUp, main, latencies, itemsOf, rounds);

		// Two n8n processes on one key, as two queue-mode workers: each its own rate gate.
		const second = await startSecondN8n(setUp, started, 20);
		second.idleCpuMsPerSecond = await measureIdleCpu(second.instance.process!.pid!);
		const twoProcesses = await runTwoProcesses(setUp, [main, second], itemsOf(SCALE), rounds);
		series.push({
			scenario: `Two n8n processes, ${SCALE.name}, ${TWO_PROCESS_LATENCY.name}`,
			contender: 'decision-service (default settings, both processes)',
			limitPerSecond: limitPerSecond(SCALE, windowMs),
			timestamps: twoProcesses.runs[0].timestamps,
		});

		const minutes = (performance.now() - begun) / 60_000;
		await writeThroughputReport(
			quick
				? mkdtempSync(join(tmpdir(), 'decision-service-throughput-quick-'))
				: join(projectRoot, 'bench', 'results'),
			{ rows, twoProcesses, series },
			{ windowMs, rounds, minutes },
		);
	} finally {
		for (const n8n of started) await n8n.instance.stop();
		await sandbox.close();
		rmSync(work, { recursive: true, force: true });
	}
}
