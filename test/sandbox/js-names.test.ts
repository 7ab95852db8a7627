/**
 * The sandbox accepts what the API text accepts: option, level and label keys and context field
 * names that are JavaScript's own (`constructor`, `__proto__`, `toString`…), in creates, decides,
 * PII, the stored run and the control surface.
 */
import { runSchema } from '../../src/contract';
import { JS_FIELD_NAMES, JS_KEYS, jsonText, ownKeys } from '../support/js-names';
import { DEMO_KEYS, useHarness } from './helpers';

const harness = useHarness();
const KEY = DEMO_KEYS.pro;

const contextFields = JS_FIELD_NAMES.map((name) => ({ name, type: 'string', required: false }));

async function create(type: 'route' | 'score' | 'classify', slug: string) {
	const items =
		type === 'score'
			? { levels: ['__proto__', 'constructor', 'toString'].map((label) => ({ label })) }
			: {
					[type === 'route' ? 'options' : 'labels']: JS_KEYS.map((key) => ({
						key,
						description: `Texts about ${key} words`,
					})),
				};
	return harness.api('POST', '/decisions', {
		key: KEY,
		body: {
			name: `JS names ${type}`,
			slug,
			type,
			instructions: 'Which JavaScript name does the text mention?',
			context: { fields: contextFields },
			...items,
		},
	});
}

/** A decide whose body is written by hand, so the input's `__proto__` key is an own key on the wire. */
function decideRaw(slug: string, input: Array<readonly [string, unknown]>) {
	return harness.api('POST', `/decide/${slug}`, {
		key: KEY,
		raw: `{"input":${jsonText(input)}}`,
	});
}

describe('creates with such keys and field names', () => {
	it.each(['route', 'classify'] as const)(
		'a %s decision keeps every key and field name',
		async (type) => {
			const answer = await create(type, `js-${type}`);
			expect(answer.status).toBe(201);
			expect(answer.json[type === 'route' ? 'options' : 'labels']).toEqual([...JS_KEYS]);
			const got = await harness.api('GET', `/decisions/js-${type}`, { key: KEY });
			expect(got.status).toBe(200);
			expect(got.json.context.fields.map((field: { name: string }) => field.name)).toEqual([
				...JS_FIELD_NAMES,
			]);
		},
	);

	it('a score decision keeps levels labelled __proto__, constructor and toString', async () => {
		const answer = await create('score', 'js-score');
		expect(answer.status).toBe(201);
		expect(answer.json.levels).toEqual(['__proto__', 'constructor', 'toString']);
	});

	it('a decision with the slug constructor is its own decision', async () => {
		const answer = await harness.api('POST', '/decisions', {
			key: KEY,
			body: { name: 'Constructor', type: 'route', instructions: 'Which?', options: ['a', 'b'] },
		});
		expect(answer.status).toBe(201);
		expect(answer.json.slug).toBe('constructor');
		expect((await harness.api('GET', '/decisions/prototype', { key: KEY })).status).toBe(404);
		expect((await harness.api('GET', '/decisions/constructor', { key: KEY })).json.name).toBe(
			'Constructor',
		);
	});
});

describe('decides keyed by such names', () => {
	it('route: each key is chosen by its own words, probabilities keyed by every key, charged once each', async () => {
		await create('route', 'js-route');
		for (const key of JS_KEYS) {
			const answer = await decideRaw('js-route', [['constructor', `a text about ${key} words`]]);
			expect(answer.status).toBe(200);
			expect(runSchema.safeParse(answer.json).success).toBe(true);
			expect(answer.json.choice).toBe(key);
			expect(ownKeys(JSON.parse(answer.text).probabilities)).toEqual([...JS_KEYS]);
		}
		expect((await harness.usage(KEY)).used).toBe(JS_KEYS.length);
	});

	it('classify: labels and probabilities keyed by such names', async () => {
		await create('classify', 'js-classify');
		const answer = await decideRaw('js-classify', [['toString', 'tostring and hasownproperty']]);
		expect(answer.status).toBe(200);
		expect(answer.json.labels).toEqual(['tostring', 'hasownproperty']);
		expect(ownKeys(answer.json.probabilities)).toEqual([...JS_KEYS]);
	});

	it('score: a level labelled __proto__ is in the probabilities and the legend as an own key', async () => {
		await create('score', 'js-score');
		const answer = await decideRaw('js-score', [['valueOf', 'constructor constructor']]);
		expect(answer.status).toBe(200);
		const run = JSON.parse(answer.text);
		expect(ownKeys(run.probabilities)).toEqual(['__proto__', 'constructor', 'toString']);
		expect(run.legend).toEqual({ '0': '__proto__', '1': 'constructor', '2': 'toString' });
		expect(runSchema.safeParse(run).success).toBe(true);
	});

	it('a JSON input keyed constructor, __proto__ and toString is accepted and stored as given', async () => {
		await create('route', 'js-route');
		const answer = await decideRaw('js-route', [
			['constructor', 'about prototype words'],
			['__proto__', 'second'],
			['toString', 'third'],
			['free', { __proto__x: 1 }],
		]);
		expect(answer.status).toBe(200);
		const stored = await harness.control(
			'GET',
			`/runs/${answer.json.run_id}?key=${encodeURIComponent(KEY)}`,
		);
		expect(ownKeys(stored.input)).toEqual(['constructor', '__proto__', 'toString', 'free']);
		expect(stored.input.constructor).toBe('about prototype words');
		expect(Object.getOwnPropertyDescriptor(stored.input, '__proto__')?.value).toBe('second');
	});

	it('required fields named so are checked as own fields: missing ones are refused, not charged', async () => {
		await harness.api('POST', '/decisions', {
			key: KEY,
			body: {
				name: 'JS required',
				type: 'route',
				instructions: 'Which?',
				options: ['a', 'b'],
				context: { fields: JS_FIELD_NAMES.map((name) => ({ name, required: true })) },
			},
		});
		const missing = await decideRaw('js-required', [['other', 'x']]);
		expect(missing.status).toBe(400);
		expect(missing.json.error.details.map((detail: { field: string }) => detail.field)).toEqual(
			JS_FIELD_NAMES.map((name) => `input.${name}`),
		);
		const wrong = await decideRaw(
			'js-required',
			JS_FIELD_NAMES.map((name) => [name, name === '__proto__' ? 7 : 'x'] as const),
		);
		expect(wrong.status).toBe(400);
		expect(wrong.json.error.details).toEqual([
			{ field: 'input.__proto__', message: 'must be a string, got number' },
		]);
		const present = await decideRaw(
			'js-required',
			JS_FIELD_NAMES.map((name) => [name, `v ${name}`] as const),
		);
		expect(present.status).toBe(200);
		expect((await harness.usage(KEY)).used).toBe(1);
	});

	it('declared personal-data fields named so are replaced by tokens', async () => {
		await harness.api('POST', '/decisions', {
			key: KEY,
			body: {
				name: 'JS pii',
				type: 'route',
				instructions: 'Which?',
				options: ['a', 'b'],
				context: { fields: JS_FIELD_NAMES.map((name) => ({ name, pii: true })) },
			},
		});
		const answer = await decideRaw(
			'js-pii',
			JS_FIELD_NAMES.map((name) => [name, `secret ${name}`] as const),
		);
		expect(answer.status).toBe(200);
		expect(answer.json.pii_redacted).toBe(JS_FIELD_NAMES.length);
		const stored = await harness.control(
			'GET',
			`/runs/${answer.json.run_id}?key=${encodeURIComponent(KEY)}`,
		);
		expect(ownKeys(stored.input)).toEqual([...JS_FIELD_NAMES]);
		expect(JSON.stringify(stored.input)).not.toContain('secret');
		expect(stored.input.constructor).toBe('<CONSTRUCTOR_1>');
		expect(Object.getOwnPropertyDescriptor(stored.input, '__proto__')?.value).toBe('<PROTO_1>');
	});

	it('feedback values named so are kept as given', async () => {
		await create('route', 'js-route');
		const run = await decideRaw('js-route', [['constructor', 'prototype']]);
		for (const value of [...JS_KEYS, ...JS_FIELD_NAMES]) {
			const answer = await harness.api('POST', `/runs/${run.json.run_id}/feedback`, {
				key: KEY,
				body: { feedback: value, note: value },
			});
			expect(answer.status).toBe(200);
			expect(answer.json).toEqual({ run_id: run.json.run_id, feedback: value, note: value });
		}
	});

	it('a new version through the control surface keeps such keys', async () => {
		await create('route', 'js-route');
		const decision = await harness.control('POST', '/decisions/js-route/versions', {
			key: KEY,
			options: [...JS_KEYS.slice(0, 3), '__proto__'],
			context: { fields: [{ name: '__proto__' }, { name: 'constructor' }] },
		});
		expect(decision.options).toEqual([...JS_KEYS.slice(0, 3), 'proto']);
		expect(decision.context.fields.map((field: { name: string }) => field.name)).toEqual([
			'__proto__',
			'constructor',
		]);
	});
});
