import {
	updateDisplayOptions,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import { createDecisionClient } from '../../transport';
import { runPerItem } from '../common';
import { feedbackOf } from '../../../../src/answer/kinds';

const properties: INodeProperties[] = [
	{
		displayName: 'Run ID',
		name: 'runId',
		type: 'string',
		default: '={{ $json.decision?.run_id ?? $json.run_id }}',
		required: true,
		description:
			'The run to give feedback on; by default the run ID a Decide node added to the item',
	},
	{
		displayName: 'Feedback',
		name: 'feedback',
		type: 'string',
		default: 'correct',
		required: true,
		placeholder: 'e.g. correct, or the expected key',
		description:
			'What was right: "correct", or the option or level expected, or the labels (a list, or separated by commas; an empty list sends "no label"). A Review node\'s answer (review.answer) can be used as it is.',
	},
	{
		displayName: 'Note',
		name: 'note',
		type: 'string',
		default: '',
		description: 'Optional free text kept with the feedback',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['run'], operation: ['sendFeedback'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const client = await createDecisionClient(this);
	return runPerItem(this, items, async (itemIndex) => {
		const runId = String(this.getNodeParameter('runId', itemIndex) ?? '').trim();
		const note = String(this.getNodeParameter('note', itemIndex, '') ?? '').trim();
		const raw = this.getNodeParameter('feedback', itemIndex) as unknown;
		// Labels (a list, or `a, b` from an older review row) go out in the one encoding Review and
		// Evaluate use: `a,b`.
		const feedback = feedbackOf(raw);
		return await client.sendFeedback(runId, {
			feedback,
			...(note ? { note } : {}),
		});
	});
}
