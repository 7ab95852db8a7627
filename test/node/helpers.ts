import type { INodeExecutionData, INodeParameters, ResourceMapperValue } from 'n8n-workflow';
import * as resourceMapping from '../../nodes/DecisionService/methods/resource-mapping';
import {
	loadOptionsContext,
	runNode,
	type EngineCredentials,
	type RunNodeOptions,
} from '../../harness/n8n-engine';
import { mergeLikeEditor } from '../support/outputs';

export function locator(slug: string) {
	return { __rl: true, mode: 'list', value: slug };
}

/** The Outputs parameter as the editor saves it: loaded from the decision by the node's own method. */
export async function loadRoutes(
	slug: string,
	credentials: EngineCredentials,
): Promise<INodeParameters> {
	const context = loadOptionsContext(
		{ resource: 'decision', operation: 'decide', decision: locator(slug) },
		credentials,
	);
	const { fields } = await resourceMapping.getRouteOutputs.call(context);
	return {
		mappingMode: 'defineBelow',
		value: {},
		matchingColumns: [],
		schema: fields,
	} as unknown as INodeParameters;
}

/**
 * A refresh of the Outputs list done the way n8n's editor does it: the node's method called with
 * the node's current parameters, then the editor's merge of what it returned (see mergeLikeEditor).
 */
export async function refreshRoutes(
	parameters: INodeParameters,
	credentials: EngineCredentials,
): Promise<INodeParameters> {
	const context = loadOptionsContext(parameters, credentials);
	const { fields } = await resourceMapping.getRouteOutputs.call(context);
	return mergeLikeEditor(parameters.routes as unknown as ResourceMapperValue | undefined, fields);
}

export function decideParameters(
	slug: string,
	routes: INodeParameters | undefined,
	extra: INodeParameters = {},
): INodeParameters {
	return {
		resource: 'decision',
		operation: 'decide',
		decision: locator(slug),
		inputMode: 'json',
		jsonInput: '={{ $json }}',
		outputMode: routes ? 'routeToOutputs' : 'singleOutput',
		...(routes ? { routes } : {}),
		options: {},
		...extra,
	};
}

export async function decide(
	options: Omit<RunNodeOptions, 'parameters'> & {
		slug: string;
		routes?: INodeParameters;
		extra?: INodeParameters;
	},
) {
	return runNode({
		...options,
		parameters: decideParameters(options.slug, options.routes, options.extra),
	});
}

/** Input item indexes that reached each output. */
export function pairedIndexes(outputs: INodeExecutionData[][]): number[][] {
	return outputs.map((items) =>
		items.map((item) => {
			const paired = item.pairedItem;
			if (typeof paired !== 'object' || paired === null || Array.isArray(paired))
				throw new Error('expected one pairedItem per item');
			return paired.item;
		}),
	);
}
