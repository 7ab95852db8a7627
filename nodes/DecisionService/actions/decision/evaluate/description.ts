/**
 * The editor's fields of Evaluate: the decision and the input every operation that decides shares
 * (pipeline/fields.ts), then the expected answer, the target accuracy and the options.
 */
import type { INodeProperties } from 'n8n-workflow';
import { decisionAndInput, timeoutOption, validateInputOption } from '../../../pipeline/fields';

/** The decision and input fields, for Evaluate (their agent-tool variants left out). */
const sharedWithDecide: INodeProperties[] = decisionAndInput
	.filter((property) => property.displayOptions?.show?.['@tool'] === undefined)
	.map((property) => {
		const hide = Object.fromEntries(
			Object.entries(property.displayOptions?.hide ?? {}).filter(([name]) => name !== '@tool'),
		);
		const show = {
			resource: ['decision'],
			operation: ['evaluate'],
			...property.displayOptions?.show,
		};
		return {
			...property,
			displayOptions: Object.keys(hide).length ? { show, hide } : { show },
		};
	});

const show = { resource: ['decision'], operation: ['evaluate'] };

export const description: INodeProperties[] = [
	...sharedWithDecide,
	{
		displayName: 'Expected Answer',
		name: 'expected',
		type: 'string',
		default: '={{ $json.expected ?? $json.review?.answer }}',
		required: true,
		description:
			"The answer each item should get: an option key (route), a level (score) or labels (classify: a list, or separated by commas). By default the item's expected field, or the answer a Review node's reviewer picked.",
		displayOptions: { show },
	},
	{
		displayName: 'Target Accuracy',
		name: 'targetAccuracy',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
		default: 0.9,
		description:
			'The accuracy you need (0 to 1): the report recommends the lowest confidence that reaches it',
		displayOptions: { show },
	},
	{
		displayName:
			'Items that already carry a run from an earlier Decide are scored from it for free; the others are decided (one unit each).',
		name: 'evaluateNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'evaluateOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Compare With Version',
				name: 'compareVersion',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'Also decide each item on this version (one unit each) and list where it answers differently; 0 compares nothing',
			},
			{
				displayName: 'Result Field',
				name: 'resultField',
				type: 'string',
				default: 'decision',
				description:
					"Field holding an earlier Decide's result (with its run ID); fresh answers are written there too",
			},
			{
				displayName: 'Send Expected Answers as Feedback',
				name: 'sendFeedback',
				type: 'boolean',
				default: false,
				description: "Whether to send each item's expected answer as feedback on its run",
			},
			timeoutOption,
			validateInputOption,
		],
	},
];

export interface EvaluateNodeOptions {
	compareVersion?: number;
	resultField?: string;
	sendFeedback?: boolean;
	timeout?: number;
	validateInput?: boolean;
}
