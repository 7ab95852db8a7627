import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import * as decision from './actions/decision';
import { router } from './actions/router';
import * as run from './actions/run';
import * as template from './actions/template';
import * as listSearch from './methods/list-search';
import * as loadOptions from './methods/load-options';
import * as resourceMapping from './methods/resource-mapping';
import { configuredOutputs, subtitleOf } from './expressions';

export class DecisionService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Decision Service',
		name: 'decisionService',
		icon: { light: 'file:decisionService.svg', dark: 'file:decisionService.dark.svg' },
		group: ['transform'],
		version: 1,
		// "Decide: ticket-routing": see subtitleOf (self-contained, evaluated from its source text).
		subtitle: `={{(${subtitleOf})($parameter)}}`,
		description: 'Route, score and classify items with the Decision Service, one output per answer',
		defaults: { name: 'Decision Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		// Outputs follow the saved "Outputs" parameter; see configuredOutputs for why it is self-contained.
		outputs: `={{(${configuredOutputs})($parameter)}}`,
		credentials: [{ name: 'decisionServiceApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				default: 'decision',
				options: [
					{ name: 'Decision', value: 'decision' },
					{ name: 'Run', value: 'run' },
					{ name: 'Template', value: 'template' },
				],
			},
			...decision.description,
			...template.description,
			...run.description,
		],
	};

	methods = { listSearch, loadOptions, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}
}
