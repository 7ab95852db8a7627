/**
 * What an AI agent reads about the tool, a function n8n evaluates from its source text inside an
 * expression (`={{(fn)($parameter)}}`), as the outputs plan (outputs/plan.ts) is: it must stay
 * self-contained (no imports at run time, TYPES only; no spread, `??` or `?.`), and reads only the
 * node's saved parameters. So it repeats, as literals, the hidden entries' ids and the "gone from
 * the service" mark of outputs/list.ts, and skips every id that starts with "__" (every output id
 * of the plan that is not a key does). Unit tests evaluate it through n8n's own expression engine
 * on lists list.ts writes (test/unit/outputs-list.test.ts, tool-description.test.ts).
 */
import type { INodeParameters } from 'n8n-workflow';
import type { OutputsListEntry, SavedOutputsList } from '../outputs/list';

/**
 * What an AI agent reads about the tool: the decision, its question and the answers it can give,
 * and what a call returns. n8n builds a tool's description synchronously from the node's saved
 * parameters, so it cannot ask the service: the question and the answers come from the Outputs
 * (Answers) list the editor loads when the decision is picked (its hidden entries hold the
 * question and the type; see outputs/list.ts). Without that list, the description names the
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
