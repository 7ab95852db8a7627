/** The editor's fields of Decide: decision, input, outputs and options (declarations only, hence the length). */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';
import { toolDescriptionOf } from '../../../pipeline/tool-description';
import { decisionAndInput, timeoutOption, validateInputOption } from '../../../pipeline/fields';
import {
	NO_DECISION_PICKED,
	outputsListField,
	outputsListNotice,
	toolAnswersField,
} from '../../../outputs/parameter';
import { DEFAULT_MAX_CONCURRENCY, MAX_IN_FLIGHT } from '../../../../../src/client';

const properties: INodeProperties[] = [
	...decisionAndInput,
	{
		displayName: 'Output',
		name: 'outputMode',
		type: 'options',
		noDataExpression: true,
		// A tool answers its agent on one output, whatever this says (see tool.ts). Hidden until a
		// decision is picked: its outputs come from the decision.
		displayOptions: { hide: { '@tool': [true], ...NO_DECISION_PICKED } },
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
				// n8n keeps wires by output index when the outputs change: the routed outputs stay,
				// empty, so no wire drawn for an answer gets every item (outputs/plan.ts).
				description:
					'Add the result to each item, on one new output, All Items; outputs you wired stay in place, empty and marked ✕',
			},
		],
	},
	// Shown under both options: n8n keeps no value of a parameter no property shows (getNodeParameters;
	// in n8n 2.41.1's editor a hidden copy is dropped too), which would lose the names and let a
	// reload reorder the outputs. Under Single Output the list is the kept outputs, and a node that
	// never had one loads none (getRouteOutputs).
	{
		...outputsListField,
		displayOptions: { show: { '@tool': [false] } },
	},
	{
		displayName:
			'Items leave on one output, All Items. The outputs listed below, if any, stay on the canvas marked ✕ and carry nothing, so the wires you drew for Route to Outputs keep their places; the error wire stays on Error (kept in place), which still gets failed items. Switching back brings every output back with its name.',
		name: 'singleOutputNotice',
		type: 'notice',
		default: '',
		displayOptions: {
			show: { outputMode: ['singleOutput'], '@tool': [false] },
			hide: NO_DECISION_PICKED,
		},
	},
	{
		...outputsListNotice,
		displayOptions: {
			show: { outputMode: ['routeToOutputs'], '@tool': [false] },
			hide: NO_DECISION_PICKED,
		},
	},
	toolAnswersField,
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
	// decision. n8n resolves an expression here when it builds the tool (see pipeline/tool-description.ts).
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
				displayName: 'Audit Share (%)',
				name: 'auditShare',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 100, numberPrecision: 1 },
				default: 0,
				description:
					'Percent of confident answers a person also checks: a copy goes to the Audit output, the item still goes to its answer. The same input is always picked or never. Once set, add the Audit output: Refresh Output List, in the ⋮ menu beside Output names. At 5 and 200 items a day: about 10 to check.',
				displayOptions: { hide: { '@tool': [true] } },
			},
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
	auditShare?: number;
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
