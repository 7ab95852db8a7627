/**
 * The functions n8n evaluates from their source text inside an expression (`={{(fn)($parameter)}}`),
 * as Switch V3 and Text Classifier do: the node's outputs, the tool's description and the subtitle.
 * Each must stay self-contained: no imports at run time (TYPES only: they vanish at build), no
 * outside constants (the Outputs list's ids of outputs-list.ts are repeated as literals inside each
 * function; test/unit/outputs-list.test.ts checks they equal the module's constants), no helpers a
 * compiler could inject (no spread, `??` or `?.`). They read only the node's saved parameters.
 * Unit tests evaluate them through n8n's own expression engine.
 */
import type { INodeOutputConfiguration, INodeParameters } from 'n8n-workflow';
import type { OutputsListEntry, SavedOutputsList } from './list';

/**
 * The node's outputs, from its saved parameters alone. n8n evaluates this inside an expression
 * (`outputs: '={{(' + configuredOutputs + ')($parameter)}}'`), so it must stay self-contained:
 * no imports, no constants from outside (the ids of outputs-list.ts are repeated as literals; a
 * unit test keeps them equal), no helpers a bundler could inject.
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
	const review = resource === 'decision' && operation === 'review';
	if (!review && (resource !== 'decision' || operation !== 'decide' || mode !== 'routeToOutputs')) {
		return [{ type: 'main' }];
	}
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
		if (review && isFixed) continue;
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
	if (review) return outputs;
	// A list saved with keys only (before the fixed entries existed) has them after its keys.
	for (let index = 0; index < fixed.length; index++) {
		if (!present[index]) outputs.push({ type: 'main', displayName: fixedNames[index] });
	}
	return outputs;
}

/**
 * What an AI agent reads about the tool: the decision, its question and the answers it can give,
 * and what a call returns. n8n builds a tool's description synchronously from the node's saved
 * parameters, so it cannot ask the service: the question and the answers come from the Outputs
 * (Answers) list the editor loads when the decision is picked (its hidden entries hold the
 * question and the type; see outputs-list.ts). Without that list, the description names the
 * decision only; likewise when the list was saved for another decision (its hidden
 * `__meta_decision__` entry names another slug) or the decision is an expression: the agent is
 * never told the answers of a decision it does not call.
 */
export function toolDescriptionOf(parameters: INodeParameters): string {
	// n8n hands a resource locator to expressions as its value (the slug).
	const locator = parameters.decision as { value?: unknown } | string | undefined;
	const value = typeof locator === 'object' && locator !== null ? locator.value : locator;
	const slug = typeof value === 'string' ? value.trim() : '';
	const routes = parameters.routes as SavedOutputsList | undefined;
	const listed: OutputsListEntry[] = routes && Array.isArray(routes.schema) ? routes.schema : [];
	const expression = slug.charAt(0) === '=';
	// The slug the list was loaded for; a list saved before it carried one is taken as it is.
	let savedFor: string | undefined;
	for (let index = 0; index < listed.length; index++) {
		if (listed[index].id === '__meta_decision__')
			savedFor = String(listed[index].displayName || '').trim();
	}
	const stale = expression || (savedFor !== undefined && savedFor !== slug);
	const schema: OutputsListEntry[] = stale ? [] : listed;
	let question = '';
	let type = '';
	const answers: string[] = [];
	for (let index = 0; index < schema.length; index++) {
		const field = schema[index];
		const shown = field.displayName || '';
		if (field.id === '__meta_question__') question = shown.trim();
		else if (field.id === '__meta_type__') type = shown;
		else if (
			field.display !== false &&
			field.removed !== true &&
			field.id.indexOf('__') !== 0 &&
			shown.indexOf('(no longer on the service)') === -1
		) {
			answers.push(field.id);
		}
	}
	const named = slug === '' || expression ? 'a Decision Service decision' : '"' + slug + '"';
	let text = 'Asks the Decision Service decision ' + named;
	text += question ? ': ' + question : '.';
	if (question && !/[.?!]$/.test(question)) text += '.';
	const list = answers.join(', ');
	if (list && type === 'route') text += ' It picks one option: ' + list + '.';
	else if (list && type === 'score') text += ' It scores on levels, lowest first: ' + list + '.';
	else if (list && type === 'classify')
		text += ' It returns every label that applies, possibly none: ' + list + '.';
	else if (list) text += ' Possible answers: ' + list + '.';
	text +=
		' Returns JSON: the answer (choice; or level and score; or labels), status (ok, uncertain, or pending: sent to human review, see review_url), confidence from 0 to 1, and run_id. On failure it returns an error text that says what to do.';
	return text;
}

/**
 * The node's subtitle on the canvas, "Decide: ticket-routing": the operation, and the decision for
 * Decide and Get, else what the operation works on. No lookup by a saved value (`{…}[op]`): n8n's
 * sandbox refuses `constructor` as a key, so names are found by position in two lists.
 */
export function subtitleOf(parameters: INodeParameters): string {
	const operation = parameters.operation || 'decide';
	const at = ['decide', 'create', 'get', 'getAll', 'sendFeedback', 'evaluate', 'review'].indexOf(
		operation as string,
	);
	const name =
		at === -1
			? operation
			: ['Decide', 'Create', 'Get', 'Get Many', 'Send Feedback', 'Evaluate', 'Review'][at];
	const locator = parameters.decision as { value?: unknown } | string | undefined;
	const slug = locator && typeof locator === 'object' ? locator.value : locator;
	const resource = parameters.resource || 'decision';
	if (
		resource === 'decision' &&
		(operation === 'decide' ||
			operation === 'get' ||
			operation === 'evaluate' ||
			operation === 'review')
	) {
		return typeof slug === 'string' && slug.trim() !== ''
			? name + ': ' + slug.trim()
			: String(name);
	}
	const what =
		resource === 'decision'
			? operation === 'getAll'
				? 'decisions'
				: 'decision'
			: resource === 'template'
				? 'templates'
				: resource === 'run'
					? 'run'
					: undefined;
	return name + ': ' + what;
}
