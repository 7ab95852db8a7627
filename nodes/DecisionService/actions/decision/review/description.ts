/** The editor's fields of Review: the decision, its answer outputs, the time limit and the page. */
import { updateDisplayOptions, type INodeProperties, type IWebhookDescription } from 'n8n-workflow';
import { decisionLocator } from '../../common';
import { outputsListField, outputsListNotice } from '../../../outputs/parameter';

/**
 * The page's two methods on the resume link, as n8n's Wait node declares them: `restartWebhook`
 * webhooks answer only while an execution waits on this node; nothing is registered with another
 * service, so there is no webhook lifecycle (`webhookMethods`) to implement.
 */
export const reviewWebhooks: IWebhookDescription[] = (['GET', 'POST'] as const).map(
	(httpMethod) => ({
		name: 'default',
		httpMethod,
		responseMode: 'onReceived',
		path: '',
		restartWebhook: true,
	}),
);

const properties: INodeProperties[] = [
	{
		displayName:
			'Reviewers open this execution’s link, {{ $execution.resumeUrl }}: send it from a node wired to the same output and placed above this one (n8n runs the upper branch first).',
		name: 'reviewNotice',
		type: 'notice',
		default: '',
	},
	decisionLocator,
	outputsListField,
	{
		// A notice, not the list's hint: n8n shows no hint under a resource mapper.
		...outputsListNotice,
		displayName: `Not Reviewed comes first, then one output per answer, as on Decide. ${outputsListNotice.displayName}`,
	},
	{
		displayName: 'Time Limit',
		name: 'timeLimit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 24,
		description: 'How long reviewers have; then every item continues on Not Reviewed',
	},
	{
		displayName: 'Time Limit Unit',
		name: 'timeLimitUnit',
		type: 'options',
		default: 'hours',
		options: [
			{ name: 'Minutes', value: 'minutes' },
			{ name: 'Hours', value: 'hours' },
			{ name: 'Days', value: 'days' },
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Instructions',
				name: 'instructions',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				description: 'Shown to reviewers above the items, for example what each answer means',
			},
			{
				displayName: 'Page Title',
				name: 'title',
				type: 'string',
				default: '',
				placeholder: 'e.g. Tickets to route',
				description: 'Title of the review page; by default "Review: " and the decision',
			},
			{
				displayName: 'Show Personal Data',
				name: 'showPersonalData',
				type: 'boolean',
				default: false,
				description:
					'Whether reviewers see the fields the decision marks as personal data (hidden by default: anyone with the link sees the page)',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['decision'], operation: ['review'] } },
	properties,
);

/** Review's options as the node reads them. */
export interface ReviewNodeOptions {
	instructions?: string;
	title?: string;
	showPersonalData?: boolean;
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/** The time limit in milliseconds (an unknown unit reads as hours). */
export function timeLimitMs(amount: number, unit: string): number {
	const each = unit === 'minutes' || unit === 'days' ? UNIT_MS[unit] : UNIT_MS.hours;
	return Math.max(1, amount) * each;
}
