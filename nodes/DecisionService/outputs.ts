import type { INodeOutputConfiguration, INodeParameters } from 'n8n-workflow';

/** The routes mapper field that stands for "no label retained" on classify decisions. */
export const NO_LABEL_KEY = '__no_label__';

/**
 * Ids of the Outputs list's entries that are not keys of the decision. Keys are slugs (lower-case
 * letters, digits, hyphens), so an id with underscores can never collide with one.
 */
export const SLOT = {
	uncertain: '__out_uncertain__',
	pending: '__out_pending__',
	other: '__out_other__',
	/** `__out_error_<n>__`: where n8n's error output was before a refresh added outputs. */
	errorKeeperPrefix: '__out_error_',
} as const;

/** Hidden entries (display: false) that only carry the decision's identity for the tool description and the refresh. */
export const META = {
	decision: '__meta_decision__',
	question: '__meta_question__',
	type: '__meta_type__',
} as const;

export const FIXED_OUTPUT_NAMES = {
	[SLOT.uncertain]: 'Uncertain',
	[SLOT.pending]: 'Pending Review',
	[SLOT.other]: 'Other',
} as const;

export const ERROR_KEEPER_NAME = 'Error (kept in place)';

/**
 * The node's outputs, from its saved parameters alone. n8n evaluates this inside an expression
 * (`outputs: '={{(' + configuredOutputs + ')($parameter)}}'`), so it must stay self-contained:
 * no imports, no constants from outside (the ids above are repeated as literals; a unit test
 * keeps them equal), no helpers a bundler could inject.
 *
 * One output per entry of the saved Outputs list, in its saved order: the decision's keys, the
 * fixed Uncertain / Pending Review / Other entries and any kept error position. Hidden entries
 * (display: false) carry data, not outputs; a key the user removed from the list has no output.
 * A list saved before the fixed entries existed (keys only) gets them after its keys, where they
 * always were (any fixed entry missing from the list is added at its end). Nothing here depends on the service: a decision changed there moves no output.
 */
export function configuredOutputs(parameters: INodeParameters): INodeOutputConfiguration[] {
	const resource = parameters.resource === undefined ? 'decision' : parameters.resource;
	const operation = parameters.operation === undefined ? 'decide' : parameters.operation;
	const mode = parameters.outputMode === undefined ? 'routeToOutputs' : parameters.outputMode;
	// Evaluate: the report, then the scored items.
	if (resource === 'decision' && operation === 'evaluate') {
		return [
			{ type: 'main', displayName: 'Report' },
			{ type: 'main', displayName: 'Scored Items' },
		];
	}
	if (resource !== 'decision' || operation !== 'decide' || mode !== 'routeToOutputs') {
		return [{ type: 'main' }];
	}
	const routes = (parameters.routes || {}) as {
		schema?: Array<{ id: string; displayName?: string; display?: boolean; removed?: boolean }>;
		value?: Record<string, unknown> | null;
	};
	// Renames by key, read as [key, name] pairs: n8n's expression sandbox refuses a computed
	// `names[key]` when the key is `constructor`, `prototype` or `__proto__` (legal keys), and an
	// object lookup would find inherited properties; entries are the object's own keys only.
	const renames: Array<[string, unknown]> =
		routes.value && typeof routes.value === 'object' ? Object.entries(routes.value) : [];
	const schema = Array.isArray(routes.schema) ? routes.schema : [];
	const fixed = ['__out_uncertain__', '__out_pending__', '__out_other__'];
	const fixedNames = ['Uncertain', 'Pending Review', 'Other'];
	const present = [false, false, false];
	const outputs: INodeOutputConfiguration[] = [];
	for (let index = 0; index < schema.length; index++) {
		const field = schema[index];
		if (field.display === false) continue;
		const fixedIndex = fixed.indexOf(field.id);
		const isFixed = fixedIndex !== -1;
		if (isFixed) present[fixedIndex] = true;
		// Fixed outputs cannot be removed: Other is where anything unknown goes, nothing is dropped.
		if (field.removed === true && !isFixed) continue;
		let rename: unknown;
		for (let each = 0; each < renames.length; each++) {
			if (renames[each][0] === field.id) rename = renames[each][1];
		}
		const displayName =
			typeof rename === 'string' && rename.trim() !== ''
				? rename.trim()
				: field.displayName || field.id;
		outputs.push({ type: 'main', displayName });
	}
	// A list saved with keys only (before the fixed entries existed) has them after its keys.
	for (let index = 0; index < fixed.length; index++) {
		if (!present[index]) outputs.push({ type: 'main', displayName: fixedNames[index] });
	}
	return outputs;
}
