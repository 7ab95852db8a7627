/**
 * The POST /decisions body builders (nodes/DecisionService/actions/decision/create/request.ts):
 * one test per row of the table in that file's top comment, run on a real n8n-core execute context
 * so parameters read as n8n reads them (the node's defaults filled in, expressions resolved per item).
 */
import { ExecuteContext, ExecutionLifecycleHooks } from 'n8n-core';
import {
	Workflow,
	createRunExecutionData,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeParameters,
} from 'n8n-workflow';
import {
	NODE_NAME,
	SingleNodeTypes,
	additionalDataFor,
	decisionNode,
} from '../../harness/n8n-engine';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import {
	createRequest,
	definitionRequest,
	descriptionRequest,
	templateRequest,
} from '../../nodes/DecisionService/actions/decision/create/request';
import { JS_FIELD_NAMES, JS_KEYS, ownKeys } from '../support/js-names';

/** n8n-core's ExecuteContext for the node's Create operation with these parameters, on `items`. */
function createContext(
	parameters: INodeParameters,
	items: IDataObject[] = [{}],
): IExecuteFunctions {
	const workflow = new Workflow({
		id: 'create-request-unit',
		nodes: [
			decisionNode({ parameters: { resource: 'decision', operation: 'create', ...parameters } }),
		],
		connections: {},
		nodeTypes: new SingleNodeTypes(new DecisionService()),
		active: false,
		settings: { executionOrder: 'v1' },
	});
	const node = workflow.getNode(NODE_NAME)!;
	const hooks = new ExecutionLifecycleHooks('manual', 'create-request-unit', {} as never);
	const data: INodeExecutionData[] = items.map((json) => ({ json }));
	return new ExecuteContext(
		workflow,
		node,
		additionalDataFor({ apiKey: 'unused', baseUrl: 'https://api.example.com/v1' }, hooks),
		'manual',
		createRunExecutionData(),
		0,
		data,
		{ main: [data] },
		{ node, data: { main: [data] }, source: null },
		[],
	);
}

const body = (parameters: INodeParameters, itemIndex = 0, items?: IDataObject[]) =>
	createRequest(createContext(parameters, items), itemIndex) as unknown as Record<string, unknown>;

const definition = (extra: INodeParameters) =>
	body({
		createFrom: 'definition',
		decisionName: 'Ticket routing',
		instructions: 'Which team?',
		...extra,
	});

describe('template shape', () => {
	it('sends template and locale, and the locale defaults to en', () => {
		expect(body({ createFrom: 'template', template: 'support-triage', locale: 'fr' })).toEqual({
			template: 'support-triage',
			locale: 'fr',
		});
		expect(body({ createFrom: 'template', template: 'support-triage' })).toEqual({
			template: 'support-triage',
			locale: 'en',
		});
	});

	it('fills name, description, slug (trimmed) and publish: false from the additional fields', () => {
		expect(
			body({
				createFrom: 'template',
				template: 'support-triage',
				additionalFields: {
					customName: '  My triage ',
					summary: ' Routes tickets\n',
					slug: ' my-triage ',
					publish: false,
				},
			}),
		).toEqual({
			template: 'support-triage',
			locale: 'en',
			name: 'My triage',
			description: 'Routes tickets',
			slug: 'my-triage',
			publish: false,
		});
	});

	it('omits blank additional fields, publish: true, and fields of the other shapes', () => {
		const sent = body({
			createFrom: 'template',
			template: 'support-triage',
			additionalFields: {
				customName: '   ',
				summary: '',
				slug: ' \n',
				publish: true,
				imposedType: 'score',
				contextDescription: 'An email',
			},
		});
		expect(sent).toEqual({ template: 'support-triage', locale: 'en' });
		expect(ownKeys(sent)).toEqual(['template', 'locale']);
	});
});

describe('description shape', () => {
	it('sends describe, and name, type, description, slug and publish: false when given', () => {
		expect(body({ createFrom: 'description', describe: 'Route support tickets' })).toEqual({
			describe: 'Route support tickets',
		});
		expect(
			body({
				createFrom: 'description',
				describe: 'Route support tickets',
				additionalFields: {
					customName: ' Tickets ',
					imposedType: 'classify',
					summary: ' Sorts tickets ',
					slug: ' tickets ',
					publish: false,
				},
			}),
		).toEqual({
			describe: 'Route support tickets',
			name: 'Tickets',
			type: 'classify',
			description: 'Sorts tickets',
			slug: 'tickets',
			publish: false,
		});
	});

	it('omits blank fields and publish: true; a context description is not part of this shape', () => {
		expect(
			ownKeys(
				body({
					createFrom: 'description',
					describe: 'Route support tickets',
					additionalFields: {
						customName: ' ',
						summary: ' ',
						slug: '',
						publish: true,
						contextDescription: 'An email',
					},
				}),
			),
		).toEqual(['describe']);
	});

	it('reads each item with its own index (expressions resolved per item)', () => {
		const items = [{ text: 'first' }, { text: 'second' }];
		expect(body({ createFrom: 'description', describe: '={{ $json.text }}' }, 1, items)).toEqual({
			describe: 'second',
		});
	});
});

describe('definition shape', () => {
	it('sends name, type and instructions; name, summary, slug, publish from their own parameters', () => {
		expect(
			definition({
				decisionType: 'route',
				itemsMode: 'text',
				itemsText: 'billing, technical',
				additionalFields: {
					summary: ' Routes ',
					slug: ' ticket-routing ',
					publish: false,
					customName: 'not this one',
					imposedType: 'score',
				},
			}),
		).toEqual({
			name: 'Ticket routing',
			instructions: 'Which team?',
			type: 'route',
			options: 'billing, technical',
			description: 'Routes',
			slug: 'ticket-routing',
			publish: false,
		});
	});

	it('route as text: the options stay one string (the service splits it)', () => {
		expect(
			definition({ decisionType: 'route', itemsMode: 'text', itemsText: 'a\nb' }).options,
		).toBe('a\nb');
	});

	it('score and classify as text: split by lines, or by commas, trimmed, blanks dropped', () => {
		expect(
			definition({ decisionType: 'score', itemsMode: 'text', itemsText: ' low ,, high ' }).levels,
		).toEqual(['low', 'high']);
		expect(
			definition({
				decisionType: 'classify',
				itemsMode: 'text',
				itemsText: 'urgent, angry\n\n vip ',
			}).labels,
		).toEqual(['urgent, angry', 'vip']);
	});

	it('text mode ignores the list, and list mode ignores the text', () => {
		const itemsList = { item: [{ key: 'from-list' }, { key: 'other' }] };
		expect(
			definition({ decisionType: 'score', itemsMode: 'text', itemsText: 'a, b', itemsList }).levels,
		).toEqual(['a', 'b']);
		expect(
			definition({ decisionType: 'score', itemsMode: 'list', itemsText: 'a, b', itemsList }).levels,
		).toEqual([{ label: 'from-list' }, { label: 'other' }]);
	});

	const listed = {
		item: [
			{ key: ' billing ', description: ' Invoices ', threshold: 0.8 },
			{ key: '   ', description: 'no key: dropped' },
			{ key: 'technical', description: '  ', threshold: 0 },
			{ key: 'sales' },
		],
	};

	it('route as a list: options with key and description (trimmed), no threshold, keyless dropped', () => {
		expect(
			definition({ decisionType: 'route', itemsMode: 'list', itemsList: listed }).options,
		).toEqual([
			{ key: 'billing', description: 'Invoices' },
			{ key: 'technical' },
			{ key: 'sales' },
		]);
	});

	it('score as a list: levels with the key as label', () => {
		expect(
			definition({ decisionType: 'score', itemsMode: 'list', itemsList: listed }).levels,
		).toEqual([
			{ label: 'billing', description: 'Invoices' },
			{ label: 'technical' },
			{ label: 'sales' },
		]);
	});

	it('classify as a list: labels with their threshold (0 kept, 0.5 when none)', () => {
		expect(
			definition({ decisionType: 'classify', itemsMode: 'list', itemsList: listed }).labels,
		).toEqual([
			{ key: 'billing', description: 'Invoices', threshold: 0.8 },
			{ key: 'technical', threshold: 0 },
			{ key: 'sales', threshold: 0.5 },
		]);
	});

	it('the builder itself gives a label without a threshold 0.5', () => {
		// n8n fills the Threshold default (0.5) into each saved entry, so only a plain parameter
		// reader (the list as an API or an old workflow might hold it) reaches the builder's fallback.
		const parameters: IDataObject = {
			decisionType: 'classify',
			decisionName: 'n',
			instructions: 'i',
			itemsMode: 'list',
			itemsList: { item: [{ key: 'vip' }] },
		};
		const n8n = {
			getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
				parameters[name] ?? fallback,
		} as unknown as IExecuteFunctions;
		expect(definitionRequest(n8n, 0, {}).labels).toEqual([{ key: 'vip', threshold: 0.5 }]);
	});

	it('context: named fields (trimmed) with their settings, the description from the additional fields', () => {
		expect(
			definition({
				decisionType: 'route',
				itemsMode: 'text',
				itemsText: 'a, b',
				contextFields: {
					field: [
						{ name: ' email ', description: ' The body ', type: 'string', required: true },
						{ name: '  ', description: 'nameless: dropped' },
						{ name: 'amount', description: ' ', type: 'number', pii: true },
					],
				},
				additionalFields: { contextDescription: ' A support email ' },
			}).context,
		).toEqual({
			description: 'A support email',
			fields: [
				{ name: 'email', description: 'The body', type: 'string', required: true, pii: false },
				{ name: 'amount', type: 'number', required: false, pii: true },
			],
		});
	});

	it('context: a description alone gives empty fields; nothing at all omits context', () => {
		const base = { decisionType: 'route', itemsMode: 'text', itemsText: 'a, b' };
		expect(
			definition({ ...base, additionalFields: { contextDescription: 'Mail' } }).context,
		).toEqual({ description: 'Mail', fields: [] });
		const without = definition({
			...base,
			contextFields: { field: [{ name: ' ' }] },
			additionalFields: { contextDescription: '  ' },
		});
		expect(ownKeys(without)).not.toContain('context');
	});
});

describe("JavaScript's own names", () => {
	it('as option, level and label keys and as a slug: ordinary own properties of plain entries', () => {
		const item = JS_KEYS.map((key) => ({ key, description: key }));
		for (const type of ['route', 'score', 'classify'] as const) {
			const sent = definition({
				decisionType: type,
				itemsMode: 'list',
				itemsList: { item },
				additionalFields: { slug: 'constructor' },
			});
			expect(Object.getOwnPropertyDescriptor(sent, 'slug')?.value).toBe('constructor');
			const entries = (sent.options ?? sent.levels ?? sent.labels) as Array<
				Record<string, unknown>
			>;
			expect(entries.map((entry) => entry[type === 'score' ? 'label' : 'key'])).toEqual([
				...JS_KEYS,
			]);
			for (const entry of entries) {
				expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
				expect(ownKeys(entry)[0]).toBe(type === 'score' ? 'label' : 'key');
			}
			expect(JSON.parse(JSON.stringify(sent))).toEqual(sent);
		}
	});

	it('as context field names: values of `name`, nothing added to or taken from the prototype', () => {
		const sent = definition({
			decisionType: 'route',
			itemsMode: 'text',
			itemsText: 'a, b',
			contextFields: { field: JS_FIELD_NAMES.map((name) => ({ name, description: name })) },
		});
		const fields = (sent.context as { fields: Array<Record<string, unknown>> }).fields;
		expect(fields.map((field) => field.name)).toEqual([...JS_FIELD_NAMES]);
		expect(fields.map((field) => field.description)).toEqual([...JS_FIELD_NAMES]);
		for (const field of fields) expect(Object.getPrototypeOf(field)).toBe(Object.prototype);
		expect(JSON.parse(JSON.stringify(sent.context))).toEqual(sent.context);
	});

	it('a name, summary and slug of the template shape', () => {
		const sent = body({
			createFrom: 'template',
			template: '__proto__',
			additionalFields: { customName: '__proto__', summary: 'constructor', slug: 'constructor' },
		});
		expect(ownKeys(sent).sort()).toEqual(
			['description', 'locale', 'name', 'slug', 'template'].sort(),
		);
		expect(sent).toEqual({
			template: '__proto__',
			locale: 'en',
			name: '__proto__',
			description: 'constructor',
			slug: 'constructor',
		});
	});
});

describe('the builders called directly', () => {
	it('templateRequest, descriptionRequest and definitionRequest pick their own parameters', () => {
		const n8n = createContext({
			createFrom: 'template',
			template: 'support-triage',
		});
		expect(templateRequest(n8n, 0, { customName: 'x' })).toEqual({
			template: 'support-triage',
			locale: 'en',
			name: 'x',
		});
		const described = createContext({ createFrom: 'description', describe: 'Sort mail' });
		expect(descriptionRequest(described, 0, { imposedType: 'score' })).toEqual({
			describe: 'Sort mail',
			type: 'score',
		});
	});
});
