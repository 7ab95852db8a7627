/**
 * Review's node side, without a service: its outputs (configuredOutputs in n8n's expression engine
 * against reviewLayout), the Outputs list it shows (forReview), the time limit, and what each item
 * asked, re-read from the Decide node wired into it (asked.ts) on a real n8n-core execute context,
 * so expressions resolve as n8n resolves them. The page's data:
 * test/unit/review-node-page-data.test.ts.
 */
import { ExecuteContext, ExecutionLifecycleHooks, WebhookContext } from 'n8n-core';
import {
	Workflow,
	createRunExecutionData,
	type IConnections,
	type IDataObject,
	type INode,
	type IRunExecutionData,
	type IWebhookData,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type ResourceMapperField,
} from 'n8n-workflow';
import { ownValue } from '../../src/contract';
import {
	askedInputs,
	decideSourceOf,
} from '../../nodes/DecisionService/actions/decision/review/asked';
import {
	reviewWebhooks,
	timeLimitMs,
} from '../../nodes/DecisionService/actions/decision/review/description';
import { REVIEW_UNTIL } from '../../nodes/DecisionService/actions/decision/review/execute';
import { reviewUntil } from '../../nodes/DecisionService/actions/decision/review/context';
import {
	reviewAnswers,
	reviewPageOf,
} from '../../nodes/DecisionService/actions/decision/review/page-data';
import { configuredOutputs, OUTPUTS_EXPRESSION } from '../../nodes/DecisionService/outputs/plan';
import {
	ENTRY,
	FIXED_ENTRY_IDS,
	HIDDEN_ENTRY,
	NO_LABEL_KEY,
	NOT_REVIEWED_NAME,
	freshOutputsList,
	forReview,
	type OutputsListEntry,
} from '../../nodes/DecisionService/outputs/list';
import { outputsLayout, reviewLayout } from '../../nodes/DecisionService/outputs/layout';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import {
	SingleNodeTypes,
	additionalDataFor,
	decisionNode,
	evaluateOnNode,
} from '../../harness/n8n-engine';
import { JS_FIELD_NAMES, JS_KEYS, jsonObject, ownKeys } from '../support/js-names';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';
import { ticketRoutingDecision } from '../support/decisions';

const KEEPER = `${ENTRY.errorKeeperPrefix}1__`;

// ---------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------

const routesOf = (schema: OutputsListEntry[], value: Record<string, unknown> = {}) => ({
	mappingMode: 'defineBelow',
	value,
	matchingColumns: [],
	schema,
});

const nodeParameters = (
	operation: string,
	schema: OutputsListEntry[],
	value: Record<string, unknown> = {},
) =>
	({
		resource: 'decision',
		operation,
		decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
		routes: routesOf(schema, value),
	}) as unknown as INodeParameters;

/** The node's output names as n8n's expression engine computes them from the saved parameters. */
function outputsInN8n(parameters: INodeParameters): string[] {
	const outputs = evaluateOnNode(parameters, OUTPUTS_EXPRESSION) as Array<{
		type: string;
		displayName?: string;
	}>;
	for (const output of outputs) expect(output.type).toBe('main');
	return outputs.map((output) => output.displayName ?? 'main');
}

const key = (id: string, extra: Partial<OutputsListEntry> = {}): OutputsListEntry => ({
	id,
	displayName: id,
	...extra,
});
const fixed = (): OutputsListEntry[] => [
	key(ENTRY.uncertain, { displayName: 'Uncertain' }),
	key(ENTRY.pending, { displayName: 'Pending Review' }),
	key(ENTRY.other, { displayName: 'Other' }),
];
const meta = (): OutputsListEntry[] => [
	key(HIDDEN_ENTRY.decision, { displayName: 'ticket-routing', display: false }),
	key(HIDDEN_ENTRY.question, { displayName: 'Which team?', display: false }),
	key(HIDDEN_ENTRY.type, { displayName: 'route', display: false }),
];

/**
 * Saved lists, each with the names Review's outputs must have (Not Reviewed first, then every
 * shown, kept, non-fixed entry in list order, renamed where a rename is given).
 */
const REVIEW_CASES: Array<[string, OutputsListEntry[], Record<string, unknown>, string[]]> = [
	[
		'keys only (saved before the fixed entries existed)',
		[key('billing'), key('technical')],
		{},
		['billing', 'technical'],
	],
	[
		'fixed entries after the keys, hidden entries last (a fresh list)',
		[key('billing'), key('technical'), key('sales'), ...fixed(), ...meta()],
		{},
		['billing', 'technical', 'sales'],
	],
	[
		'fixed entries first and between keys',
		[fixed()[2], key('billing'), fixed()[0], key('technical'), fixed()[1], key('sales')],
		{},
		['billing', 'technical', 'sales'],
	],
	[
		'renames (trimmed; blank or non-text renames keep the name)',
		[key('billing'), key('technical'), key('sales'), key('account'), ...fixed()],
		{ billing: '  Billing team ', technical: '   ', sales: 7, [ENTRY.uncertain]: 'Doubtful' },
		['Billing team', 'technical', 'sales', 'account'],
	],
	[
		'deleted keys keep an empty output; a deleted fixed entry is still not one of Review’s',
		[
			key('billing', { removed: true }),
			key('technical'),
			key(ENTRY.uncertain, { removed: true }),
			key('sales', { removed: true }),
			key('account'),
			...fixed().slice(1),
		],
		{ billing: 'Billing team' },
		['✕ Billing team', 'technical', '✕ sales', 'account'],
	],
	[
		'a kept error position and keys added after a refresh',
		[
			key('billing'),
			key('technical'),
			...fixed(),
			key(KEEPER, { displayName: 'Error (kept in place)' }),
			key('legal'),
			...meta(),
		],
		{ legal: 'Legal' },
		['billing', 'technical', 'Error (kept in place)', 'Legal'],
	],
	[
		'a removed error position and a key no longer on the service',
		[
			key('billing', { displayName: 'billing (no longer on the service)' }),
			key('technical'),
			...fixed(),
			key(KEEPER, { displayName: 'Error (kept in place)', removed: true }),
			key('legal'),
		],
		{},
		['billing (no longer on the service)', 'technical', '✕ Error (kept in place)', 'legal'],
	],
	[
		'hidden entries among the keys carry data, not outputs',
		[key('cold'), key(HIDDEN_ENTRY.type, { display: false }), key('warm'), key('hot'), ...meta()],
		{ hot: 'Hot lead', [HIDDEN_ENTRY.type]: 'renamed data' },
		['cold', 'warm', 'Hot lead'],
	],
	[
		'classify: No Label is an output, renamed or not',
		[key('spam'), key('question'), key(NO_LABEL_KEY, { displayName: 'No Label' }), ...fixed()],
		{ [NO_LABEL_KEY]: 'Nothing applies' },
		['spam', 'question', 'Nothing applies'],
	],
	[
		'classify: No Label deleted',
		[key('spam'), key(NO_LABEL_KEY, { displayName: 'No Label', removed: true }), ...fixed()],
		{},
		['spam', '✕ No Label'],
	],
	['an empty list', [], {}, []],
];

describe("Review's outputs", () => {
	test.each(REVIEW_CASES)('%s', (_name, schema, renames, expected) => {
		const names = outputsInN8n(nodeParameters('review', schema, renames));
		expect(names).toEqual([NOT_REVIEWED_NAME, ...expected]);
		// What runs in n8n is what the node's code says.
		expect(names).toEqual(
			configuredOutputs(nodeParameters('review', schema, renames)).map((o) => o.displayName),
		);

		// reviewLayout puts each item where the canvas shows its output.
		const layout = reviewLayout(schema);
		expect(layout.count).toBe(names.length);
		expect(layout.notReviewed).toBe(0);
		expect(names[layout.notReviewed]).toBe(NOT_REVIEWED_NAME);
		const shown = schema.filter(
			(field) =>
				field.display !== false &&
				field.removed !== true &&
				!(FIXED_ENTRY_IDS as readonly string[]).includes(field.id),
		);
		const keys = shown.filter((field) => !field.id.startsWith(ENTRY.errorKeeperPrefix));
		expect([...layout.indexOf.keys()]).toEqual(keys.map((field) => field.id));
		for (const field of keys) {
			const index = layout.indexOf.get(field.id)!;
			const rename = renames[field.id];
			expect(names[index]).toBe(
				typeof rename === 'string' && rename.trim() ? rename.trim() : field.displayName,
			);
		}
		// An error position and a deleted key keep their outputs, where nothing is sent.
		const positions = names.map((_each, index) => index);
		const used = new Set([layout.notReviewed, ...layout.indexOf.values()]);
		expect(positions.filter((index) => !used.has(index)).map((index) => names[index])).toEqual(
			schema
				.filter(
					(field) =>
						field.display !== false &&
						!(FIXED_ENTRY_IDS as readonly string[]).includes(field.id) &&
						(field.removed === true || field.id.startsWith(ENTRY.errorKeeperPrefix)),
				)
				.map((field) => {
					const rename = renames[field.id];
					const name =
						typeof rename === 'string' && rename.trim() ? rename.trim() : field.displayName;
					return field.removed === true ? `✕ ${name}` : name;
				}),
		);
		const noLabel = keys.some((field) => field.id === NO_LABEL_KEY);
		expect(layout.noLabel).toBe(noLabel ? layout.indexOf.get(NO_LABEL_KEY) : undefined);
	});

	it('an item reviewed as a key goes to the output named after that key', () => {
		const schema = freshOutputsList({
			slug: 'ticket-routing',
			type: 'route',
			instructions: 'Which team?',
			options: ['billing', 'technical', 'sales', 'account'],
		});
		const layout = reviewLayout(schema);
		const names = outputsInN8n(nodeParameters('review', schema, { sales: 'Sales team' }));
		expect(names).toEqual([NOT_REVIEWED_NAME, 'billing', 'technical', 'Sales team', 'account']);
		expect(names[layout.indexOf.get('sales')!]).toBe('Sales team');
		expect(layout.count).toBe(5);
	});

	it('renames keyed by JavaScript’s own names: n8n drops `constructor` and `__proto__` ones, nothing inherited is read', () => {
		const ids = [...JS_KEYS, ...JS_FIELD_NAMES.filter((name) => name !== 'constructor')];
		const schema = [...ids.map((id) => key(id)), ...fixed(), ...meta()];
		const renames = jsonObject(ids.map((id) => [id, `Team ${id}`]));
		const names = outputsInN8n(nodeParameters('review', schema, renames));
		// n8n's deepCopy drops parameter keys `constructor`, `prototype` and `__proto__`
		// (n8n-workflow's reservedCopyKeys) before the expression sees them: those keep their key.
		const dropped = ['constructor', 'prototype', '__proto__'];
		expect(names).toEqual([
			NOT_REVIEWED_NAME,
			...ids.map((id) => (dropped.includes(id) ? id : `Team ${id}`)),
		]);
		const layout = reviewLayout(schema);
		expect(layout.count).toBe(ids.length + 1);
		ids.forEach((id, index) => expect(layout.indexOf.get(id)).toBe(index + 1));
		// Run directly, every own rename applies.
		expect(
			configuredOutputs(nodeParameters('review', schema, renames)).map((o) => o.displayName),
		).toEqual([NOT_REVIEWED_NAME, ...ids.map((id) => `Team ${id}`)]);
		// No rename given: no output is named after Object's members (`function Object()…`).
		expect(outputsInN8n(nodeParameters('review', schema, {}))).toEqual([NOT_REVIEWED_NAME, ...ids]);
	});

	it('its panel says Not Reviewed comes first in a notice below the list (n8n shows no hint under a resource mapper)', () => {
		const reviewOnly = new DecisionService().description.properties.filter(
			(property) =>
				property.displayOptions?.show?.operation?.length === 1 &&
				property.displayOptions.show.operation[0] === 'review',
		);
		const names = reviewOnly.map((property) => property.name);
		const list = reviewOnly[names.indexOf('routes')];
		const notice = reviewOnly[names.indexOf('routes') + 1];
		expect(list.hint).toBeUndefined();
		expect(notice.type).toBe('notice');
		expect(notice.displayName).toMatch(/^Not Reviewed comes first, then one output per answer/);
	});

	it("Review's outputs do not depend on Decide's output mode", () => {
		const schema = [key('billing'), ...fixed()];
		const parameters = { ...nodeParameters('review', schema), outputMode: 'oneOutput' };
		expect(outputsInN8n(parameters as INodeParameters)).toEqual([NOT_REVIEWED_NAME, 'billing']);
	});
});

describe("Decide's outputs are unchanged by Review's branch", () => {
	it('a fresh list: its keys, then Uncertain, Pending Review and Other, no Not Reviewed', () => {
		const schema = freshOutputsList({
			slug: 'ticket-routing',
			type: 'route',
			instructions: 'Which team?',
			options: ['billing', 'technical', 'sales', 'account'],
		});
		expect(outputsInN8n(nodeParameters('decide', schema))).toEqual([...TICKET_ROUTING_OUTPUTS]);
	});

	test.each<[string, OutputsListEntry[], Record<string, unknown>, string[]]>([
		[
			'keys only: the fixed outputs after them',
			[key('billing'), key('technical')],
			{ billing: 'Billing team' },
			['Billing team', 'technical', 'Uncertain', 'Pending Review', 'Other'],
		],
		[
			'fixed entries in place, renamed, a kept error position, a deleted key',
			[
				key('billing'),
				fixed()[1],
				key('technical', { removed: true }),
				fixed()[0],
				fixed()[2],
				key(KEEPER, { displayName: 'Error (kept in place)' }),
				key('legal'),
				...meta(),
			],
			{ [ENTRY.uncertain]: 'Doubtful' },
			[
				'billing',
				'Pending Review',
				'✕ technical',
				'Doubtful',
				'Other',
				'Error (kept in place)',
				'legal',
			],
		],
	])('%s', (_name, schema, renames, expected) => {
		const names = outputsInN8n(nodeParameters('decide', schema, renames));
		expect(names).toEqual(expected);
		expect(names).not.toContain(NOT_REVIEWED_NAME);
		expect(outputsLayout(schema).count).toBe(names.length);
	});

	it('Evaluate and the other operations keep theirs', () => {
		const schema = [key('billing'), ...fixed()];
		expect(outputsInN8n(nodeParameters('evaluate', schema))).toEqual(['Report', 'Scored Items']);
		expect(outputsInN8n(nodeParameters('get', schema))).toEqual(['main']);
		// Single Output keeps a saved list's outputs in place, empty, before its own (layout.ts).
		expect(
			outputsInN8n({ ...nodeParameters('decide', schema), outputMode: 'singleOutput' } as never),
		).toEqual([
			'✕ billing',
			'✕ Uncertain',
			'✕ Pending Review',
			'✕ Other',
			'Error (kept in place)',
			'All Items',
		]);
		expect(
			outputsInN8n({ ...nodeParameters('decide', []), outputMode: 'singleOutput' } as never),
		).toEqual(['main']);
	});
});

describe('forReview', () => {
	test.each<Parameters<typeof freshOutputsList>[0]>([
		{
			slug: 'ticket-routing',
			type: 'route',
			instructions: 'Which team?',
			options: ['billing', 'sales'],
		},
		{
			slug: 'lead-scoring',
			type: 'score',
			instructions: 'How hot?',
			levels: ['cold', 'warm', 'hot'],
		},
		{ slug: 'content-labels', type: 'classify', instructions: 'Which labels?', labels: ['spam'] },
	])('hides exactly the three fixed entries of $slug and keeps the order', (decision) => {
		const fresh = freshOutputsList(decision);
		const review = forReview(fresh);
		expect(review.map((field) => field.id)).toEqual(fresh.map((field) => field.id));
		review.forEach((field, index) => {
			const isFixed = (FIXED_ENTRY_IDS as readonly string[]).includes(field.id);
			expect(field).toEqual(isFixed ? { ...fresh[index], display: false } : fresh[index]);
		});
		const hidden = (fields: ResourceMapperField[]) =>
			fields.filter((field) => field.display === false).map((field) => field.id);
		expect(hidden(review)).toEqual([...FIXED_ENTRY_IDS, ...hidden(fresh)]);
		// The editor's Review list and Review's outputs name the same answers.
		expect(outputsInN8n(nodeParameters('review', review)).slice(1)).toEqual(
			review.filter((field) => field.display !== false).map((field) => field.displayName),
		);
		// The list it was made from is untouched (it is the same list Decide shows).
		expect(
			fresh.filter((field) => FIXED_ENTRY_IDS.includes(field.id as never)).map((f) => f.display),
		).toEqual([true, true, true]);
	});
});

describe('timeLimitMs', () => {
	test.each<[number, string, number]>([
		[1, 'minutes', 60_000],
		[90, 'minutes', 90 * 60_000],
		[1, 'hours', 3_600_000],
		[24, 'hours', 86_400_000],
		[2, 'days', 2 * 86_400_000],
		[3, 'weeks', 3 * 3_600_000],
		[0, 'hours', 3_600_000],
		[-5, 'minutes', 60_000],
		[0.5, 'hours', 3_600_000],
		[1.5, 'days', 1.5 * 86_400_000],
		[2, 'constructor', 2 * 3_600_000],
	])('%d %s is %d ms', (amount, unit, expected) => {
		expect(timeLimitMs(amount, unit)).toBe(expected);
	});
});

// ---------------------------------------------------------------------------------------------
// What each item asked (asked.ts), on n8n-core's execute context of the Review node
// ---------------------------------------------------------------------------------------------

const REVIEW = 'Review';
const DECIDE = 'Decide';

const decision = ticketRoutingDecision({ constructorPii: false });

const decideParameters = (parameters: IDataObject): INodeParameters => ({
	resource: 'decision',
	operation: 'decide',
	decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
	...parameters,
});

interface Parent {
	name: string;
	parameters: INodeParameters;
	type?: string;
	/** The parent's outputs wired into Review (default: its first). */
	outputs?: number[];
	/** Nodes wired into this parent, each by its `outputs`, to the parent's input `index`. */
	from?: Array<Parent & { index?: number }>;
}

/**
 * n8n's Merge node as far as its parameters go (n8n keeps a node's parameters its type
 * describes): Mode, Append by default, as n8n-nodes-base 2.41.1's Merge v3.
 */
function withMerge(types: SingleNodeTypes): INodeTypes {
	const merge = {
		description: {
			displayName: 'Merge',
			name: 'merge',
			group: ['transform'],
			version: 3,
			description: '',
			defaults: { name: 'Merge' },
			inputs: ['main', 'main'],
			outputs: ['main'],
			properties: [
				{
					displayName: 'Mode',
					name: 'mode',
					type: 'options',
					default: 'append',
					options: [
						{ name: 'Append', value: 'append' },
						{ name: 'Combine', value: 'combine' },
					],
				},
			],
		},
	} as unknown as INodeType;
	const pick = (type: string) =>
		type === 'n8n-nodes-base.merge' ? merge : types.getByNameAndVersion();
	return {
		getByName: pick,
		getByNameAndVersion: pick,
		getKnownTypes: () => ({}),
	};
}

/**
 * n8n-core's ExecuteContext of a Review node whose input is `items`, with these nodes wired into
 * it. An execute context and a webhook context share what Review reads (NodeExecutionContext:
 * evaluateExpression, getParentNodes).
 */
function reviewHost(
	parents: Parent[],
	items: IDataObject[],
	parameters: INodeParameters = {},
	run: IRunExecutionData = createRunExecutionData(),
) {
	const review = decisionNode(
		{
			parameters: {
				resource: 'decision',
				operation: 'review',
				decision: decideParameters({}).decision,
				...parameters,
			},
		},
		REVIEW,
	);
	const grand = parents.flatMap((parent) => parent.from ?? []);
	const nodes: INode[] = [
		review,
		...[...parents, ...grand].map((parent, index) => ({
			...decisionNode({ parameters: parent.parameters }, parent.name),
			id: `parent-${index}`,
			...(parent.type ? { type: parent.type } : {}),
		})),
	];
	const connections: IConnections = {};
	const wire = (parent: Parent, to: string, index = 0) => {
		const main: Array<Array<{ node: string; type: 'main'; index: number }>> = [];
		for (const output of parent.outputs ?? [0]) main[output] = [{ node: to, type: 'main', index }];
		connections[parent.name] = { main: Array.from(main, (each) => each ?? []) };
	};
	for (const parent of parents) {
		wire(parent, REVIEW);
		for (const each of parent.from ?? []) wire(each, parent.name, each.index);
	}
	const workflow = new Workflow({
		id: 'review-unit',
		nodes,
		connections,
		nodeTypes: withMerge(new SingleNodeTypes(new DecisionService())),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const node = workflow.getNode(REVIEW)!;
	const hooks = new ExecutionLifecycleHooks('manual', 'review-unit', {} as never);
	const data: INodeExecutionData[] = items.map((json) => ({ json }));
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor({ apiKey: 'unused', baseUrl: 'https://api.example.com/v1' }, hooks),
		'manual',
		run,
		0,
		data,
		{ main: [data] },
		{ node, data: { main: [data] }, source: null },
		[],
	);
	return { context, workflow, data };
}

/** What each item asked, with the Decide node of these parameters wired into Review. */
function asked(
	parameters: IDataObject,
	items: IDataObject[],
	adjust?: (workflow: Workflow) => void,
) {
	const { context, workflow, data } = reviewHost(
		[{ name: DECIDE, parameters: decideParameters(parameters) }],
		items,
	);
	adjust?.(workflow);
	const source = decideSourceOf(context);
	expect(source?.name).toBe(DECIDE);
	return askedInputs(context, data, decision, source);
}

/** A Decide output item: the fields it was given, and the answer it wrote. */
const answered = (
	json: IDataObject,
	answer: IDataObject = { run_id: 'run_1', status: 'uncertain' },
) => ({
	...json,
	decision: answer,
});

describe('askedInputs: Decide in Map Fields mode', () => {
	const mapper = (value: IDataObject, mappingMode = 'defineBelow') => ({
		inputMode: 'mapFields',
		inputFields: {
			mappingMode,
			value,
			matchingColumns: [],
			schema: decision.context.fields.map((field) => ({
				id: field.name,
				displayName: field.name,
				required: field.required,
				defaultMatch: false,
				display: true,
				type: 'string',
			})),
		},
	});

	it("evaluates the mapping on each item, as Decide did: each item's own values", () => {
		const items = [
			answered({ title: 'Refund', mail: 'ana@example.com' }),
			answered({ title: 'Crash', mail: 'li@example.com' }),
		];
		expect(
			asked(
				mapper({ subject: '={{ $json.title }}', email: '={{ $json.mail.toUpperCase() }}' }),
				items,
			),
		).toEqual([
			{ subject: 'Refund', email: 'ANA@EXAMPLE.COM' },
			{ subject: 'Crash', email: 'LI@EXAMPLE.COM' },
		]);
	});

	it('keeps a fixed value, and leaves out a mapping to a field the item does not have', () => {
		const items = [answered({ title: 'Refund' })];
		expect(
			asked(
				mapper({ subject: '={{ $json.title }}', email: '={{ $json.mail }}', plan: 'pro' }),
				items,
			),
		).toEqual([{ subject: 'Refund', plan: 'pro' }]);
	});

	it('values keyed by JavaScript’s own names, as Decide sends them', () => {
		const items = [answered({ value: 'v' })];
		const [input] = asked(
			mapper(jsonObject(JS_FIELD_NAMES.map((name) => [name, `={{ $json.value + "-${name}" }}`]))),
			items,
		);
		// n8n's deepCopy drops parameter keys `constructor` and `__proto__` before a node reads
		// them (Decide as well: test/node/js-names.test.ts); the others are own values.
		const kept = JS_FIELD_NAMES.filter((name) => name !== 'constructor' && name !== '__proto__');
		expect(ownKeys(input)).toEqual(kept);
		for (const name of kept) expect(ownValue(input, name)).toBe(`v-${name}`);
	});

	it('evaluates an expression to what it gives (a number, an object), not to text', () => {
		const items = [answered({ count: 3, nested: { a: 1 } })];
		expect(
			asked(mapper({ subject: '={{ $json.count + 1 }}', email: '={{ $json.nested }}' }), items),
		).toEqual([{ subject: 4, email: { a: 1 } }]);
	});

	it("auto-map: the item's own fields of the mapper's names, `constructor` only when the item has it", () => {
		const items = [
			answered({ subject: 'Refund', email: 'ana@example.com', other: 'not mapped' }),
			jsonObject<IDataObject>([
				['subject', 'Crash'],
				['constructor', 'own value'],
				['decision', { status: 'uncertain' }],
			]),
		];
		const inputs = asked(mapper(null as never, 'autoMapInputData'), items);
		expect(inputs).toEqual([
			{ subject: 'Refund', email: 'ana@example.com' },
			jsonObject([
				['subject', 'Crash'],
				['constructor', 'own value'],
			]),
		]);
		expect(Object.keys(inputs[0] as object)).not.toContain('constructor');
	});

	it('auto-map with no fields in the mapper: the whole item, without the answer', () => {
		const parameters = mapper(null as never, 'autoMapInputData');
		parameters.inputFields.schema = [];
		expect(asked(parameters, [answered({ subject: 'Refund', plan: 'pro' })])).toEqual([
			{ subject: 'Refund', plan: 'pro' },
		]);
	});
});

describe('askedInputs: Decide in Text mode', () => {
	it('reads the text expression on each item', () => {
		expect(
			asked({ inputMode: 'text', text: '={{ $json.body }}' }, [
				answered({ body: 'I was charged twice' }),
				answered({ body: 'The app crashes' }),
			]),
		).toEqual(['I was charged twice', 'The app crashes']);
	});

	it('a fixed text is the text', () => {
		expect(asked({ inputMode: 'text', text: 'Same for all' }, [answered({})])).toEqual([
			'Same for all',
		]);
	});

	it("n8n's default, `{{ $json.text }}`, also when the saved node lacks the parameter", () => {
		const items = [answered({ text: 'Where is my parcel?' })];
		expect(asked({ inputMode: 'text' }, items)).toEqual(['Where is my parcel?']);
		// A node saved without it (n8n fills defaults in when it loads a workflow; Review does too).
		expect(
			asked({ inputMode: 'text' }, items, (workflow) => {
				delete workflow.nodes[DECIDE].parameters.text;
			}),
		).toEqual(['Where is my parcel?']);
	});

	it('an item whose input Decide could not read (an empty text) has none', () => {
		expect(
			asked({ inputMode: 'text', text: '={{ $json.body }}' }, [
				answered({ body: 'Fine' }),
				{ body: '   ', error: { message: 'Item 1: the Text input is empty' } },
				{ error: { message: 'Item 2: the Text input is empty' } },
			]),
		).toEqual(['Fine', undefined, undefined]);
	});
});

describe('askedInputs: Decide in JSON mode', () => {
	it('the default, `{{ $json }}`, is the whole item as Decide got it: without the answer it wrote', () => {
		const items = [
			answered({ subject: 'Refund', email: 'ana@example.com' }),
			// A failed item (continue on fail) carries Decide's `error` instead.
			{ subject: 'Crash', error: { message: 'The service did not answer' } },
			// An item's own `error` field stays when Decide answered it.
			answered({ subject: 'Bug', error: 'E42 on login' }),
		];
		expect(asked({ inputMode: 'json' }, items)).toEqual([
			{ subject: 'Refund', email: 'ana@example.com' },
			{ subject: 'Crash' },
			{ subject: 'Bug', error: 'E42 on login' },
		]);
	});

	it('the answer is found under Decide’s Result Field option', () => {
		const items = [
			{ subject: 'Refund', decision: 'its own field', routing: { status: 'uncertain' } },
		];
		expect(asked({ inputMode: 'json', options: { resultField: ' routing ' } }, items)).toEqual([
			{ subject: 'Refund', decision: 'its own field' },
		]);
	});

	it('a JSON expression is evaluated on the item', () => {
		const items = [answered({ title: 'Refund', tier: 'pro' })];
		expect(
			asked(
				{ inputMode: 'json', jsonInput: '={{ { subject: $json.title, plan: $json.tier } }}' },
				items,
			),
		).toEqual([{ subject: 'Refund', plan: 'pro' }]);
	});

	it('a JSON expression naming a field an item lacks: the page shows the others', () => {
		const items = [answered({ title: 'Refund' })];
		const inputs = asked(
			{ inputMode: 'json', jsonInput: '={{ { subject: $json.title, plan: $json.tier } }}' },
			items,
		);
		const page = reviewPageOf({
			items: items.map((json) => ({ json })),
			asked: inputs,
			decision,
			answers: [],
			resultField: 'decision',
			showPersonalData: false,
		});
		expect(page.items[0].fields).toEqual([{ name: 'subject', value: 'Refund', personal: false }]);
	});

	it('JSON typed in the parameter: keys `__proto__` and `constructor` as written', () => {
		const [input] = asked(
			{ inputMode: 'json', jsonInput: '{"__proto__": "p", "constructor": "c"}' },
			[answered({})],
		);
		expect(ownKeys(input)).toEqual(['__proto__', 'constructor']);
		expect(ownValue(input, '__proto__')).toBe('p');
	});

	it('an item whose JSON input is not an object has none; the others keep theirs', () => {
		const items = [
			answered({ payload: '{"subject":"Refund"}' }),
			answered({ payload: '[1,2]' }),
			answered({ payload: 'nope' }),
		];
		expect(asked({ inputMode: 'json', jsonInput: '={{ $json.payload }}' }, items)).toEqual([
			{ subject: 'Refund' },
			undefined,
			undefined,
		]);
	});
});

describe('askedInputs without a Decide source', () => {
	it("shows the decision's declared fields found on the item by name, nothing else", () => {
		const { context, data } = reviewHost(
			[],
			[
				answered({ subject: 'Refund', email: 'ana@example.com', secret: 'not declared' }),
				answered({ subject: 'Crash' }),
				jsonObject<IDataObject>([
					['constructor', 'own value'],
					['toString', 'not declared'],
				]),
			],
		);
		const inputs = askedInputs(context, data, decision, undefined);
		expect(inputs).toEqual([
			{ subject: 'Refund', email: 'ana@example.com' },
			{ subject: 'Crash' },
			jsonObject([['constructor', 'own value']]),
		]);
		// `constructor` is a declared field, and not read from the prototype of an item without it.
		expect(Object.keys(inputs[1] as object)).toEqual(['subject']);
	});
});

describe('decideSourceOf', () => {
	const decide = (name: string, parameters: IDataObject = {}, outputs?: number[]): Parent => ({
		name,
		parameters: decideParameters({ inputMode: 'text', ...parameters }),
		outputs,
	});
	const sourceOf = (parents: Parent[]) => decideSourceOf(reviewHost(parents, [{}]).context);

	it('one Decide node wired in: that node, with its saved parameters', () => {
		const source = sourceOf([decide(DECIDE, { text: '={{ $json.body }}' })]);
		expect(source?.name).toBe(DECIDE);
		expect(source?.parameters).toMatchObject({
			operation: 'decide',
			inputMode: 'text',
			text: '={{ $json.body }}',
		});
	});

	it('one Decide node wired in by two outputs (Uncertain and Pending Review): still that node', () => {
		expect(sourceOf([decide(DECIDE, {}, [4, 5])])?.name).toBe(DECIDE);
	});

	const merge = (from: Array<Parent & { index?: number }>, mode?: string): Parent => ({
		name: 'Doubtful tickets',
		type: 'n8n-nodes-base.merge',
		parameters: mode ? { mode } : {},
		from,
	});

	it("Uncertain and Pending Review gathered by a Merge (Append, n8n's default): that Decide node", () => {
		const source = sourceOf([
			merge([
				{ ...decide(DECIDE, { text: '={{ $json.body }}' }, [4]), index: 0 },
				{ ...decide(DECIDE, { text: '={{ $json.body }}' }, [5]), index: 1 },
			]),
		]);
		expect(source?.name).toBe(DECIDE);
		expect(source?.parameters).toMatchObject({ text: '={{ $json.body }}' });
		expect(sourceOf([merge([decide(DECIDE, {}, [4])], 'append')])?.name).toBe(DECIDE);
	});

	test.each<[string, Parent]>([
		['a Merge that combines', merge([decide(DECIDE, {}, [4])], 'combine')],
		[
			'a Merge of Decide and another node',
			merge([
				decide(DECIDE, {}, [4]),
				{ name: 'Edit Fields', parameters: {}, type: 'n8n-nodes-base.set', index: 1 },
			]),
		],
	])('%s: none', (_name, parent) => {
		expect(sourceOf([parent])).toBeUndefined();
	});

	it('one Decide node and a node of another type: none (the other items must not be read through Decide’s mapping)', () => {
		expect(
			sourceOf([
				decide(DECIDE),
				{ name: 'Edit Fields', parameters: {}, type: 'n8n-nodes-base.set' },
			]),
		).toBeUndefined();
	});

	it('a Decide node saved without resource and operation (their defaults) is one', () => {
		const parent = decide(DECIDE);
		const { context, workflow } = reviewHost([parent], [{}]);
		delete workflow.nodes[DECIDE].parameters.resource;
		delete workflow.nodes[DECIDE].parameters.operation;
		expect(decideSourceOf(context)?.name).toBe(DECIDE);
	});

	test.each<[string, Parent[]]>([
		['two Decide nodes wired in', [decide('Decide A'), decide('Decide B')]],
		[
			'a node of another type',
			[{ name: 'Edit Fields', parameters: {}, type: 'n8n-nodes-base.set' }],
		],
		[
			'this node type with operation Evaluate',
			[{ name: 'Evaluate', parameters: decideParameters({ operation: 'evaluate' }) }],
		],
		[
			'this node type on another resource',
			[{ name: 'Get Many', parameters: { resource: 'template', operation: 'getAll' } }],
		],
		['nothing wired in', []],
	])('%s: none', (_name, parents) => {
		expect(sourceOf(parents)).toBeUndefined();
	});
});

describe("the page's answers and Review's outputs, as n8n reads the saved list", () => {
	it('each answer a person can pick carries the name of the output its item goes to', () => {
		const keys = [...JS_KEYS, 'billing', 'sales'];
		const schema = [
			...freshOutputsList({
				slug: 'ticket-routing',
				type: 'route',
				instructions: 'Which team?',
				options: keys,
			}),
			key('gone', { displayName: 'gone (no longer on the service)' }),
		];
		const renames = jsonObject([
			...keys.map((each): [string, string] => [each, ` Team ${each} `]),
			['gone', 'Old team'],
		]);
		const parameters = nodeParameters('review', schema, renames);
		// The webhook reads the list through getNodeParameter (n8n's copy of the parameters).
		const { context } = reviewHost([], [{}], parameters);
		const routes = context.getNodeParameter('routes', 0) as {
			schema: OutputsListEntry[];
			value: Record<string, unknown>;
		};
		const answers = reviewAnswers(routes.schema, routes.value, keys);
		const outputs = outputsInN8n(parameters);
		const layout = reviewLayout(routes.schema);
		expect(answers.map((answer) => answer.key)).toEqual(keys);
		for (const answer of answers) {
			expect(answer.label).toBe(outputs[layout.indexOf.get(answer.key)!]);
		}
		// n8n drops the renames keyed `constructor` and `prototype` on both sides alike.
		expect(answers.map((answer) => answer.label)).toEqual(
			keys.map((each) => (each === 'constructor' || each === 'prototype' ? each : `Team ${each}`)),
		);
		expect(outputs).toContain('Old team');
		expect(answers.map((answer) => answer.label)).not.toContain('Old team');
	});
});

describe('the time the page names for items left for later (reviewUntil)', () => {
	const UNTIL = '2026-11-30T14:05:00.000Z';

	/** n8n-core's webhook context of the Review node, on an execution's data as n8n loads it. */
	function webhookOn(run: IRunExecutionData | null) {
		const { workflow } = reviewHost([], [{}]);
		const node = workflow.getNode(REVIEW)!;
		const hooks = new ExecutionLifecycleHooks('webhook', 'review-unit', {} as never);
		const additionalData = additionalDataFor(
			{ apiKey: 'unused', baseUrl: 'https://api.example.com/v1' },
			hooks,
		);
		const webhookData = {
			httpMethod: 'GET',
			node: REVIEW,
			path: '',
			webhookDescription: reviewWebhooks[0],
			workflowId: 'review-unit',
			workflowExecuteAdditionalData: additionalData,
		} as IWebhookData;
		return new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], run);
	}

	it('is what execute.ts kept in the custom data, read with no expression (n8n 2 evaluates them in an isolate, where $execution.customData answers nothing)', () => {
		const run = createRunExecutionData();
		// execute.ts keeps it so; n8n saves the custom data with the waiting execution.
		reviewHost([], [{}], {}, run).context.customData.set(REVIEW_UNTIL, UNTIL);
		const webhook = webhookOn(run);
		jest.spyOn(webhook, 'evaluateExpression').mockReturnValue(undefined);
		expect(reviewUntil(webhook)).toBe(UNTIL);
	});

	it('is undefined, without throwing, when there is none or no execution data', () => {
		expect(reviewUntil(webhookOn(createRunExecutionData()))).toBeUndefined();
		expect(reviewUntil(webhookOn(null))).toBeUndefined();
	});
});
