/**
 * The outputs plan: the one place that says which outputs the node has, each with its id, its name
 * on the canvas and its role, from the node's saved parameters alone. Everything else reads it:
 * the canvas (OUTPUTS_EXPRESSION, which n8n evaluates from source text), Decide's and Review's
 * placement (layout.ts), the receipt's output names, and list.ts's ids and names (OUTPUT_IDS,
 * OUTPUT_NAMES below are their one definition, as are the saved list's types). This file imports
 * nothing of the node: list.ts imports it, never the reverse.
 *
 * planOutputs must stay self-contained, as Switch V3's and Text Classifier's outputs functions
 * are: n8n evaluates its source text inside an expression, so it has no imports at run time
 * (TYPES only: they vanish at build), reads no outside constant (the ids and names come in as
 * arguments; OUTPUTS_EXPRESSION writes them into the expression as JSON), and uses nothing a
 * compiler could turn into a helper (no spread, `??` or `?.`). Unit tests evaluate it through
 * n8n's own expression engine (test/unit/outputs-list.test.ts).
 */
import type { INodeOutputConfiguration, INodeParameters } from 'n8n-workflow';

/** One entry of the saved Outputs list, as the node reads it (a resource-mapper field). */
export interface OutputsListEntry {
	id: string;
	displayName?: string;
	display?: boolean;
	removed?: boolean;
}

/** The saved parameter: the entries (`schema`) and the user's output names by key (`value`). */
export interface SavedOutputsList {
	schema?: OutputsListEntry[];
	value?: Record<string, unknown> | null;
}

/**
 * Ids of the outputs that are not keys of the decision. Keys are slugs (lower-case letters,
 * digits, hyphens), so an id with underscores can never collide with one; the AI-tool description
 * skips every id that starts with "__" (pipeline/tool-description.ts).
 */
export const OUTPUT_IDS = {
	// Entries of the saved Outputs list (list.ts adds them).
	uncertain: '__out_uncertain__',
	pending: '__out_pending__',
	other: '__out_other__',
	/** Copies of the confident answers Decide's Audit Share picked (added once a share is set). */
	audit: '__out_audit__',
	/** `__out_error_<n>__`: where n8n's error output was before a refresh added outputs. */
	errorKeeperPrefix: '__out_error_',
	// Outputs the plan adds itself (never saved in the list).
	notReviewed: '__out_not_reviewed__',
	oldError: '__out_old_error__',
	allItems: '__out_all_items__',
	report: '__out_report__',
	scored: '__out_scored__',
	drift: '__out_drift__',
	/** The one output of an operation that does not route (Get, Create, Send Feedback…). */
	main: '__out_main__',
} as const;

/** The names the plan and the Outputs list give the outputs that are not keys. */
export const OUTPUT_NAMES = {
	uncertain: 'Uncertain',
	pending: 'Pending Review',
	other: 'Other',
	audit: 'Audit',
	errorKeeper: 'Error (kept in place)',
	/**
	 * Review's first output: items nobody reviewed. First because n8n, when a wait's time limit
	 * passes, hands the waiting node's input to its first output (the node does not run again).
	 */
	notReviewed: 'Not Reviewed',
	allItems: 'All Items',
	report: 'Report',
	scored: 'Scored Items',
	drift: 'Drift',
	/** In front of an output kept empty: n8n cuts a name on the canvas after about 15 characters. */
	emptyMark: '✕ ',
} as const;

export type OutputIds = { readonly [K in keyof typeof OUTPUT_IDS]: string };
export type OutputNames = { readonly [K in keyof typeof OUTPUT_NAMES]: string };

/**
 * What an output is for. `key`: a key of the decision (Decide: its answer; Review: a person's
 * pick). `deleted`: a row the user deleted, kept empty so no wire after it moves. `errorKeeper`:
 * where n8n's error output stood before outputs were added (by a refresh, or by Single Output's
 * All Items), carrying what the error output would. `singleSpare`: under Single Output, an output
 * Route to Outputs had, kept empty. `main`: the one output of an operation that does not route.
 */
export type OutputRole =
	| 'key'
	| 'deleted'
	| 'uncertain'
	| 'pending'
	| 'other'
	| 'audit'
	| 'errorKeeper'
	| 'notReviewed'
	| 'singleSpare'
	| 'allItems'
	| 'report'
	| 'scored'
	| 'drift'
	| 'main';

/** One output of the node, in the canvas's order. `name` '' is n8n's plain, unnamed output. */
export interface PlannedOutput {
	id: string;
	name: string;
	role: OutputRole;
}

/**
 * The node's outputs, from its saved parameters and the ids and names above (arguments, so that the
 * function stays self-contained; outputsPlan passes them).
 *
 * Decide, Route to Outputs: one output per shown entry of the saved Outputs list, in its saved
 * order: the decision's keys, the fixed Uncertain / Pending Review / Other entries, Audit and any
 * kept error position. Hidden entries (display: false) carry data, not outputs; a row the user
 * deleted keeps its output, marked "✕" and empty (its items go to Other): n8n wires outputs by
 * index and repairs them only for its own Switch node, so removing it would move every wire after
 * it. Fixed outputs cannot be deleted: Other is where anything unknown goes. A list saved before
 * the fixed entries existed (keys only) gets them after its keys, where they always were (any
 * fixed entry missing from the list is added at its end). Nothing here depends on the service: a
 * decision changed there moves no output.
 * Decide, Single Output: with nothing saved, one output; with a saved list, every output Route to
 * Outputs has stays, empty and marked (the editor keeps wires by index, so no wire drawn for an
 * answer carries another's items, and Route to Outputs gives the same outputs back), then an
 * "Error (kept in place)" where n8n's error output stood (the error wire stays there and still gets
 * the failures, as after a refresh; kept error positions of the list keep carrying them too), then
 * All Items.
 * Renames (the list's `value`) apply by key, read as [key, name] pairs of the object's own keys:
 * n8n's expression sandbox refuses a computed `value[key]` when the key is `constructor`,
 * `prototype` or `__proto__` (legal keys), and a lookup would find inherited properties.
 * Review: Not Reviewed first, then the same list without its fixed and Audit entries (a person's
 * answer is never uncertain or pending), each key with its name and order.
 * Evaluate: Report and Scored Items; with previous figures to compare, Drift.
 */
export function planOutputs(
	parameters: INodeParameters,
	ids: OutputIds,
	names: OutputNames,
): PlannedOutput[] {
	const resource = parameters.resource === undefined ? 'decision' : parameters.resource;
	const operation = parameters.operation === undefined ? 'decide' : parameters.operation;
	const mode = parameters.outputMode === undefined ? 'routeToOutputs' : parameters.outputMode;
	if (resource === 'decision' && operation === 'evaluate') {
		const drift = ((parameters.evaluateOptions || {}) as INodeParameters).previousFigures;
		const evaluated: PlannedOutput[] = [{ id: ids.report, name: names.report, role: 'report' }];
		evaluated.push({ id: ids.scored, name: names.scored, role: 'scored' });
		if (drift !== undefined) evaluated.push({ id: ids.drift, name: names.drift, role: 'drift' });
		return evaluated;
	}
	const review = resource === 'decision' && operation === 'review';
	if (!review && (resource !== 'decision' || operation !== 'decide'))
		return [{ id: ids.main, name: '', role: 'main' }];
	const routes = (parameters.routes || {}) as SavedOutputsList;
	// Renames as [key, name] pairs of own keys: no `renames[key]` (see above).
	const renames: Array<[string, unknown]> =
		routes.value && typeof routes.value === 'object' ? Object.entries(routes.value) : [];
	const schema = Array.isArray(routes.schema) ? routes.schema : [];
	// The fixed entries, in the order a list saved as keys only gets them after its keys.
	const fixedIds = [ids.uncertain, ids.pending, ids.other];
	const fixedNames = [names.uncertain, names.pending, names.other];
	const fixedRoles: OutputRole[] = ['uncertain', 'pending', 'other'];
	const present = [false, false, false];
	const outputs: PlannedOutput[] = review
		? [{ id: ids.notReviewed, name: names.notReviewed, role: 'notReviewed' }]
		: [];
	for (let index = 0; index < schema.length; index++) {
		const field = schema[index];
		if (field.display === false) continue;
		const fixedIndex = fixedIds.indexOf(field.id);
		const isFixed = fixedIndex !== -1;
		// Audit holds copies of machine answers: not one of Review's outputs, nor are the fixed ones.
		if (review && (isFixed || field.id === ids.audit)) continue;
		if (isFixed) present[fixedIndex] = true;
		let rename: unknown;
		for (let each = 0; each < renames.length; each++)
			if (renames[each][0] === field.id) rename = renames[each][1];
		const name =
			typeof rename === 'string' && rename.trim() !== ''
				? rename.trim()
				: field.displayName || field.id;
		// A deleted row keeps its place, empty; a fixed one cannot be deleted (see above).
		if (field.removed === true && !isFixed) {
			outputs.push({ id: field.id, name: names.emptyMark + name, role: 'deleted' });
			continue;
		}
		let role: OutputRole = 'key';
		if (isFixed) role = fixedRoles[fixedIndex];
		else if (String(field.id).indexOf(ids.errorKeeperPrefix) === 0) role = 'errorKeeper';
		else if (field.id === ids.audit) role = 'audit';
		outputs.push({ id: field.id, name: name, role: role });
	}
	if (review) return outputs;
	// Single Output with nothing saved: one output, as any one-output node.
	if (mode !== 'routeToOutputs' && outputs.length === 0)
		return [{ id: ids.allItems, name: '', role: 'allItems' }];
	for (let index = 0; index < fixedIds.length; index++) {
		if (!present[index])
			outputs.push({ id: fixedIds[index], name: fixedNames[index], role: fixedRoles[index] });
	}
	if (mode === 'routeToOutputs') return outputs;
	// Single Output with a saved list: every output kept (empty, but an error keeper still carries
	// failures), then one more keeper where n8n's error output stood, then All Items.
	const single: PlannedOutput[] = [];
	for (let index = 0; index < outputs.length; index++) {
		const kept = outputs[index];
		const marked =
			kept.name.indexOf(names.emptyMark) === 0 ? kept.name : names.emptyMark + kept.name;
		const spare: PlannedOutput = { id: kept.id, name: marked, role: 'singleSpare' };
		single.push(kept.role === 'errorKeeper' ? kept : spare);
	}
	single.push({ id: ids.oldError, name: names.errorKeeper, role: 'errorKeeper' });
	single.push({ id: ids.allItems, name: names.allItems, role: 'allItems' });
	return single;
}

/** An output of the plan as n8n declares it: named, or n8n's plain output. Self-contained. */
export function asNodeOutput(output: PlannedOutput): INodeOutputConfiguration {
	return output.name === '' ? { type: 'main' } : { type: 'main', displayName: output.name };
}

/** The node's outputs plan, from its saved parameters. */
export function outputsPlan(parameters: INodeParameters): PlannedOutput[] {
	return planOutputs(parameters, OUTPUT_IDS, OUTPUT_NAMES);
}

/** The node's outputs as n8n declares them (the canvas's names), from its saved parameters. */
export function configuredOutputs(parameters: INodeParameters): INodeOutputConfiguration[] {
	return outputsPlan(parameters).map(asNodeOutput);
}

/**
 * The node's `outputs`: the same plan, evaluated by n8n from source text for the canvas. The ids
 * and names go in as JSON literals (flat objects: an expression ends at the first `}}`).
 */
export const OUTPUTS_EXPRESSION: `={{${string}}}` = `={{(${planOutputs})($parameter, ${JSON.stringify(OUTPUT_IDS)}, ${JSON.stringify(OUTPUT_NAMES)}).map(${asNodeOutput})}}`;
