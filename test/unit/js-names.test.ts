/**
 * Names that are JavaScript's own (`constructor`, `__proto__`, `toString`…) are ordinary names in
 * every pure part: the contract's answers and requests, decide-input validation, key
 * normalisation, the Outputs list, routing, renames and the expressions n8n evaluates.
 */
import type { INodeParameters, ResourceMapperField } from 'n8n-workflow';
import { evaluateOnNode } from '../../harness/n8n-expressions';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import { targetsFor, otherNote } from '../../nodes/DecisionService/outputs/targets';
import { configuredOutputs, OUTPUTS_EXPRESSION } from '../../nodes/DecisionService/outputs/plan';
import { toolDescriptionOf } from '../../nodes/DecisionService/pipeline/tool-description';
import {
	NO_LABEL_KEY,
	freshOutputsList,
	outputsListFor,
} from '../../nodes/DecisionService/outputs/list';
import { outputsLayout } from '../../nodes/DecisionService/outputs/layout';
import { QuotaExceededError, ResponseFormatError, errorFromResponse } from '../../src/client';
import { parseAnswer } from '../../src/client/parse';
import {
	decideRequestSchema,
	levelOf,
	ownRecord,
	ownValue,
	runAnswerSchema,
	runSchema,
	type RunAnswer,
} from '../../src/contract';
import {
	normalizeKey,
	validateCreateDecisionRequest,
	validateDecideInput,
} from '../../src/contract/validation';
import { JS_FIELD_NAMES, JS_KEYS, jsonObject, jsonText, ownKeys } from '../support/js-names';
import * as z from 'zod/v4/mini';

const probabilities = JS_KEYS.map((key, index) => [key, index === 0 ? 0.5 : 0.1] as const);

function runText(fields: Array<readonly [string, unknown]>): string {
	return jsonText([
		['run_id', 'run_1'],
		['decision', 'd'],
		['version', 1],
		['status', 'ok'],
		['confidence', 0.9],
		['confidence_source', 'calibrated'],
		['engine', 'jev'],
		['model', 'jev-1'],
		['latency_ms', 3],
		['pii_redacted', 0],
		...fields,
	]);
}

const clientContext = {
	label: 'decide on "d"',
	secrets: [],
	mayHaveBeenCharged: true,
	changesState: false,
};

function parseRun(text: string): RunAnswer {
	return parseAnswer({ status: 200, headers: {}, body: text }, runAnswerSchema, clientContext);
}

describe('the contract reads answers keyed by such names', () => {
	it('runAnswerSchema and runSchema accept probabilities keyed by every name, as own numbers', () => {
		const text = runText([
			['choice', 'constructor'],
			['probabilities', Object.fromEntries(probabilities)],
		]);
		for (const schema of [runAnswerSchema, runSchema]) {
			const parsed = schema.safeParse(JSON.parse(text));
			expect(parsed.success).toBe(true);
			const read = parsed.data!.probabilities!;
			expect(ownKeys(read)).toEqual([...JS_KEYS]);
			expect(read.constructor).toBe(0.5);
			expect(typeof read.tostring).toBe('number');
		}
	});

	it('a legend of such level labels gives the level; a record keyed __proto__ keeps it as a field', () => {
		const legend = jsonObject([
			['0', '__proto__'],
			['1', 'constructor'],
			['2', 'toString'],
		]);
		const text = runText([
			['score', 50],
			['raw_score', 1.2],
			['legend', legend],
			[
				'probabilities',
				jsonObject([
					['__proto__', 0.1],
					['constructor', 0.8],
					['toString', 0.1],
				]),
			],
		]);
		const run = parseRun(text);
		expect(levelOf(run)).toBe('constructor');
		expect(ownKeys(run.probabilities)).toEqual(['__proto__', 'constructor', 'toString']);
		expect(ownValue(run.probabilities, '__proto__')).toBe(0.1);
		expect(Object.getPrototypeOf(run.probabilities)).toBe(Object.prototype);
		expect(levelOf({ raw_score: 0, legend: run.legend })).toBe('__proto__');
		// A legend without the index gives no level, not an inherited property.
		expect(levelOf({ raw_score: 0, legend: {} })).toBeUndefined();
	});

	it('a wrong value under such a key names the key', () => {
		const text = runText([['probabilities', jsonObject([['constructor', 'high']])]]);
		let error: unknown;
		try {
			parseRun(text);
		} catch (thrown) {
			error = thrown;
		}
		expect(error).toBeInstanceOf(ResponseFormatError);
		expect((error as Error).message).toContain('field "probabilities.constructor"');
		expect((error as Error).message).toContain('(received "high")');
	});

	it('an answer field named __proto__ stays a field: nothing is inherited from it', () => {
		const run = parseRun(
			runText([
				['labels', []],
				['__proto__', { choice: 'constructor', labels: ['x'] }],
				['probabilities', {}],
			]),
		);
		expect(run.choice).toBeUndefined();
		expect(run.labels).toEqual([]);
		expect(Object.getPrototypeOf(run)).toBe(Object.prototype);
		expect(ownValue(run, '__proto__')).toEqual({ choice: 'constructor', labels: ['x'] });
	});

	it('ownRecord refuses what is not an object, like a record', () => {
		const schema = ownRecord(z.number());
		for (const value of ['x', 1, null, [1]]) expect(schema.safeParse(value).success).toBe(false);
		expect(schema.safeParse(Object.create(null)).success).toBe(true);
	});

	it('an error code named like a property of Object is a code like any other', () => {
		const body = JSON.stringify({ error: { code: 'constructor', message: 'odd' } });
		const error = errorFromResponse(
			{ status: 418, headers: {}, body },
			{ label: 'decide', now: 0, rateWaitedMs: 0, secrets: [], url: 'x', retry: 'metered' },
		);
		expect(error).not.toBeInstanceOf(QuotaExceededError);
		expect(error.code).toBe('constructor');
		expect(error.message).toContain('(418 constructor)');
	});
});

describe('decide inputs with such field names', () => {
	const fields = JS_FIELD_NAMES.map((name) => ({
		name,
		type: 'string' as const,
		required: true,
	}));

	it('an input without them misses every required one (nothing inherited counts as a value)', () => {
		expect(validateDecideInput(fields, {}).map((detail) => detail.field)).toEqual(
			JS_FIELD_NAMES.map((name) => `input.${name}`),
		);
		expect(
			validateDecideInput(
				fields.map((field) => ({ ...field, required: false })),
				{},
			),
		).toEqual([]);
	});

	it('an input with them as own strings passes', () => {
		const input = jsonObject(JS_FIELD_NAMES.map((name) => [name, `value of ${name}`]));
		expect(validateDecideInput(fields, input)).toEqual([]);
		expect(
			validateDecideInput(fields, jsonObject([['constructor', 3]])).find(
				(detail) => detail.field === 'input.constructor',
			)?.message,
		).toBe('must be a string, got number');
	});

	it('the decide request keeps every such key of the input as its own', () => {
		const input = jsonObject(JS_FIELD_NAMES.map((name) => [name, `v-${name}`]));
		const parsed = decideRequestSchema.safeParse({ input });
		expect(parsed.success).toBe(true);
		const kept = parsed.data!.input as Record<string, unknown>;
		expect(ownKeys(kept)).toEqual([...JS_FIELD_NAMES]);
		expect(ownValue(kept, '__proto__')).toBe('v-__proto__');
		expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
		expect(JSON.parse(JSON.stringify({ input: kept })).input).toEqual(input);
	});
});

describe('create requests with such keys', () => {
	it.each([
		['constructor', 'constructor'],
		['Prototype', 'prototype'],
		['valueOf', 'valueof'],
		['toString', 'tostring'],
		['hasOwnProperty', 'hasownproperty'],
		['__proto__', 'proto'],
	])('the name %j normalises to the key %j', (name, key) => {
		expect(normalizeKey(name)).toBe(key);
		expect(JS_KEYS).toContain(key);
	});

	it.each(['route', 'classify'] as const)(
		'a %s definition keyed by the corpus is valid, its keys unchanged',
		(type) => {
			const field = type === 'route' ? 'options' : 'labels';
			const result = validateCreateDecisionRequest({
				name: 'JS names',
				type,
				instructions: 'Which one?',
				[field]: JS_KEYS.map((key) => ({ key, description: `about ${key}` })),
				context: { fields: JS_FIELD_NAMES.map((name) => ({ name, required: false })) },
			});
			expect(result.ok).toBe(true);
			if (!result.ok || result.value.shape !== 'definition')
				throw new Error('expected a definition');
			expect(result.value.items.map((item) => item.key)).toEqual([...JS_KEYS]);
			expect(result.value.body.context?.fields?.map((each) => each.name)).toEqual([
				...JS_FIELD_NAMES,
			]);
		},
	);

	it('score levels and string options named after them are items, duplicates still refused', () => {
		const levels = validateCreateDecisionRequest({
			name: 'JS levels',
			type: 'score',
			instructions: 'How much?',
			levels: ['__proto__', 'constructor', 'toString'],
		});
		expect(
			levels.ok && levels.value.shape === 'definition' && levels.value.items.map((i) => i.key),
		).toEqual(['__proto__', 'constructor', 'toString']);
		const options = validateCreateDecisionRequest({
			name: 'JS options',
			type: 'route',
			instructions: 'Which?',
			options: 'Constructor, __proto__, proto',
		});
		expect(options.ok).toBe(false);
		if (options.ok) return;
		expect(options.details).toEqual([
			{ field: 'options.2', message: 'duplicates the key "proto"' },
		]);
	});

	it('a definition body with an own key `template` or `describe` selects that shape; an inherited one does not', () => {
		const definition = Object.create({ template: 'ticket-routing', describe: 'x' }) as object;
		Object.assign(definition, {
			name: 'By definition',
			type: 'route',
			instructions: 'Which?',
			options: ['constructor', 'proto'],
		});
		const result = validateCreateDecisionRequest(definition);
		expect(result.ok && result.value.shape).toBe('definition');
	});
});

describe('the Outputs list, routing and renames keyed by such names', () => {
	const decision = {
		slug: 'constructor',
		type: 'route' as const,
		instructions: 'Which JavaScript name?',
		options: [...JS_KEYS],
	};
	const schema = freshOutputsList(decision);
	const routes = (value: Record<string, unknown>, list: ResourceMapperField[] = schema) => ({
		mappingMode: 'defineBelow',
		value,
		matchingColumns: [],
		schema: list,
	});
	const parameters = (value: Record<string, unknown> = {}) =>
		({
			resource: 'decision',
			operation: 'decide',
			outputMode: 'routeToOutputs',
			decision: { __rl: true, mode: 'list', value: 'constructor' },
			routes: routes(value),
		}) as unknown as INodeParameters;
	const inN8n = (params: INodeParameters) =>
		(
			evaluateOnNode(params, OUTPUTS_EXPRESSION) as Array<{
				displayName: string;
			}>
		).map((output) => output.displayName);

	it("n8n's expression engine lays out one output per key, then the fixed ones", () => {
		expect(inN8n(parameters())).toEqual([...JS_KEYS, 'Uncertain', 'Pending Review', 'Other']);
	});

	it('renames keyed by such names apply to their outputs; inherited names rename nothing', () => {
		const renames = jsonObject(JS_KEYS.map((key) => [key, `Team ${key}`]));
		const fixed = ['Uncertain', 'Pending Review', 'Other'];
		expect(configuredOutputs(parameters(renames)).map((output) => output.displayName)).toEqual([
			...JS_KEYS.map((key) => `Team ${key}`),
			...fixed,
		]);
		// n8n's own deepCopy drops parameter keys `constructor`, `prototype` and `__proto__`
		// (n8n-workflow utils.ts, reservedCopyKeys) before an expression sees them: those two
		// outputs keep their key as name; the expression neither fails nor reads Object's members.
		expect(inN8n(parameters(renames))).toEqual([
			...JS_KEYS.map((key) => (key === 'constructor' || key === 'prototype' ? key : `Team ${key}`)),
			...fixed,
		]);
		// No rename given: `constructor` is not renamed to Object's function or refused.
		expect(configuredOutputs(parameters({})).map((output) => output.displayName)).toEqual(
			inN8n(parameters()),
		);
	});

	it('a refresh keeps such keys in place and appends new ones', () => {
		const grown = outputsListFor({ ...decision, options: [...JS_KEYS, '__proto__'] }, schema);
		expect(grown.filter((field) => field.display !== false).map((field) => field.id)).toEqual([
			...JS_KEYS,
			'__out_uncertain__',
			'__out_pending__',
			'__out_other__',
			'__out_error_1__',
			'__proto__',
		]);
	});

	it('routes a run to the output of its key, for each key', () => {
		const layout = outputsLayout(schema);
		JS_KEYS.forEach((key, index) => {
			const run = {
				run_id: 'r',
				status: 'ok',
				choice: key,
				probabilities: jsonObject(JS_KEYS.map((each) => [each, each === key ? 0.9 : 0.02])),
			} as RunAnswer;
			expect(targetsFor(run, layout)).toEqual([index]);
			expect(otherNote(run, layout)).toBeUndefined();
		});
		const labels = outputsLayout(
			freshOutputsList({ ...decision, type: 'classify', labels: [...JS_KEYS] }),
		);
		expect(
			targetsFor({ run_id: 'r', status: 'ok', labels: ['tostring', 'constructor'] }, labels),
		).toEqual([0, 3]);
		expect(targetsFor({ run_id: 'r', status: 'ok', labels: [] }, labels)).toEqual([
			labels.indexOf.get(NO_LABEL_KEY),
		]);
		// A key the list lacks goes to Other, even one Object.prototype has.
		const few = outputsLayout(['billing']);
		expect(targetsFor({ run_id: 'r', status: 'ok', choice: 'constructor' }, few)).toEqual([
			few.other,
		]);
		expect(targetsFor({ run_id: 'r', status: 'ok', choice: 'toString' }, few)).toEqual([few.other]);
	});

	it('the subtitle and the tool description name such a decision and its keys', () => {
		const node = new DecisionService();
		expect(evaluateOnNode(parameters(), node.description.subtitle as string)).toBe(
			'Decide: constructor',
		);
		for (const operation of ['constructor', 'toString', '__proto__']) {
			expect(
				evaluateOnNode(
					{ resource: 'decision', operation } as INodeParameters,
					node.description.subtitle as string,
				),
			).toBe(`${operation}: decision`);
		}
		const text = evaluateOnNode(parameters(), `={{(${toolDescriptionOf})($parameter)}}`);
		expect(text).toContain(
			'Asks the Decision Service decision "constructor": Which JavaScript name?',
		);
		expect(text).toContain(`It picks one option: ${JS_KEYS.join(', ')}.`);
	});
});
