/**
 * End to end in real n8n (pinned version, installed once by `npm run n8n:install`, which
 * `npm test` runs first): the package is installed beside n8n from its packed tarball only, the
 * example workflows run through `n8n execute`, and a running n8n lists the node and its AI-tool
 * variant.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	NODE_TYPE,
	PACKAGE_NAME,
	executeWorkflow,
	exampleWorkflows,
	freePort,
	outputNamesOf,
	packTarball,
	prepareN8n,
	signIn,
	startN8n,
	type N8nInstance,
	type WorkflowRun,
} from '../../harness/n8n-env';
import { startFaultProxy, type FaultProxy } from '../../harness/fault-proxy';
import { n8nVersion } from '../../harness/n8n-install';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';

jest.setTimeout(600_000);

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance;
const runs = new Map<string, WorkflowRun>();

type Item = { json: Record<string, unknown>; pairedItem?: unknown };

function byOutput(run: WorkflowRun, workflowId: string, nodeName: string): Record<string, Item[]> {
	const workflow = exampleWorkflows().find((each) => each.id === workflowId)!;
	const node = workflow.nodes.find((each) => each.name === nodeName)!;
	const names = outputNamesOf(node.parameters);
	const outputs = run.outputs[nodeName] ?? [];
	const result: Record<string, Item[]> = {};
	names.forEach((name, index) => (result[name] = outputs[index] ?? []));
	if (outputs.length > names.length) result['error output'] = outputs[names.length];
	return result;
}

const field = (items: Item[], name: string) => items.map((item) => item.json[name]);
const decision = (item: Item) => item.json.decision as Record<string, unknown>;

beforeAll(async () => {
	sb = await startTestSandbox();
	work = mkdtempSync(join(tmpdir(), 'decision-service-e2e-'));
	const tarball = packTarball(join(work, 'pack'));
	n8n = prepareN8n({
		userFolder: join(work, 'user'),
		tarball,
		sandboxBaseUrl: sb.baseUrl,
		apiKey: DEMO_KEYS.pro,
		workflowsDir: join(__dirname, '..', '..', 'examples'),
		port: await freePort(),
	});
	// The evaluation example (480 decides) has its own test, on a plan whose window takes them all;
	// the review example waits for a person, so it runs in a started n8n (test/e2e/review.test.ts);
	// the quality examples read and write n8n Data Tables, a module `n8n execute` does not start
	// ("the module is disabled"), so they run in a started n8n (test/e2e/quality-watch.test.ts;
	// the labeled CSV's form: test/e2e/quality-load.test.ts; the audit example's queue and its
	// drain: test/e2e/audit-sample.test.ts); the store of reviews is a sub-workflow the review and
	// audit examples call, with a Data Table too (test/e2e/review-store-faults.test.ts).
	const ownTests = [
		'dsExReviewStore',
		'dsExTicketEval1',
		'dsExTicketReview',
		'dsExTicketAudit',
		'dsExQualityWatch',
		'dsExQualityCompare',
		'dsExQualityLoad',
	];
	for (const workflow of exampleWorkflows().filter((each) => !ownTests.includes(each.id)))
		runs.set(workflow.id, await executeWorkflow(n8n, workflow.id));
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

describe(`installed from the packed tarball only, in n8n ${n8nVersion()}`, () => {
	it('runs the n8n version this jest project asks for', () => {
		expect(n8n.version).toBe(n8nVersion());
		expect(n8n.cli(['--version']).trim().split('\n').pop()).toBe(n8nVersion());
	});

	it('has nothing but the package beside n8n, with no runtime dependencies', () => {
		const installed = readdirSync(join(n8n.userFolder, '.n8n', 'nodes', 'node_modules')).filter(
			(name) => !name.startsWith('.'),
		);
		expect(installed).toEqual([PACKAGE_NAME]);
	});

	it('runs every example without a workflow error, and no run holds the API key', () => {
		expect(runs.size).toBe(3);
		for (const [id, run] of runs) {
			expect({ id, error: run.error }).toEqual({ id, error: undefined });
			for (const key of Object.values(DEMO_KEYS))
				expect(JSON.stringify(run.raw)).not.toContain(key);
		}
	});
});

describe('ticket routing (route)', () => {
	it('routes each ticket to its team, the vague one to Pending Review, the invalid one to the error output', () => {
		const run = runs.get('dsExTicketRoute1')!;
		const outputs = byOutput(run, 'dsExTicketRoute1', 'Route ticket');
		expect(field(outputs.billing, 'subject')).toEqual(['Charged twice']);
		expect(field(outputs.technical, 'subject')).toEqual(['App crashes on login']);
		expect(field(outputs.sales, 'subject')).toEqual(['Pricing for 200 seats']);
		expect(field(outputs.account, 'subject')).toEqual(['Change my email']);
		expect(outputs.Uncertain).toEqual([]);
		expect(field(outputs['Pending Review'], 'subject')).toEqual(['hello']);
		expect(decision(outputs['Pending Review'][0]).review_url).toMatch(
			/^http:\/\/127\.0\.0\.1:\d+\/app\/reviews\//,
		);
		expect(outputs['error output']).toHaveLength(1);
		expect(outputs['error output'][0].json.error).toMatchObject({
			message: expect.stringMatching(/Field "subject" is required/),
			may_have_been_charged: false,
		});
		// n8n merged the input item's own fields back beside the error object.
		expect(outputs['error output'][0].json.email).toBe('max@example.com');
		expect(outputs['error output'][0].pairedItem).toEqual({ item: 5 });
		expect(outputs.billing[0].pairedItem).toEqual({ item: 0 });
		// Downstream nodes received the items of their output.
		expect(run.outputs['Billing team'][0]).toHaveLength(1);
		expect(run.outputs['Invalid tickets'][0]).toHaveLength(1);
	});

	it('stored only the pseudonymised e-mail in the sandbox', async () => {
		const outputs = byOutput(runs.get('dsExTicketRoute1')!, 'dsExTicketRoute1', 'Route ticket');
		const runId = String(decision(outputs.billing[0]).run_id);
		const stored = await sb.control<Record<string, unknown>>(
			'GET',
			`/runs/${runId}?key=${DEMO_KEYS.pro}`,
		);
		expect(JSON.stringify(stored)).not.toContain('ana@example.com');
		// The item carries the compact answer (Simplify's default); the run says what was replaced.
		expect(stored.pii_redacted).toBeGreaterThanOrEqual(1);
	});
});

describe('lead scoring (score)', () => {
	it('sends each lead to the output of its level, lowest first, and low confidence to Uncertain', () => {
		const outputs = byOutput(runs.get('dsExLeadScoring1')!, 'dsExLeadScoring1', 'Score lead');
		for (const level of ['cold', 'warm', 'hot', 'sales-ready']) {
			for (const item of outputs[level])
				expect(decision(item)).toMatchObject({ level, status: 'ok' });
		}
		expect(field(outputs.cold, 'company')).toEqual(['Student project']);
		expect(field(outputs['sales-ready'], 'company')).toEqual(['Acme Corp']);
		expect(outputs.Uncertain.length).toBeGreaterThanOrEqual(1);
		for (const item of outputs.Uncertain) expect(decision(item).status).toBe('uncertain');
		const total = Object.values(outputs).reduce((sum, items) => sum + items.length, 0);
		expect(total).toBe(5);
	});
});

describe('content labels (classify)', () => {
	it('sends a post to every retained label, No Label when none, uncertain ones to review with feedback sent', async () => {
		const run = runs.get('dsExContentLabel1')!;
		const outputs = byOutput(run, 'dsExContentLabel1', 'Label post');
		const spamText =
			'Limited offer!!! Buy cheap now, discount coupon, click here to win a free prize';
		expect(field(outputs.spam, 'text')).toContain(spamText);
		expect(field(outputs.promotion, 'text')).toContain(spamText);
		expect(field(outputs['No Label'], 'text')).toEqual([
			'The meeting is moved to Thursday at the usual room.',
		]);
		expect(outputs.Uncertain.length).toBeGreaterThanOrEqual(1);
		const feedback = run.outputs["Send the reviewer's label as feedback"][0];
		expect(feedback).toHaveLength(outputs.Uncertain.length);
		for (const [index, item] of feedback.entries()) {
			const uncertain = outputs.Uncertain[index];
			expect(item.json).toEqual({
				run_id: decision(uncertain).run_id,
				feedback: uncertain.json.expected_label,
				note: 'corrected in review',
			});
			const stored = await sb.control<Record<string, unknown>>(
				'GET',
				`/runs/${String(item.json.run_id)}?key=${DEMO_KEYS.pro}`,
			);
			expect(JSON.stringify(stored.feedback)).toContain(String(uncertain.json.expected_label));
		}
	});
});

describe('a running n8n', () => {
	let proxy: FaultProxy;
	// One sign-in: n8n limits how often /rest/login may be called.
	let cookie: string;

	beforeAll(async () => {
		n8n = await startN8n(n8n);
		cookie = await signIn(n8n.url);
		proxy = await startFaultProxy({ target: sb.sandbox.origin });
		for (const status of [301, 307] as const)
			proxy.script([{ fault: { kind: 'redirect', status, to: 'canary' } }], `redirect${status}`);
	});

	afterAll(async () => {
		await proxy?.close();
	});

	/** A port on this machine where nothing listens (bound, then released). */
	let closedPort = 0;
	beforeAll(async () => {
		closedPort = await new Promise<number>((resolve) => {
			const probe = createServer().listen(0, '127.0.0.1', () => {
				const { port } = probe.address() as AddressInfo;
				probe.close(() => resolve(port));
			});
		});
	});

	const WRONG_KEY = 'dsk_test_not_a_key';

	/** The editor's "Test" on the credential: n8n's POST /rest/credentials/test, as the owner. */
	async function testCredential(data: { apiKey: string; baseUrl: string }) {
		const response = await fetch(`${n8n.url}/rest/credentials/test`, {
			method: 'POST',
			headers: {
				cookie,
				'content-type': 'application/json',
				'browser-id': 'decision-service-setup',
			},
			body: JSON.stringify({
				credentials: {
					id: CREDENTIAL_ID,
					name: CREDENTIAL_NAME,
					type: 'decisionServiceApi',
					data,
				},
			}),
		});
		const text = await response.text();
		expect(response.status).toBe(200);
		return { text, ...(JSON.parse(text) as { data: { status: string; message: string } }).data };
	}

	// n8n 1.x reads no `rules` of a credential's test request: it says what it says by default.
	const n8n1 = (message: RegExp, byDefault: RegExp) =>
		n8nVersion().startsWith('1.') ? byDefault : message;
	// Each row: the credential's fields, then what the Test says.
	const rows: Array<[string, () => { apiKey: string; baseUrl: string }, 'OK' | 'Error', RegExp]> = [
		[
			'a good key and base URL',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: sb.baseUrl }),
			'OK',
			/^Connection successful!$/,
		],
		[
			'the same pasted with spaces, a newline and a trailing slash',
			() => ({ apiKey: ` ${DEMO_KEYS.free}\n`, baseUrl: ` ${sb.baseUrl}/ ` }),
			'OK',
			/^Connection successful!$/,
		],
		[
			'plain http to a host that is not this machine',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: 'http://decision-service.example.com/v1' }),
			'Error',
			/^Base URL must use https:\/\/ \(the API key travels with every request\); plain http is only for this machine/,
		],
		[
			'a base URL without the version',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: sb.sandbox.origin }),
			'Error',
			/^Base URL must end with the API version \/v1: http:\/\/127\.0\.0\.1:\d+ is not the Decision Service API's address\. It looks like https:\/\/api\.example\.com\/v1 /,
		],
		[
			'a base URL with another version',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: `${sb.sandbox.origin}/v2` }),
			'Error',
			/^Base URL must end with the API version \/v1/,
		],
		[
			'not a URL',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: 'api.example.com/v1' }),
			'Error',
			/^Base URL "api\.example\.com\/v1" is not a URL; it looks like https:\/\/api\.example\.com\/v1\.$/,
		],
		[
			'a base URL where no API answers',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: `${sb.sandbox.origin}/elsewhere/v1` }),
			'Error',
			n8n1(
				/^No Decision Service API answers at this Base URL \(404\)/,
				/^The resource you are requesting could not be found$/,
			),
		],
		[
			// Here n8n's own editor: a web page, 200, at every path.
			'a base URL where a web page answers 200',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: `${n8n.url}/v1` }),
			'Error',
			/^Something answered at this Base URL, but not the Decision Service API/,
		],
		[
			// n8n 2.x says a refused connection by its code alone (credentials-tester.service.js
			// 378-382); the Base URL's hint says what it means.
			'a base URL where nothing listens',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: `http://127.0.0.1:${closedPort}/v1` }),
			'Error',
			n8n1(/^ECONNREFUSED$/, /^The service refused the connection - perhaps it is offline$/),
		],
		[
			'a wrong key',
			() => ({ apiKey: WRONG_KEY, baseUrl: sb.baseUrl }),
			'Error',
			n8n1(
				/^The Decision Service refused the API key \(401\): check that it is complete, not revoked/,
				/^Authorization failed - please check your credentials$/,
			),
		],
		[
			'a revoked key',
			() => ({ apiKey: DEMO_KEYS.revoked, baseUrl: sb.baseUrl }),
			'Error',
			n8n1(
				/^The Decision Service refused the API key \(401\)/,
				/^Authorization failed - please check your credentials$/,
			),
		],
		[
			'a base URL that redirects to another origin (301)',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: proxy.baseUrlFor('redirect301') }),
			'Error',
			n8n1(
				/^The Base URL answered with a redirect \(301\)\. It is not followed, so the key is not sent elsewhere/,
				/^Request failed with status code 301$/,
			),
		],
		[
			'a base URL that redirects to another origin (307)',
			() => ({ apiKey: DEMO_KEYS.free, baseUrl: proxy.baseUrlFor('redirect307') }),
			'Error',
			n8n1(
				/^The Base URL answered with a redirect \(307\)/,
				/^Request failed with status code 307$/,
			),
		],
	];

	it.each(rows)('tests the credential: %s', async (_name, fields, status, message) => {
		const answer = await testCredential(fields());
		expect({ status: answer.status, message: answer.message }).toEqual({
			status,
			message: expect.stringMatching(message),
		});
		for (const key of [...Object.values(DEMO_KEYS), WRONG_KEY])
			expect(answer.text).not.toContain(key);
	});

	it("the credential's Test follows no redirect: nothing reached the other origin", () => {
		expect(proxy.counters('redirect301').received).toEqual({ 'GET /v1/decisions': 1 });
		expect(proxy.canary.hits).toEqual([]);
	});

	it('lists the node and its AI-agent tool variant', async () => {
		const response = await fetch(`${n8n.url}/types/nodes.json`, { headers: { cookie } });
		expect(response.status).toBe(200);
		const types = (await response.json()) as Array<{
			name: string;
			outputs?: unknown;
			displayName: string;
		}>;
		const node = types.find((type) => type.name === NODE_TYPE);
		const tool = types.find((type) => type.name === `${NODE_TYPE}Tool`);
		expect(node?.displayName).toBe('Decision Service');
		expect(tool).toBeDefined();
		expect(JSON.stringify(tool?.outputs)).toContain('ai_tool');
	});
});
