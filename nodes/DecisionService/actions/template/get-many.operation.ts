import {
	updateDisplayOptions,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';
import type { Locale } from '../../../../src/contract';
import { createDecisionClient } from '../../transport';
import { limitResults, localeOptions, returnAllAndLimit, runPerItem } from '../common';

const properties: INodeProperties[] = [
	{
		displayName: 'Locale',
		name: 'locale',
		type: 'options',
		default: 'en',
		options: localeOptions,
		description: 'Language of the template texts',
	},
	...returnAllAndLimit,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['template'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const client = await createDecisionClient(this);
	return runPerItem(this, items, async (itemIndex) => {
		const catalogue = await client.listTemplates(
			this.getNodeParameter('locale', itemIndex) as Locale,
		);
		return limitResults(
			this,
			itemIndex,
			catalogue.templates.map((template) => ({ ...template, locale: catalogue.locale })),
		);
	});
}
