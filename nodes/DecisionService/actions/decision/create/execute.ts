import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { createDecisionClient } from '../../../transport';
import { runPerItem } from '../../common';
import { createRequest } from './request';

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const client = await createDecisionClient(this);
	return runPerItem(this, items, async (itemIndex) =>
		client.createDecision(createRequest(this, itemIndex)),
	);
}
