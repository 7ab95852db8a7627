import {
	updateDisplayOptions,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { createDecisionClient } from '../../transport';
import { limitResults, returnAllAndLimit, runPerItem } from '../common';

export const description = updateDisplayOptions(
	{ show: { resource: ['decision'], operation: ['getAll'] } },
	returnAllAndLimit,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const client = await createDecisionClient(this);
	return runPerItem(this, items, async (itemIndex) =>
		limitResults(this, itemIndex, await client.listDecisions()),
	);
}
