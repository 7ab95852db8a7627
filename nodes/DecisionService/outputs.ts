import type { INodeOutputConfiguration, INodeParameters } from 'n8n-workflow';

/** The routes mapper field that stands for "no label retained" on classify decisions. */
export const NO_LABEL_KEY = '__no_label__';
/**
 * The node's outputs, from its saved parameters alone. n8n evaluates this inside an expression
 * (`outputs: '={{(' + configuredOutputs + ')($parameter)}}'`), so it must stay self-contained:
 * no imports, no constants from outside, no helpers a bundler could inject. The routes come from
 * the "Outputs" mapper's schema saved in the workflow, so a decision changed on the server never
 * adds, removes or reorders outputs until the user refreshes them in the editor.
 */
export function configuredOutputs(parameters: INodeParameters): INodeOutputConfiguration[] {
	const resource = parameters.resource === undefined ? 'decision' : parameters.resource;
	const operation = parameters.operation === undefined ? 'decide' : parameters.operation;
	const mode = parameters.outputMode === undefined ? 'routeToOutputs' : parameters.outputMode;
	if (resource !== 'decision' || operation !== 'decide' || mode !== 'routeToOutputs') {
		return [{ type: 'main' }];
	}
	const routes = (parameters.routes || {}) as {
		schema?: Array<{ id: string; displayName?: string }>;
		value?: Record<string, unknown> | null;
	};
	const names = routes.value || {};
	const outputs: INodeOutputConfiguration[] = [];
	const schema = Array.isArray(routes.schema) ? routes.schema : [];
	for (let index = 0; index < schema.length; index++) {
		const field = schema[index];
		const rename = names[field.id];
		const displayName =
			typeof rename === 'string' && rename.trim() !== ''
				? rename.trim()
				: field.displayName || field.id;
		outputs.push({ type: 'main', displayName });
	}
	outputs.push({ type: 'main', displayName: 'Uncertain' });
	outputs.push({ type: 'main', displayName: 'Pending Review' });
	outputs.push({ type: 'main', displayName: 'Other' });
	return outputs;
}
