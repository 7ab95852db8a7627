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
			'Items that carry a run from an earlier Decide, and stored review rows whose version is the live one, are scored from their answer for free; the others are decided, one unit each. When the live version changed, only the most recent rows of each kind (Version Change Sample, 200) are decided: at most 200 units for that run, free again once their new answers are stored. Compare With Version doubles it; Max Decides per Execution caps it.',
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
				displayName: 'Compare With Previous Figures',
				name: 'previousFigures',
				type: 'json',
				default: '',
				placeholder: "{{ $('Previous figures').last().json }}",
				description:
					"The figures rows of earlier evaluations (the report's figures, as Data Table rows or JSON; the last full one is compared, a partial one never): the report says what changed, and a Drift output gets the report when accuracy dropped more than Drop Alert Threshold. Empty: this run is the baseline.",
			},
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
				displayName: 'Drop Alert Threshold (Points)',
				name: 'dropThreshold',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 1 },
				default: 5,
				description:
					'Accuracy points lost since the previous figures beyond which the report also goes to the Drift output (5: from 90% to under 85%)',
			},
			{
				displayName: 'False-Alarm Rate (%)',
				name: 'falseAlarmRate',
				type: 'number',
				typeOptions: { minValue: 0.01, maxValue: 49, numberPrecision: 2 },
				default: 1,
				description:
					'With previous figures: how often a run may alert when nothing changed. The alert needs a drop beyond chance at this rate (recent rows against the rows before; on a version change, the same rows on both versions) and at least Drop Alert Threshold points.',
			},
			{
				displayName: 'Max Decides per Execution',
				name: 'maxDecides',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'Most items sent to the service in one execution (Compare With Version included); items beyond it are not sent, and the report is marked partial: never compared with earlier figures nor a baseline (0 = no limit)',
			},
			{
				displayName: 'Recent Window (Days)',
				name: 'recentWindowDays',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 7,
				description:
					'With previous figures: rows reviewed within this many days (their reviewed_at) are compared with the rows before them',
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
			{
				displayName: 'Version Change Sample',
				name: 'versionChangeSample',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 200,
				description:
					'Stored rows answered by another version than the live one: how many are decided again (one unit each), the most recent of each kind (doubtful, audited, loaded) in turn, and compared with their stored answers; the others are left out of the figures (0 = decide them all)',
			},
			validateInputOption,
		],
	},
];

export interface EvaluateNodeOptions {
	compareVersion?: number;
	previousFigures?: unknown;
	dropThreshold?: number;
	falseAlarmRate?: number;
	recentWindowDays?: number;
	versionChangeSample?: number;
	maxDecides?: number;
	resultField?: string;
	sendFeedback?: boolean;
	timeout?: number;
	validateInput?: boolean;
}
