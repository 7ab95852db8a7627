/** The editor's fields of Decide: decision, input, outputs and options (declarations only, hence the length). */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';
import { toolDescriptionOf } from '../../../outputs/configured';
import { OUTPUTS_LIST_PARAMETER } from '../../../outputs/list';
import { decisionLocator } from '../../common';
import { DEFAULT_MAX_CONCURRENCY, MAX_IN_FLIGHT } from '../../../../../src/client';

/** Options Decide and Evaluate share (one definition each). */
export const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 10 },
	default: 15,
	description: 'How long to wait for each answer; the service asks for at least 10 seconds',
};

export const validateInputOption: INodeProperties = {
	displayName: 'Validate Input Locally',
	name: 'validateInput',
	type: 'boolean',
	default: true,
	description:
		'Whether to check required fields and types before calling, so an invalid item fails alone and spends no quota',
};

/** The Outputs list Decide and Review share (Review shows its answer entries only). */
export const outputsListField: INodeProperties = {
	displayName: 'Outputs',
	name: OUTPUTS_LIST_PARAMETER,
	type: 'resourceMapper',
	noDataExpression: true,
	default: { mappingMode: 'defineBelow', value: null },
	required: true,
	typeOptions: {
		loadOptionsDependsOn: ['decision.value'],
		resourceMapper: {
			resourceMapperMethod: 'getRouteOutputs',
			mode: 'map',
			valuesLabel: 'Output names (optional)',
			fieldWords: { singular: 'output', plural: 'outputs' },
			addAllFields: true,
			multiKeyMatch: false,
			supportAutoMap: false,
			hideNoDataError: true,
			noFieldsError: 'Pick a decision first: its options, levels or labels become the outputs.',
		},
	},
};

export const outputsListNotice: INodeProperties = {
	// A notice, not the list's hint: n8n shows no hint under a resource mapper.
	displayName:
		'A score goes to its level; a classified item goes to each of its labels. A refresh never moves an output; deleting a row deletes its output and moves the wires after it.',
	name: 'routesNotice',
	type: 'notice',
	default: '',
};

const INPUT_MODES: INodeProperties['options'] = [
	{
		name: 'Map Fields',
		value: 'mapFields',
		description: 'Fill in the context fields the decision declares',
	},
	{ name: 'Text', value: 'text', description: 'Send one free text' },
	{
		name: 'JSON',
		value: 'json',
		description: 'Send a JSON object (by default the whole item)',
	},
];

const properties: INodeProperties[] = [
	decisionLocator,
	{
		displayName: 'Input',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'mapFields',
		options: INPUT_MODES,
		displayOptions: { hide: { '@tool': [true] } },
	},
	// As an agent's tool, the model writes the text: nothing to fill in to get started.
	{
		displayName: 'Input',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'text',
		options: INPUT_MODES,
		displayOptions: { show: { '@tool': [true] } },
	},
	{
		displayName: 'Fields',
		name: 'inputFields',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: ['decision.value'],
			resourceMapper: {
				resourceMapperMethod: 'getContextFields',
				mode: 'add',
				fieldWords: { singular: 'field', plural: 'fields' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: true,
				valuesLabel: 'Context Fields',
				// Nothing red before the user did anything: with no decision picked the method returns an
				// info notice instead (emptyFieldsNotice), and n8n's "no fields" error stays hidden.
				hideNoDataError: true,
				noFieldsError:
					'Pick a decision to load its context fields. If it declares none, use Text or JSON input.',
			},
		},
		displayOptions: { show: { inputMode: ['mapFields'] } },
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '={{ $json.text }}',
		required: true,
		description: 'The free text the decision is asked about',
		displayOptions: { show: { inputMode: ['text'] }, hide: { '@tool': [true] } },
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 2 },
		default:
			"={{ $fromAI('text', 'The text the decision is asked about, as the user wrote it', 'string') }}",
		required: true,
		description: 'What the agent sends; by default the model fills it in',
		displayOptions: { show: { inputMode: ['text'], '@tool': [true] } },
	},
	{
		displayName: 'JSON',
		name: 'jsonInput',
		type: 'json',
		default: '={{ $json }}',
		required: true,
		description: 'The input object; by default the whole incoming item',
		displayOptions: { show: { inputMode: ['json'] } },
	},
	{
		displayName: 'Output',
		name: 'outputMode',
		type: 'options',
		noDataExpression: true,
		// A tool answers its agent on one output, whatever this says (see tool.ts).
		displayOptions: { hide: { '@tool': [true] } },
		default: 'routeToOutputs',
		options: [
			{
				name: 'Route to Outputs',
				value: 'routeToOutputs',
				description:
					'One output per option, level or label, plus Uncertain, Pending Review and Other',
			},
			{
				name: 'Single Output',
				value: 'singleOutput',
				// n8n drops the wires of outputs that vanish: say so before the user picks it.
				description:
					'Add the result to each item, on one output (removes the other outputs’ wires)',
			},
		],
	},
	{
		...outputsListField,
		displayOptions: { show: { outputMode: ['routeToOutputs'], '@tool': [false] } },
	},
	{
		...outputsListNotice,
		displayOptions: { show: { outputMode: ['routeToOutputs'], '@tool': [false] } },
	},
	// The tool variant: the same list, loaded when the decision is picked, names the answers in
	// the description the agent reads. Nothing to fill in. n8n's editor reloads a list when the
	// field it depends on changes only if it can resolve every parameter of the node, and the
	// tool's Text, $fromAI(…), cannot be resolved before the agent has run: so the list is also
	// reloaded whenever the panel opens and finds it saved for another decision (as n8n's own
	// Call n8n Workflow Tool does). toolDescriptionOf never names a list saved for another decision.
	{
		displayName: 'Answers',
		name: OUTPUTS_LIST_PARAMETER,
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		typeOptions: {
			loadOptionsDependsOn: ['decision.value'],
			resourceMapper: {
				resourceMapperMethod: 'getRouteOutputs',
				mode: 'map',
				valuesLabel: 'Answers the decision can give',
				fieldWords: { singular: 'answer', plural: 'answers' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
				refreshStaleSchemaOnOpen: true,
				noFieldsError: 'Pick a decision first: its answers are listed in the tool description.',
			},
		},
		displayOptions: { show: { '@tool': [true] } },
	},
	{
		displayName:
			"As a tool, Decide answers the agent with the compact result (the answer, status, confidence, review URL, run ID) or a short error text, whatever the output settings. The agent reads the decision's question and answers in the tool description.",
		name: 'toolNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { '@tool': [true] } },
	},
	{
		displayName: 'Tool Description',
		name: 'descriptionType',
		type: 'options',
		noDataExpression: true,
		default: 'fromDecision',
		options: [
			{
				name: 'From the Decision',
				value: 'fromDecision',
				description: "The decision's question and answers, as loaded above",
			},
			{ name: 'Set Manually', value: 'manual', description: 'Write the description yourself' },
		],
		displayOptions: { show: { '@tool': [true] } },
	},
	// Declaring toolDescription keeps n8n from adding its own, whose automatic text cannot name the
	// decision. n8n resolves an expression here when it builds the tool (see expressions.ts).
	{
		displayName: 'Description',
		name: 'toolDescription',
		type: 'hidden',
		default: `={{(${toolDescriptionOf})($parameter)}}`,
		displayOptions: { show: { '@tool': [true], descriptionType: ['fromDecision'] } },
	},
	{
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		description: 'What the agent reads about this tool: what it decides and the answers it gives',
		displayOptions: { show: { '@tool': [true], descriptionType: ['manual'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Close Call Gap',
				name: 'closeCallGap',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
				default: 0,
				description:
					'Send an answer to Uncertain when its two most likely answers are this close (for example 0.1); 0 turns it off',
				displayOptions: { hide: { '@tool': [true] } },
			},
			{
				displayName: 'Engine',
				name: 'engine',
				type: 'options',
				default: 'auto',
				options: [
					{
						name: 'Automatic',
						value: 'auto',
						description: 'The primary engine, with the fallback when it does not answer',
					},
					{ name: 'Primary (Jev)', value: 'jev' },
					{ name: 'LLM Fallback', value: 'llm' },
				],
			},
			{
				displayName: 'Max Concurrency',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_IN_FLIGHT },
				default: DEFAULT_MAX_CONCURRENCY,
				description:
					"Most items sent to the service at once; lower it only to spare a service or proxy that cannot take that many (the plan's rate limit is respected whatever it is)",
			},
			{
				displayName: 'Max Decides per Execution',
				name: 'maxDecides',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'Most items sent to the service in one execution; items beyond it fail without being sent (0 = no limit)',
			},
			{
				displayName: 'Max Wait on Rate Limit (Seconds)',
				name: 'maxRateLimitWait',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 120,
				description: "Longest time one item may wait for the plan's rate limit before it fails",
			},
			{
				displayName: 'Result Field',
				name: 'resultField',
				type: 'string',
				default: 'decision',
				description: 'Name of the field the result is written to on each item',
				displayOptions: { hide: { '@tool': [true] } },
			},
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				description:
					'Whether to return only the answer, status, confidence and run ID (turn off for the full run: probabilities, engine, model, personal-data count)',
				displayOptions: { hide: { '@tool': [true] } },
			},
			timeoutOption,
			validateInputOption,
			{
				displayName: 'Version',
				name: 'version',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description: 'Version to run; 0 runs the live version',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['decision'], operation: ['decide'] } },
	properties,
);

/** Decide's options as the node reads them (the API's own `options` is DecideRequestOptions). */
export interface DecideNodeOptions {
	closeCallGap?: number;
	concurrency?: number;
	maxDecides?: number;
	engine?: 'auto' | 'jev' | 'llm';
	maxRateLimitWait?: number;
	resultField?: string;
	simplify?: boolean;
	timeout?: number;
	validateInput?: boolean;
	version?: number;
}
