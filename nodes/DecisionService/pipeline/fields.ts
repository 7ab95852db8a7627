/**
 * The fields every operation that decides shares (Decide, Evaluate): the decision, the input
 * (Map Fields, Text, JSON; the tool's variants), and the Timeout and Validate Input Locally options.
 */
import type { INodeProperties } from 'n8n-workflow';
import { BOUNDS, SLUG_PATTERN, type ContextField } from '../../../src/contract';
import { NO_DECISION_PICKED, pickADecisionNotice } from '../outputs/parameter';

/** The decision picker (Decide, Evaluate, Get, Review): a searchable list, or a slug typed. */
export const decisionLocator: INodeProperties = {
	displayName: 'Decision',
	name: 'decision',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchDecisions', searchable: true },
		},
		{
			displayName: 'By Slug',
			name: 'slug',
			type: 'string',
			placeholder: 'e.g. ticket-routing',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: SLUG_PATTERN.source,
						errorMessage: `A slug is lower-case letters and digits separated by single hyphens, at most ${BOUNDS.slugMax} characters`,
					},
				},
			],
		},
	],
};

/** Options every operation that decides shares (one definition each). */
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

/** The decision and its input, with the agent-tool variants (shown only as a tool). */
export const decisionAndInput: INodeProperties[] = [
	decisionLocator,
	{ ...pickADecisionNotice, displayOptions: { show: NO_DECISION_PICKED } },
	{
		displayName: 'Input',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'mapFields',
		options: INPUT_MODES,
		// Nothing to fill in before a decision is picked: the notice above says what to do first.
		displayOptions: { hide: { '@tool': [true], ...NO_DECISION_PICKED } },
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
		// Map Automatically first: an item that already has the decision's fields needs no drag, and
		// the notice under it names the fields it reads (autoMapNotice); a missing one fails its item
		// with what to map where (prepare.ts).
		default: { mappingMode: 'autoMapInputData', value: null },
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
		displayOptions: { show: { inputMode: ['mapFields'] }, hide: NO_DECISION_PICKED },
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '={{ $json.text }}',
		required: true,
		description: 'The free text the decision is asked about',
		displayOptions: {
			show: { inputMode: ['text'] },
			hide: { '@tool': [true], ...NO_DECISION_PICKED },
		},
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
		displayOptions: { show: { inputMode: ['json'] }, hide: NO_DECISION_PICKED },
	},
];

/**
 * What Map Automatically reads: the decision's fields by name, and which an item cannot lack. Only
 * what n8n's own notice under it does not say: n8n always adds "make sure the incoming data fields
 * are named the same as the fields in Decision Service" (its resource mapper's `autoMappingNotice`,
 * n8n-editor-ui 2.41.1), so this one names the fields and never restates that rule.
 */
export function autoMapNotice(fields: readonly ContextField[]): string {
	if (!fields.length) {
		return 'This decision declares no context fields: choose Input: Text or JSON.';
	}
	const listed = (names: string[], last: string) =>
		names.length === 1
			? names[0]
			: `${names.slice(0, -1).join(', ')} ${last} ${names[names.length - 1]}`;
	const all = fields.map((field) => `"${field.name}"`);
	const required = fields.filter((field) => field.required).map((field) => `"${field.name}"`);
	const fails = required.length ? `; an item without ${listed(required, 'or')} fails` : '';
	return `Fields read from each item: ${listed(all, 'and')}${fails}.`;
}
