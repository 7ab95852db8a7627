/**
 * The editor's fields of Create: one block per shape (template, description, definition).
 * Long because it is declarations only (n8n's property objects), one block per shape.
 */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';
import { BOUNDS } from '../../../../../src/contract';
import { localeOptions } from '../../common';

const typeOptions = [
	{ name: 'Route', value: 'route', description: 'Pick exactly one option' },
	{
		name: 'Score',
		value: 'score',
		description: 'Place the input on a scale of levels, lowest first',
	},
	{ name: 'Classify', value: 'classify', description: 'Return every label over its threshold' },
];

const properties: INodeProperties[] = [
	{
		displayName: 'Create From',
		name: 'createFrom',
		type: 'options',
		noDataExpression: true,
		default: 'template',
		options: [
			{ name: 'Template', value: 'template', description: 'Start from a catalogue template' },
			{
				name: 'Description',
				value: 'description',
				description: 'One sentence; the service drafts the options and question',
			},
			{
				name: 'Definition',
				value: 'definition',
				description: 'Give the type, question and options yourself',
			},
		],
	},
	{
		displayName: 'Template Locale',
		name: 'locale',
		type: 'options',
		default: 'en',
		options: localeOptions,
		displayOptions: { show: { createFrom: ['template'] } },
	},
	{
		displayName: 'Template Name or ID',
		name: 'template',
		type: 'options',
		typeOptions: { loadOptionsMethod: 'getTemplates', loadOptionsDependsOn: ['locale'] },
		default: '',
		required: true,
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		displayOptions: { show: { createFrom: ['template'] } },
	},
	{
		displayName: 'What the Decision Should Do',
		name: 'describe',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: 'e.g. Route support tickets to billing, technical or sales',
		description: `What the decision should do, in the language its question should use (at most ${BOUNDS.describeMax} characters)`,
		displayOptions: { show: { createFrom: ['description'] } },
	},
	{
		displayName: 'Name',
		name: 'decisionName',
		type: 'string',
		default: '',
		required: true,
		description: `Name of the decision (at most ${BOUNDS.nameMax} characters); the slug is derived from it`,
		displayOptions: { show: { createFrom: ['definition'] } },
	},
	{
		displayName: 'Type',
		name: 'decisionType',
		type: 'options',
		default: 'route',
		options: typeOptions,
		displayOptions: { show: { createFrom: ['definition'] } },
	},
	{
		displayName: 'Instructions',
		name: 'instructions',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		required: true,
		placeholder: 'e.g. Which team should handle this support ticket?',
		description: 'The closed question asked about each input',
		displayOptions: { show: { createFrom: ['definition'] } },
	},
	{
		displayName: 'Items Given As',
		name: 'itemsMode',
		type: 'options',
		default: 'list',
		options: [
			{
				name: 'List',
				value: 'list',
				description: 'One entry per option, level or label, with a description',
			},
			{ name: 'Text', value: 'text', description: 'Separated by commas or by lines' },
		],
		displayOptions: { show: { createFrom: ['definition'] } },
	},
	{
		displayName: 'Items',
		name: 'itemsText',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: 'e.g. billing, technical, sales',
		description:
			'Options (route, 2 to 255), levels lowest first (score, 2 to 10) or labels (classify, 1 to 50)',
		displayOptions: { show: { createFrom: ['definition'], itemsMode: ['text'] } },
	},
	{
		displayName: 'Items',
		name: 'itemsList',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		placeholder: 'Add Item',
		description: 'Options (route), levels lowest first (score) or labels (classify)',
		displayOptions: { show: { createFrom: ['definition'], itemsMode: ['list'] } },
		options: [
			{
				displayName: 'Item',
				name: 'item',
				values: [
					{
						displayName: 'Key or Label',
						name: 'key',
						type: 'string',
						default: '',
						description:
							'Option or label key (normalised: "Billing Issue" becomes billing-issue), or the level\'s label',
					},
					{
						displayName: 'Description',
						name: 'description',
						type: 'string',
						default: '',
						description: 'One sentence saying when the item applies',
					},
					{
						displayName: 'Threshold',
						name: 'threshold',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
						default: 0.5,
						description:
							'Classify only: probability from which the label is retained (the API default is 0.5)',
					},
				],
			},
		],
	},
	{
		displayName: 'Context Fields',
		name: 'contextFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		default: {},
		placeholder: 'Add Field',
		description: 'Fields the input of each call carries; they build the input form of Decide',
		displayOptions: { show: { createFrom: ['definition'] } },
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{ displayName: 'Description', name: 'description', type: 'string', default: '' },
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{
						displayName: 'Personal Data',
						name: 'pii',
						type: 'boolean',
						default: false,
						description: 'Whether the value is replaced by a token before any model call',
					},
					{
						displayName: 'Required',
						name: 'required',
						type: 'boolean',
						default: false,
						description: 'Whether every call must carry this field',
					},
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						default: 'string',
						options: ['string', 'number', 'boolean', 'object', 'array'].map((value) => ({
							name: value[0].toUpperCase() + value.slice(1),
							value,
						})),
					},
				],
			},
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Context Description',
				name: 'contextDescription',
				type: 'string',
				default: '',
				description: 'Definition only: what the input of each call is',
				displayOptions: { show: { '/createFrom': ['definition'] } },
			},
			{
				displayName: 'Name',
				name: 'customName',
				type: 'string',
				default: '',
				description:
					"Name of the decision; by default the template's name or one drafted from the description",
				displayOptions: { show: { '/createFrom': ['template', 'description'] } },
			},
			{
				displayName: 'Publish',
				name: 'publish',
				type: 'boolean',
				default: true,
				description:
					'Whether to publish version 1 right away (otherwise the decision stays a draft)',
			},
			{
				displayName: 'Slug',
				name: 'slug',
				type: 'string',
				default: '',
				placeholder: 'e.g. ticket-routing',
				description:
					'Explicit identifier; derived from the name by default. Creating twice with the same slug returns the existing decision.',
			},
			{
				displayName: 'Summary',
				name: 'summary',
				type: 'string',
				default: '',
				description:
					"Short description of the decision, shown in the app (the API's description field)",
			},
			{
				displayName: 'Type',
				name: 'imposedType',
				type: 'options',
				default: 'route',
				options: typeOptions,
				description: 'Description only: impose the type of the drafted decision',
				displayOptions: { show: { '/createFrom': ['description'] } },
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['decision'], operation: ['create'] } },
	properties,
);
