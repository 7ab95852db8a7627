/**
 * The typed client against the sandbox over loopback: decisions keyed by names that are
 * JavaScript's own are created, read, decided on and given feedback like any others, and the
 * answer is never refused for its keys (it was charged).
 */
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { ownValue } from '../../src/contract';
import { JS_FIELD_NAMES, JS_KEYS, jsonObject, ownKeys } from '../support/js-names';

let sb: TestSandbox;
const KEY = DEMO_KEYS.pro;

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

async function createRoute(slug = 'constructor') {
	return sb.client(KEY).createDecision({
		name: 'JS names',
		slug,
		type: 'route',
		instructions: 'Which JavaScript name does the text mention?',
		context: { fields: JS_FIELD_NAMES.map((name) => ({ name })) },
		options: JS_KEYS.map((key) => ({ key, description: `Texts about ${key} words` })),
	});
}

describe('a decision keyed by such names, through the client', () => {
	it('create, get and list it; its keys and field names come back as they were sent', async () => {
		const created = await createRoute();
		expect(created).toMatchObject({ created: true, slug: 'constructor', options: [...JS_KEYS] });
		const decision = await sb.client(KEY).getDecision('constructor');
		expect(decision.options).toEqual([...JS_KEYS]);
		expect(decision.context.fields.map((field) => field.name)).toEqual([...JS_FIELD_NAMES]);
		const listed = await sb.client(KEY).listDecisions();
		expect(listed.map((each) => each.slug)).toContain('constructor');
	});

	it('decide: every key is answered and its run read, charged once per item', async () => {
		await createRoute();
		const client = sb.client(KEY);
		for (const key of JS_KEYS) {
			const run = await client.decide(
				'constructor',
				jsonObject<Record<string, unknown>>([
					['constructor', `a text about ${key} words`],
					['__proto__', 'x'],
				]),
			);
			expect(run.choice).toBe(key);
			expect(ownKeys(run.probabilities)).toEqual([...JS_KEYS]);
			expect(ownValue(run.probabilities, key)).toBe(run.confidence);
		}
		expect((await sb.usage(KEY)).used).toBe(JS_KEYS.length);
	});

	it('the input is sent with its own keys, __proto__ included, and stored so', async () => {
		await createRoute();
		const input = jsonObject(JS_FIELD_NAMES.map((name) => [name, `v ${name}`]));
		const run = await sb.client(KEY).decide('constructor', input);
		const stored = await sb.control<{ input: Record<string, unknown> }>(
			'GET',
			`/runs/${run.run_id}?key=${encodeURIComponent(KEY)}`,
		);
		expect(ownKeys(stored.input)).toEqual([...JS_FIELD_NAMES]);
		expect(ownValue(stored.input, '__proto__')).toBe('v __proto__');
	});

	it('feedback with such values', async () => {
		await createRoute();
		const run = await sb.client(KEY).decide('constructor', 'about prototype words');
		for (const value of ['constructor', '__proto__', 'toString']) {
			expect(await sb.client(KEY).sendFeedback(run.run_id, { feedback: value })).toMatchObject({
				feedback: value,
			});
		}
	});
});
