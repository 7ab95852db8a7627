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
			'Reviewers open this execution’s link. Set Send Link To and Review posts it there itself before it waits, wherever it sits on the canvas. Or send {{ $execution.resumeUrl }} from your own node on the same output, placed above this one (n8n runs the upper branch first).',
		name: 'reviewNotice',
		type: 'notice',
		default: '',
	},
	decisionLocator,
	{
		displayName: 'Send Link To',
		name: 'sendLinkTo',
		type: 'string',
		default: '',
		placeholder: 'e.g. https://hooks.slack.com/services/…',
		description:
			'A webhook URL Review posts the review link to before it waits: a Slack, Google Chat or Mattermost incoming webhook, or the Webhook node of another workflow (which can send it by e-mail, Teams…). Empty: send it yourself.',
	},
	{
		displayName: 'Link Message Format',
		name: 'linkFormat',
		type: 'options',
		default: 'text',
		displayOptions: { hide: { sendLinkTo: [''] } },
		options: [
			{
				name: 'Chat Message',
				value: 'text',
				description: 'Only {"text": …}, as Slack, Google Chat and Mattermost webhooks take it',
			},
			{
				name: 'Message and Details',
				value: 'details',
				description:
					'The text plus link, items, title, until and execution, for a Webhook node in n8n',
			},
		],
	},
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

/** Where Review posts its link, and in which form (see `linkFormat`). */
export type LinkFormat = 'text' | 'details';

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
