/**
 * Queue mode, for real: Redis and PostgreSQL, an n8n main that takes the webhooks, two
 * `n8n worker` processes that run the executions, each with its own copy of the package (and so
 * its own rate gate) in its own nodes folder. Several executions of the ticket-routing example,
 * triggered through its webhook at once, spend one Free key whose rate window the sandbox shrinks
 * to a second, so the workers compete for the same budget: every item must still reach its team's
 * output, none fail, and the service must charge exactly one decide per item.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outputNamesOf, packTarball } from '../../harness/n8n-env';
import {
	listExecutions,
	ownerSession,
	readExample,
	readExecution,
	withWebhookTrigger,
	writeWorkflows,
	type Execution,
	type ExecutionSummary,
} from '../../harness/n8n-executions';
import { startQueueN8n, type QueueN8n } from '../../harness/n8n-queue';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';

jest.setTimeout(600_000);

const WORKERS = 2;
const WORKER_CONCURRENCY = 2;
const EXECUTIONS = 6;
const ITEMS_PER_EXECUTION = 10;
const ITEMS = EXECUTIONS * ITEMS_PER_EXECUTION;
/** The Free plan allows 30 decides a window: 60 items need at least two windows. */
const KEY = DEMO_KEYS.free;
const RATE_WINDOW_MS = 1000;
const WORKFLOW_ID = 'dsQueueTickets1';
const WEBHOOK_PATH = 'decision-service-queue-tickets';
const ROUTE_NODE = 'Route ticket';

/** Tickets whose team the sandbox's deterministic engine knows (those of the example). */
const TICKETS = [
	{
		team: 'billing',
		subject: 'Charged twice',
		body: 'I was charged twice on my invoice for March, please refund the duplicate payment.',
	},
	{
		team: 'technical',
		subject: 'App crashes on login',
		body: 'Since the last update the app crashes with an error every time I log in.',
	},
	{
		team: 'sales',
		subject: 'Pricing for 200 seats',
		body: 'We would like a quote and a demo for 200 seats, can we talk to sales?',
	},
	{
		team: 'account',
		subject: 'Change my email',
		body: 'Please change the email address of my account and reset my password.',
	},
];

/**
 * The ticket-routing example with its manual trigger and sample data replaced by a webhook:
 * the same Route ticket node and downstream nodes.
 */
const queueWorkflow = () =>
	withWebhookTrigger(readExample('ticket-routing.json'), {
		id: WORKFLOW_ID,
		name: 'Decision Service: ticket routing through a webhook (queue mode test)',
		path: WEBHOOK_PATH,
	});

let sb: TestSandbox;
let work: string;
let queue: QueueN8n;
let routeParameters: Record<string, unknown>;
const decideStatuses: number[] = [];
/** When the service received each read of the decision (to check inputs before spending). */
const decisionReads: number[] = [];
const executions: Execution[] = [];
const webhookStatuses: number[] = [];

beforeAll(async () => {
	sb = await startTestSandbox({
		onExchange: (exchange) => {
			if (exchange.method === 'POST' && exchange.path.includes('/decide/'))
				decideStatuses.push(exchange.status);
			if (exchange.method === 'GET' && exchange.path === '/v1/decisions/ticket-routing')
				decisionReads.push(exchange.receivedAt);
		},
	});
	await sb.control('POST', '/clock', { rate_window_ms: RATE_WINDOW_MS });
	work = mkdtempSync(join(tmpdir(), 'decision-service-queue-'));
	const workflow = queueWorkflow();
	routeParameters = workflow.nodes.find((node) => node.name === ROUTE_NODE)!.parameters;
	queue = await startQueueN8n({
		workDir: work,
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflowsDir: writeWorkflows(join(work, 'workflows'), [workflow]),
		activate: [WORKFLOW_ID],
		workers: WORKERS,
		concurrency: WORKER_CONCURRENCY,
	});

	// Every execution at once, each with its own tickets (e-mails differ; texts pick the team).
	const responses = await Promise.all(
		Array.from({ length: EXECUTIONS }, (_, execution) =>
			fetch(`${queue.main.url}/webhook/${WEBHOOK_PATH}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					tickets: Array.from({ length: ITEMS_PER_EXECUTION }, (_, index) => {
						const { team, ...ticket } = TICKETS[index % TICKETS.length];
						void team;
						return { ...ticket, email: `customer-${execution}-${index}@example.com`, plan: 'pro' };
					}),
				}),
			}),
		),
	);
	webhookStatuses.push(...responses.map((response) => response.status));

	if (webhookStatuses.some((status) => status !== 200)) return;
	const session = await ownerSession(queue.main.url);
	const deadline = Date.now() + 180_000;
	let done: ExecutionSummary[] = [];
	while (Date.now() < deadline) {
		const listed = await listExecutions(session, WORKFLOW_ID);
		done = listed.filter((each) => !['new', 'running', 'waiting'].includes(each.status));
		if (done.length >= EXECUTIONS) break;
		await new Promise((resolveWait) => setTimeout(resolveWait, 500));
	}
	for (const summary of done) executions.push(await readExecution(session, summary.id));
});

afterAll(async () => {
	await queue?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

describe(`queue mode: main, Redis, PostgreSQL and ${WORKERS} workers`, () => {
	it('took every webhook and ran every execution on a worker, each worker some', () => {
		expect(webhookStatuses).toEqual(Array(EXECUTIONS).fill(200));
		expect(executions).toHaveLength(EXECUTIONS);
		const ran = queue.workers.map((worker) => worker.executions());
		expect(ran.flat().sort()).toEqual(executions.map((execution) => execution.id).sort());
		for (const ids of ran) expect(ids.length).toBeGreaterThanOrEqual(1);
	});

	it("routed every item to its team's output, none uncertain, unrouted or failed", () => {
		const names = outputNamesOf(routeParameters);
		expect(executions).toHaveLength(EXECUTIONS);
		for (const execution of executions) {
			expect({ id: execution.id, status: execution.status }).toEqual({
				id: execution.id,
				status: 'success',
			});
			const byName = Object.fromEntries(
				names.map((name, index) => [name, execution.outputs[ROUTE_NODE][index] ?? []]),
			);
			for (const { team, subject } of TICKETS) {
				const expected = Array.from({ length: ITEMS_PER_EXECUTION }, (_, index) => index).filter(
					(index) => TICKETS[index % TICKETS.length].team === team,
				).length;
				expect({ team, subjects: byName[team].map((item) => item.json.subject) }).toEqual({
					team,
					subjects: Array(expected).fill(subject),
				});
			}
			for (const name of ['Uncertain', 'Pending Review', 'Other'])
				expect({ name, items: byName[name] }).toEqual({ name, items: [] });
			// Anything past the named outputs is the error output.
			expect(execution.outputs[ROUTE_NODE].slice(names.length).flat()).toEqual([]);
		}
	});

	it('charged exactly one decide per item, with the workers sharing one rate window', async () => {
		const usage = await sb.usage(KEY);
		expect(usage.used).toBe(ITEMS);
		expect(decideStatuses.filter((status) => status === 200)).toHaveLength(ITEMS);
		// Every other answer was a rate limit, waited out and sent again; never an error.
		expect(decideStatuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
		process.stdout.write(
			`queue mode: ${ITEMS} items in ${EXECUTIONS} executions on ${WORKERS} workers; ` +
				`${decideStatuses.filter((status) => status === 429).length} rate-limit answers waited out\n`,
		);
	});

	it('read the decision at most once a minute per worker, not once per execution', () => {
		expect(decisionReads.length).toBeGreaterThanOrEqual(1);
		// Each worker keeps the decision a minute (src/client/recent-decisions.ts), so any stretch
		// shorter than a minute holds at most one read per worker, however long the run took.
		const reads = [...decisionReads].sort((a, b) => a - b);
		for (const [index, at] of reads.entries()) {
			const within = reads.slice(index).filter((other) => other - at < 59_000);
			expect(within.length).toBeLessThanOrEqual(WORKERS);
		}
	});

	it('never put the API key in a stored execution', () => {
		expect(executions).toHaveLength(EXECUTIONS);
		for (const execution of executions) expect(execution.raw).not.toContain(KEY);
	});
});
