/**
 * The node in n8n-core's engine against the sandbox, on decisions keyed by names that are
 * JavaScript's own (issue 19): route, score and classify put every item on its own output and
 * are charged once per item; inputs send an item's own fields only (never an inherited function);
 * renames, feedback, Create, Get and Get Many work on such names.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import * as resourceMapping from '../../nodes/DecisionService/methods/resource-mapping';
import {
	loadOptionsContext,
	outputNames,
	runNode,
	type EngineCredentials,
} from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { ownValue } from '../../src/contract';
import { JS_FIELD_NAMES, JS_KEYS, jsonObject, ownKeys } from '../support/js-names';
import { decide, decideParameters, loadRoutes, locator, pairedIndexes } from './helpers';

let sb: TestSandbox;
const KEY = DEMO_KEYS.pro;
const credentials = (): EngineCredentials => ({ apiKey: KEY, baseUrl: sb.baseUrl });

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

const FIXED = ['Uncertain', 'Pending Review', 'Other'];

async function createDecision(type: 'route' | 'score' | 'classify', slug: string, keys: string[]) {
	const field = type === 'route' ? 'options' : type === 'score' ? 'levels' : 'labels';
	await sb.client(KEY).createDecision({
		name: `JS ${type}`,
		slug,
		type,
		instructions: 'Which JavaScript name does the text mention?',
		confidence_threshold: 0.3,
		context: { fields: JS_FIELD_NAMES.map((name) => ({ name, required: false })) },
		[field]: keys.map((key) =>
			type === 'score'
				? { label: key, description: `Texts about ${key} words` }
				: { key, description: `Texts about ${key} words` },
		),
	} as never);
}

/** The stored (pseudonymised) input of the run an output item carries. */
async function storedInput(item: IDataObject): Promise<Record<string, unknown>> {
	const runId = (item.decision as IDataObject).run_id as string;
	const stored = await sb.control<{ input: Record<string, unknown> }>(
		'GET',
		`/runs/${runId}?key=${encodeURIComponent(KEY)}`,
	);
	return stored.input;
}

describe('Decide routes every item to the output of its key, charged once', () => {
	it.each([
		['route', JS_KEYS],
		['classify', JS_KEYS],
		['score', ['constructor', 'prototype']],
	] as const)('%s', async (type, keys) => {
		const slug = `js-${type}`;
		await createDecision(type, slug, [...keys]);
		const routes = await loadRoutes(slug, credentials());
		const parameters = decideParameters(slug, routes);
		const expectedNames = [...keys, ...(type === 'classify' ? ['No Label'] : []), ...FIXED];
		expect(outputNames(parameters)).toEqual(expectedNames);
		// Route and classify items name their key; a score item names its level twice, so that
		// legend[round(raw_score)] is that level.
		const texts = keys.map((key) => `a text about ${key} words, ${key} again`);
		const result = await decide({
			slug,
			routes,
			items: texts.map((text) => ({ text })),
			credentials: credentials(),
			// The full run: its probabilities are checked below.
			extra: { options: { simplify: false } },
		});
		expect(result.error).toBeUndefined();
		const reached = pairedIndexes(result.outputs);
		expect(reached.slice(0, keys.length)).toEqual(keys.map((_key, index) => [index]));
		expect(reached.slice(keys.length).flat()).toEqual([]);
		for (const [index, items] of result.outputs.entries()) {
			for (const item of items) {
				const answer = item.json.decision as IDataObject;
				expect(answer.routing_note).toBeUndefined();
				expect(ownKeys(answer.probabilities)).toEqual([...keys]);
				if (type === 'route') expect(answer.choice).toBe(keys[index]);
				if (type === 'score') expect(answer.level).toBe(keys[index]);
			}
		}
		expect((await sb.usage(KEY)).used).toBe(keys.length);
	});
});

describe('inputs send the item’s own fields only', () => {
	const mapFields = async (slug: string): Promise<INodeParameters> => {
		const context = loadOptionsContext(
			{ resource: 'decision', operation: 'decide', decision: locator(slug) },
			credentials(),
		);
		const { fields } = await resourceMapping.getContextFields.call(context);
		expect(fields.map((field) => field.id)).toEqual([...JS_FIELD_NAMES]);
		return {
			inputMode: 'mapFields',
			inputFields: {
				mappingMode: 'autoMapInputData',
				value: null,
				matchingColumns: [],
				schema: fields,
			} as unknown as INodeParameters,
		};
	};

	it('Map Fields, auto-map: items without a field constructor send none; items with it send theirs', async () => {
		await createDecision('route', 'js-route', [...JS_KEYS]);
		const before = (await sb.usage(KEY)).used;
		const result = await decide({
			slug: 'js-route',
			items: [{ other: 'a text about prototype words' }, { constructor: 'about proto words' }],
			credentials: credentials(),
			extra: await mapFields('js-route'),
		});
		expect(result.error).toBeUndefined();
		const [first, second] = result.outputs[0];
		expect(first.json.error).toBeUndefined();
		expect(ownKeys(await storedInput(first.json))).toEqual([]);
		expect(await storedInput(second.json)).toEqual({ constructor: 'about proto words' });
		expect((await sb.usage(KEY)).used).toBe(before + 2);
	});

	it('Map Fields, defined below: values keyed by such names are sent as own fields', async () => {
		await createDecision('route', 'js-route', [...JS_KEYS]);
		const extra = await mapFields('js-route');
		(extra.inputFields as IDataObject).mappingMode = 'defineBelow';
		(extra.inputFields as IDataObject).value = jsonObject(
			JS_FIELD_NAMES.map((name) => [name, `={{ "v " + $json.text }}`]),
		);
		const result = await decide({
			slug: 'js-route',
			items: [{ text: 'prototype' }],
			credentials: credentials(),
			extra,
		});
		expect(result.error).toBeUndefined();
		const input = await storedInput(result.outputs[0][0].json);
		// n8n's deepCopy drops parameter keys constructor, prototype and __proto__ before the node
		// reads them (n8n-workflow reservedCopyKeys); the others arrive as own fields.
		expect(ownKeys(input)).toEqual(
			JS_FIELD_NAMES.filter((name) => name !== 'constructor' && name !== '__proto__'),
		);
		expect(input.toString).toBe('v prototype');
	});

	it('JSON: a key __proto__ (and constructor) of the item is sent as the item’s own value', async () => {
		await createDecision('route', 'js-route', [...JS_KEYS]);
		const item = jsonObject<IDataObject>([
			['__proto__', 'about valueof words'],
			['constructor', 'c'],
			['toString', 't'],
		]);
		const result = await decide({ slug: 'js-route', items: [item], credentials: credentials() });
		expect(result.error).toBeUndefined();
		const out = result.outputs[0][0];
		const input = await storedInput(out.json);
		expect(ownKeys(input)).toEqual(['__proto__', 'constructor', 'toString']);
		expect(ownValue(input, '__proto__')).toBe('about valueof words');
		expect(ownValue(out.json, '__proto__')).toBe('about valueof words');
	});

	it('JSON typed in the parameter: keys __proto__ and constructor are sent as written', async () => {
		await createDecision('route', 'js-route', [...JS_KEYS]);
		const result = await decide({
			slug: 'js-route',
			items: [{ text: 'x' }],
			credentials: credentials(),
			extra: { jsonInput: '{"__proto__": "about tostring words", "constructor": "k"}' },
		});
		expect(result.error).toBeUndefined();
		expect(await storedInput(result.outputs[0][0].json)).toEqual(
			jsonObject([
				['__proto__', 'about tostring words'],
				['constructor', 'k'],
			]),
		);
	});
});

describe('renames, feedback and the other operations on such names', () => {
	it('renamed outputs keyed by such names: items still reach their keys’ outputs', async () => {
		await createDecision('route', 'js-route', [...JS_KEYS]);
		const routes = await loadRoutes('js-route', credentials());
		routes.value = jsonObject<INodeParameters>(JS_KEYS.map((key) => [key, `Team ${key}`]));
		const parameters = decideParameters('js-route', routes);
		// n8n drops the parameter keys constructor and prototype (its deepCopy): those keep their key.
		expect(outputNames(parameters)).toEqual([
			...JS_KEYS.map((key) => (key === 'constructor' || key === 'prototype' ? key : `Team ${key}`)),
			...FIXED,
		]);
		const result = await decide({
			slug: 'js-route',
			routes,
			items: JS_KEYS.map((key) => ({ text: `about ${key} words` })),
			credentials: credentials(),
		});
		expect(pairedIndexes(result.outputs)).toEqual([...JS_KEYS.map((_k, i) => [i]), [], [], []]);
	});

	it('a classify item on several outputs keeps its fields constructor and __proto__ on each copy', async () => {
		await createDecision('classify', 'js-classify', [...JS_KEYS]);
		const routes = await loadRoutes('js-classify', credentials());
		const item = jsonObject<IDataObject>([
			['text', 'about constructor and tostring words'],
			['constructor', 'mine'],
			['__proto__', 'also mine'],
		]);
		const result = await decide({
			slug: 'js-classify',
			routes,
			items: [item],
			credentials: credentials(),
		});
		expect(pairedIndexes(result.outputs).slice(0, JS_KEYS.length)).toEqual([
			[0],
			[],
			[],
			[0],
			[],
			[],
		]);
		for (const each of [result.outputs[0][0], result.outputs[3][0]]) {
			expect(ownValue(each.json, 'constructor')).toBe('mine');
			expect(ownValue(each.json, '__proto__')).toBe('also mine');
		}
		expect((await sb.usage(KEY)).used).toBe(1);
	});

	it('Send Feedback with such values', async () => {
		await createDecision('route', 'js-route', [...JS_KEYS]);
		const decided = await decide({
			slug: 'js-route',
			items: [{ text: 'about proto words' }],
			credentials: credentials(),
		});
		for (const feedback of ['constructor', 'prototype', '__proto__', 'toString']) {
			const result = await runNode({
				parameters: {
					resource: 'run',
					operation: 'sendFeedback',
					runId: '={{ $json.decision.run_id }}',
					feedback,
					note: '',
				},
				items: [decided.outputs[0][0].json],
				credentials: credentials(),
			});
			expect(result.error).toBeUndefined();
			expect(result.outputs[0][0].json).toMatchObject({ feedback });
		}
	});

	it('Create from a definition with such keys and fields, then Get and Get Many', async () => {
		const run = (parameters: INodeParameters) =>
			runNode({ parameters, items: [{}], credentials: credentials() });
		const created = await run({
			resource: 'decision',
			operation: 'create',
			createFrom: 'definition',
			decisionName: 'Constructor',
			decisionType: 'route',
			instructions: 'Which JavaScript name?',
			itemsMode: 'list',
			itemsList: {
				item: [
					'Constructor',
					'prototype',
					'valueOf',
					'toString',
					'hasOwnProperty',
					'__proto__',
				].map((key) => ({ key, description: `about ${key}` })),
			},
			contextFields: {
				field: JS_FIELD_NAMES.map((name) => ({
					name,
					type: 'string',
					required: false,
					pii: false,
					description: '',
				})),
			},
			additionalFields: {},
		});
		expect(created.error).toBeUndefined();
		expect(created.outputs[0][0].json).toMatchObject({
			created: true,
			slug: 'constructor',
			options: [...JS_KEYS],
		});
		const got = await run({
			resource: 'decision',
			operation: 'get',
			decision: locator('constructor'),
		});
		expect(got.error).toBeUndefined();
		const decision = got.outputs[0][0].json as IDataObject;
		expect(decision.options).toEqual([...JS_KEYS]);
		expect(
			((decision.context as IDataObject).fields as IDataObject[]).map((field) => field.name),
		).toEqual([...JS_FIELD_NAMES]);
		const many = await run({ resource: 'decision', operation: 'getAll', returnAll: true });
		expect(many.outputs[0].map((item) => item.json.slug)).toContain('constructor');
	});
});
