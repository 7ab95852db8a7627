import type { INodeProperties } from 'n8n-workflow';
import * as create from './create';
import * as decide from './decide';
import * as evaluate from './evaluate';
import * as get from './get.operation';
import * as getMany from './get-many.operation';
import * as review from './review';

export { create, decide, evaluate, get, getMany, review };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['decision'] } },
		default: 'decide',
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a decision from a template, a description or a definition',
				action: 'Create a decision',
			},
			{
				name: 'Decide',
				value: 'decide',
				description: 'Route, score or classify each item',
				action: 'Decide on items',
			},
			{
				name: 'Evaluate',
				value: 'evaluate',
				description: 'Measure how often the decision gives the expected answer on labeled items',
				action: 'Evaluate a decision on labeled items',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a decision with its context fields and options',
				action: 'Get a decision',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the decisions of the account',
				action: 'Get many decisions',
			},
			{
				name: 'Review',
				value: 'review',
				description:
					'Wait for a person to pick the answer for doubtful items, send it back as feedback, and route them',
				action: 'Wait for a person to review items',
			},
		],
	},
	...decide.description,
	...review.description,
	...evaluate.description,
	...create.description,
	...get.description,
	...getMany.description,
];
