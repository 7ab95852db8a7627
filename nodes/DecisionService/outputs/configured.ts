/**
 * The node's outputs, a function n8n evaluates from its source text inside an expression
 * (`={{(fn)($parameter)}}`), as Switch V3 and Text Classifier do. It must stay self-contained: no
 * imports at run time (TYPES only: they vanish at build), no outside constants (the ids of list.ts
 * are repeated as literals; test/unit/outputs-list.test.ts checks they equal the module's
 * constants), no helpers a compiler could inject (no spread, `??` or `?.`). It reads only the node's
 * saved parameters. Unit tests evaluate it through n8n's own expression engine.
 */
import type { INodeOutputConfiguration, INodeParameters } from 'n8n-workflow';
import type { SavedOutputsList } from './list';

/**
 * The node's outputs, from its saved parameters alone. n8n evaluates this inside an expression
 * (`outputs: '={{(' + configuredOutputs + ')($parameter)}}'`), so it must stay self-contained:
 * no imports, no constants from outside (the ids of list.ts are repeated as literals; a
 * unit test keeps them equal), no helpers a bundler could inject.
 *
 * One output per entry of the saved Outputs list, in its saved order: the decision's keys, the
 * fixed Uncertain / Pending Review / Other entries and any kept error position. Hidden entries
 * (display: false) carry data, not outputs; a key the user deleted from the list keeps its output,
 * marked "✕" and empty, so no wire after it moves.
 * A list saved before the fixed entries existed (keys only) gets them after its keys, where they
 * always were (any fixed entry missing from the list is added at its end). Nothing here depends on
 * the service: a decision changed there moves no output.
 * Single Output with a saved list keeps every one of those outputs in place, empty and marked "✕",
 * before its own (see singleOutputPlace in layout.ts): the editor keeps wires by index.
 */
export function configuredOutputs(parameters: INodeParameters): INodeOutputConfiguration[] {
	const resource = parameters.resource === undefined ? 'decision' : parameters.resource;
	const operation = parameters.operation === undefined ? 'decide' : parameters.operation;
	const mode = parameters.outputMode === undefined ? 'routeToOutputs' : parameters.outputMode;
	// Evaluate: the report, then the scored items; with previous figures to compare, Drift.
	if (resource === 'decision' && operation === 'evaluate') {
		const evaluateOptions = (parameters.evaluateOptions || {}) as INodeParameters;
		const evaluateOutputs: INodeOutputConfiguration[] = [
			{ type: 'main', displayName: 'Report' },
			{ type: 'main', displayName: 'Scored Items' },
		];
		if (evaluateOptions.previousFigures !== undefined)
			evaluateOutputs.push({ type: 'main', displayName: 'Drift' });
		return evaluateOutputs;
	}
	const review = resource === 'decision' && operation === 'review';
	if (!review && (resource !== 'decision' || operation !== 'decide')) return [{ type: 'main' }];
	const routes = (parameters.routes || {}) as SavedOutputsList;
	// Renames by key, read as [key, name] pairs: n8n's expression sandbox refuses a computed
	// `names[key]` when the key is `constructor`, `prototype` or `__proto__` (legal keys), and an
	// object lookup would find inherited properties; entries are the object's own keys only.
	const renames: Array<[string, unknown]> =
		routes.value && typeof routes.value === 'object' ? Object.entries(routes.value) : [];
	const schema = Array.isArray(routes.schema) ? routes.schema : [];
	const fixed = ['__out_uncertain__', '__out_pending__', '__out_other__'];
	const fixedNames = ['Uncertain', 'Pending Review', 'Other'];
	const present = [false, false, false];
	// Review: Not Reviewed first (n8n hands a timed-out wait's items to the first output), then the
	// answer outputs in the same order and names; a person's answer is never uncertain or pending.
	const outputs: INodeOutputConfiguration[] = review
		? [{ type: 'main', displayName: 'Not Reviewed' }]
		: [];
	for (let index = 0; index < schema.length; index++) {
		const field = schema[index];
		if (field.display === false) continue;
		const fixedIndex = fixed.indexOf(field.id);
		const isFixed = fixedIndex !== -1;
		// Audit (Decide's Audit Share) holds copies of machine answers: not one of Review's outputs.
		if (review && (isFixed || field.id === '__out_audit__')) continue;
		if (isFixed) present[fixedIndex] = true;
		let rename: unknown;
		for (let each = 0; each < renames.length; each++) {
			if (renames[each][0] === field.id) rename = renames[each][1];
		}
		const displayName =
			typeof rename === 'string' && rename.trim() !== ''
				? rename.trim()
				: field.displayName || field.id;
		// A row the user deleted keeps its place, empty (its items go to Other): n8n wires outputs
		// by index and repairs them only for its own Switch node, so removing the output would move
		// every wire after it. Fixed outputs cannot be deleted: Other is where anything unknown goes.
		const deleted = field.removed === true && !isFixed;
		// Marked in front: n8n cuts an output's name on the canvas after about 15 characters.
		outputs.push({ type: 'main', displayName: deleted ? '✕ ' + displayName : displayName });
	}
	if (review) return outputs;
	// Single Output with nothing saved: one output, as any one-output node.
	if (mode !== 'routeToOutputs' && outputs.length === 0) return [{ type: 'main' }];
	// A list saved with keys only (before the fixed entries existed) has them after its keys.
	for (let index = 0; index < fixed.length; index++) {
		if (!present[index]) outputs.push({ type: 'main', displayName: fixedNames[index] });
	}
	if (mode === 'routeToOutputs') return outputs;
	// Single Output with a saved list: n8n keeps wires by output index when the outputs change, so
	// every output Route to Outputs had stays, empty and marked, then one spare where n8n's error
	// output stood, then the output that carries the items. No wire drawn for an answer carries
	// another's items; Route to Outputs gives the same outputs back, names and wires included.
	const single: INodeOutputConfiguration[] = [];
	for (let index = 0; index < outputs.length; index++) {
		const name = String(outputs[index].displayName);
		single.push({ type: 'main', displayName: name.indexOf('✕ ') === 0 ? name : '✕ ' + name });
	}
	single.push({ type: 'main', displayName: '✕ old Error' });
	single.push({ type: 'main', displayName: 'All Items' });
	return single;
}
