/**
 * Decide as an AI-agent tool, called through n8n-core's own tool path (an agent stand-in asks
 * n8n-core for its tools and invokes them; n8n-core keeps output 0 only): the agent reads the
 * answer on every call, for every decision type, output setting and with or without the Outputs
 * list; failures come back as short text that says what to do; the description names the
 * decision's question and answers.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { runAsTool, type ToolRunResult } from '../../harness/n8n-tools';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { loadRoutes, locator } from './helpers';

let sb: TestSandbox;
const leaks: string[] = [];
const credentialsFor = (apiKey: string) => ({ apiKey, baseUrl: sb.baseUrl });

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
	for (const key of Object.values(DEMO_KEYS)) expect(leaks.join('\n')).not.toContain(key);
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

async function call(options: Parameters<typeof runAsTool>[0]): Promise<ToolRunResult> {
	const result = await runAsTool(options);
	leaks.push(result.serialised);
	return result;
}

const TEXT_INPUT: INodeParameters = {
	inputMode: 'text',
	text: "={{ $fromAI('text', 'The text to decide on', 'string') }}",
};
const JSON_INPUT: INodeParameters = {
	inputMode: 'json',
	jsonInput: "={{ $fromAI('input', 'The input as a JSON object', 'json') }}",
};

/** The answer an agent read, asserting it is one object and not an error. */
function answerOf(result: ToolRunResult, index: number): IDataObject {
	const { thrown, response } = result.calls[index];
	expect(thrown).toBeUndefined();
	expect(Array.isArray(response)).toBe(true);
	const items = response as IDataObject[];
	expect(items).toHaveLength(1);
	expect(items[0].error).toBeUndefined();
	expect(typeof items[0].run_id).toBe('string');
	expect(['ok', 'uncertain', 'pending']).toContain(items[0].status);
	expect(typeof items[0].confidence).toBe('number');
	return items[0];
}

/** The error text an agent read. */
function errorOf(result: ToolRunResult, index: number): string {
	const { thrown, response } = result.calls[index];
	expect(thrown).toBeUndefined();
	const items = response as IDataObject[];
	expect(items).toHaveLength(1);
	expect(Object.keys(items[0])).toEqual(['error']);
	const text = String(items[0].error);
	expect(text.length).toBeLessThanOrEqual(600);
	expect(text).not.toMatch(/^Item \d/);
	return text;
}

const cases = [
	{
		slug: 'ticket-routing',
		input: TEXT_INPUT,
		calls: [
			{ text: 'I was charged twice on my invoice, please refund the duplicate payment.' },
			{ text: 'The app crashes with an error every time I log in since the last update.' },
			{ text: 'hello' },
		],
		check: (answers: IDataObject[]) => {
			expect(answers.map((answer) => answer.status)).toEqual(['ok', 'ok', 'pending']);
			expect(answers.slice(0, 2).map((answer) => answer.choice)).toEqual(['billing', 'technical']);
			expect(String(answers[2].review_url)).toMatch(/\/app\/reviews\//);
		},
	},
	{
		slug: 'lead-scoring',
		input: JSON_INPUT,
		calls: [
			{
				input: {
					message: 'Just browsing, not interested right now, maybe next year. Student project.',
					role: 'student',
				},
			},
			{
				input: {
					message:
						'We are ready to buy now: send the contract and invoice for 500 seats, budget approved, sign this week.',
					role: 'CTO',
					employees: 2000,
				},
			},
		],
		check: (answers: IDataObject[]) => {
			for (const answer of answers) {
				expect(typeof answer.score).toBe('number');
				expect(['cold', 'warm', 'hot', 'sales-ready']).toContain(answer.level);
			}
			expect(answers[0].level).toBe('cold');
			expect(answers[1].level).toBe('sales-ready');
		},
	},
	{
		slug: 'content-labels',
		input: TEXT_INPUT,
		calls: [
			{ text: 'Limited offer!!! Buy cheap now, discount coupon, click here to win a free prize' },
			{ text: 'The weather report for Tuesday afternoon mentions light clouds over the lake' },
		],
		check: (answers: IDataObject[]) => {
			expect(answers[0].labels).toEqual(expect.arrayContaining(['spam', 'promotion']));
			const quiet = answers[1];
			if (quiet.status === 'ok') expect(quiet.labels).toEqual([]);
		},
	},
] as const;

describe('the agent reads the answer on every call', () => {
	for (const { slug, input, calls, check } of cases) {
		for (const outputMode of ['routeToOutputs', 'singleOutput'] as const) {
			for (const loaded of [true, false]) {
				it(`${slug}, ${outputMode}, Outputs list ${loaded ? 'loaded' : 'never loaded'}`, async () => {
					const credentials = credentialsFor(DEMO_KEYS.starter);
					const routes = loaded
						? await loadRoutes(slug, credentials)
						: { mappingMode: 'defineBelow', value: null };
					const result = await call({
						parameters: {
							resource: 'decision',
							operation: 'decide',
							decision: locator(slug),
							...input,
							outputMode,
							routes,
						},
						calls: calls as unknown as IDataObject[],
						credentials,
					});
					expect(result.name).toBe('Decide');
					const answers = calls.map((_args, index) => answerOf(result, index));
					check(answers);
					// Every call ran the node once, and each answer is its own run.
					expect(result.executions).toBe(calls.length);
					expect(new Set(answers.map((answer) => answer.run_id)).size).toBe(calls.length);
				});
			}
		}
	}
});

describe('the tool description', () => {
	it("names the decision's question and answers, for each type, from the loaded list", async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const expected: Record<string, RegExp[]> = {
			'ticket-routing': [
				/^Asks the Decision Service decision "ticket-routing": Which team should handle this support ticket\?/,
				/It picks one option: billing, technical, sales, account\./,
			],
			'lead-scoring': [/It scores on levels, lowest first: cold, warm, hot, sales-ready\./],
			'content-labels': [
				/It returns every label that applies, possibly none: spam, promotion, question, complaint, toxic\./,
			],
		};
		for (const [slug, patterns] of Object.entries(expected)) {
			const result = await call({
				parameters: {
					resource: 'decision',
					operation: 'decide',
					decision: locator(slug),
					...TEXT_INPUT,
					routes: await loadRoutes(slug, credentials),
				},
				calls: [],
				credentials,
			});
			for (const pattern of patterns) expect(result.description).toMatch(pattern);
			expect(result.description).toMatch(/Returns JSON: the answer .*run_id/);
			expect(result.description).not.toMatch(/__/);
		}
	});

	it('names the decision alone when the list was never loaded, and is the user’s text when set manually', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const base = {
			resource: 'decision',
			operation: 'decide',
			decision: locator('ticket-routing'),
			...TEXT_INPUT,
		};
		const bare = await call({ parameters: base, calls: [], credentials });
		expect(bare.description).toMatch(
			/^Asks the Decision Service decision "ticket-routing"\. Returns JSON/,
		);
		const manual = await call({
			parameters: {
				...base,
				descriptionType: 'manual',
				toolDescription: 'Routes a support ticket to the team that handles it.',
			},
			calls: [],
			credentials,
		});
		expect(manual.description).toBe('Routes a support ticket to the team that handles it.');
	});
});

describe('failures reach the agent as short text that says what to do', () => {
	const parameters = (slug: string, input: INodeParameters = TEXT_INPUT): INodeParameters => ({
		resource: 'decision',
		operation: 'decide',
		decision: locator(slug),
		...input,
	});

	it('dropped in with only a decision picked, it takes the text from the model', async () => {
		const result = await call({
			parameters: parameters('ticket-routing', {}),
			calls: [{ text: 'I was charged twice on my invoice, please refund the duplicate payment.' }],
			credentials: credentialsFor(DEMO_KEYS.pro),
		});
		expect(answerOf(result, 0).choice).toBe('billing');
	});

	it('a revoked key: check the key, and the key is not in the text', async () => {
		const result = await call({
			parameters: parameters('ticket-routing'),
			calls: [{ text: 'Refund please' }],
			credentials: credentialsFor(DEMO_KEYS.revoked),
		});
		const text = errorOf(result, 0);
		expect(text).toMatch(/Check the API key in the credential/);
		expect(text).not.toContain(DEMO_KEYS.revoked);
	});

	it('an unknown decision: check the slug', async () => {
		const result = await call({
			parameters: parameters('no-such-decision'),
			calls: [{ text: 'Refund please' }],
			credentials: credentialsFor(DEMO_KEYS.pro),
		});
		expect(errorOf(result, 0)).toMatch(/no-such-decision.*Check the slug/s);
	});

	it('an input missing a required field: names the field, spends no quota, and the next call still answers', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const before = await sb.usage(DEMO_KEYS.pro);
		const result = await call({
			parameters: parameters('ticket-routing', JSON_INPUT),
			calls: [
				{ input: { body: 'No subject here' } },
				{ input: { subject: 'Refund', body: 'I was charged twice, please refund.' } },
			],
			credentials,
		});
		const text = errorOf(result, 0);
		expect(text).toMatch(/Field "subject" is required/);
		expect(text).toMatch(/No request was sent/);
		expect(answerOf(result, 1).choice).toBe('billing');
		const after = await sb.usage(DEMO_KEYS.pro);
		expect(after.used - before.used).toBe(1);
	});

	it('the monthly quota: when it resets and how to upgrade; nothing thrown, even with Retry On Fail', async () => {
		const usage = await sb.usage(DEMO_KEYS.free);
		await sb.control('POST', '/usage', { key: DEMO_KEYS.free, used: usage.quota });
		const result = await call({
			parameters: parameters('ticket-routing'),
			calls: [{ text: 'Refund please' }],
			credentials: credentialsFor(DEMO_KEYS.free),
			settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 },
		});
		expect(errorOf(result, 0)).toMatch(/quota.*Wait for the reset or upgrade the plan/is);
		// The failure is an answer, so n8n's tool retry loop has nothing to re-run.
		expect(result.executions).toBe(1);
	});
});
