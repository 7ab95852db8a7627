import type { INodeProperties } from 'n8n-workflow';
import * as sendFeedback from './send-feedback.operation';

export { sendFeedback };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['run'] } },
		default: 'sendFeedback',
		options: [
			{
				name: 'Send Feedback',
				value: 'sendFeedback',
				description: 'Tell the service whether a run was right',
				action: 'Send feedback on a run',
			},
		],
	},
	...sendFeedback.description,
];
