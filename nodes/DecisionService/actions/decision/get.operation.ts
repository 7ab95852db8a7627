import {
	updateDisplayOptions,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import { createDecisionClient } from '../../transport';
import { decisionLocator, runPerItem } from '../common';

const properties: INodeProperties[] = [decisionLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['decision'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const client = await createDecisionClient(this);
	return runPerItem(this, items, async (itemIndex) => {
		const slug = String(
			this.getNodeParameter('decision', itemIndex, '', { extractValue: true }),
		).trim();
		return await client.getDecision(slug);
	});
}
