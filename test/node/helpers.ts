import type {
	INodeExecutionData,
	INodeParameters,
	ResourceMapperField,
	ResourceMapperValue,
} from 'n8n-workflow';
import * as resourceMapping from '../../nodes/DecisionService/methods/resourceMapping';
import {
	loadOptionsContext,
	runNode,
	type EngineCredentials,
	type RunNodeOptions,
} from '../../harness/n8n-engine';

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
 * A refresh of the Outputs list done the way n8n's editor does it (ResourceMapper.vue,
 * loadAndSetFieldsToMap, n8n 2.41): it calls the node's method with the node's current
 * parameters, then saves the fields the method returned, in their order, keeping only each
 * existing field's `removed` flag (a new field is shown unless the value already names it).
 */
export async function refreshRoutes(
	parameters: INodeParameters,
	credentials: EngineCredentials,
): Promise<INodeParameters> {
	const context = loadOptionsContext(parameters, credentials);
	const { fields } = await resourceMapping.getRouteOutputs.call(context);
	const saved = (parameters.routes ?? {}) as unknown as ResourceMapperValue;
	const savedSchema: ResourceMapperField[] = saved.schema ?? [];
	const schema = fields.map((field) => {
		const existing = savedSchema.find((each) => each.id === field.id);
		if (existing) return { ...field, removed: existing.removed };
		if (saved.value !== null && saved.value !== undefined && !(field.id in saved.value)) {
			return { ...field, removed: false };
		}
		return field;
	});
	return { ...saved, schema } as unknown as INodeParameters;
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
