import type { INodeProperties } from 'n8n-workflow';
import * as getMany from './get-many.operation';

export { getMany };

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
	...getMany.description,
];
