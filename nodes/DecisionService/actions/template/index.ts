import type { INodeProperties } from 'n8n-workflow';
import * as getAll from './getMany.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['template'] } },
		default: 'getAll',
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the catalogue templates',
				action: 'Get many templates',
			},
		],
	},
	...getAll.description,
];
