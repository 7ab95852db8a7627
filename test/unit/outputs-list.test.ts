/**
 * The Outputs list a refresh loads (outputs/list.ts): the saved list merged with the decision as the
 * service has it, so that every output keeps its index and meaning; and the node's expressions
 * (subtitle, tool description) evaluated by n8n's own expression engine.
 */
import type { INodeParameters, ResourceMapperField } from 'n8n-workflow';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import { configuredOutputs } from '../../nodes/DecisionService/outputs/configured';
import { toolDescriptionOf } from '../../nodes/DecisionService/pipeline/tool-description';
import {
	ENTRY,
	FIXED_ENTRY_IDS,
	FIXED_OUTPUT_NAMES,
	HIDDEN_ENTRY,
	REMOVED_ON_SERVICE,
	freshOutputsList,
	outputsListFor,
} from '../../nodes/DecisionService/outputs/list';
import { evaluateOnNode } from '../../harness/n8n-expressions';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';

type Decision = Parameters<typeof outputsListFor>[0];
const routeDecision = (options: string[], slug = 'ticket-routing'): Decision => ({
	slug,
	type: 'route',
	instructions: 'Which team should handle this support ticket?',
	options,
});
const KEEPER = `${ENTRY.errorKeeperPrefix}1__`;

/** The output names a list gives on the canvas. */
const names = (schema: ResourceMapperField[]) =>
	configuredOutputs({ routes: { schema } } as unknown as INodeParameters).map(
		(output) => output.displayName,
	);

/** What the editor saves after a refresh: the method's fields, each keeping its saved `removed` flag. */
function refreshed(decision: Decision, saved: ResourceMapperField[]): ResourceMapperField[] {
	return outputsListFor(decision, saved).map((field) => {
		const existing = saved.find((each) => each.id === field.id);
		return existing ? { ...field, removed: existing.removed } : field;
	});
}

/** Every output index the old list had keeps its name (its meaning) in the new one. */
function expectStable(before: ResourceMapperField[], after: ResourceMapperField[]) {
	const old = names(before);
	const now = names(after);
	old.forEach((name, index) =>
		expect(String(now[index]).replace(` ${REMOVED_ON_SERVICE}`, '')).toBe(name),
	);
}

const saved = freshOutputsList(routeDecision(['billing', 'technical', 'sales', 'account']));

describe('outputsListFor', () => {
	it('loads a new decision as its keys, then Uncertain, Pending Review and Other, plus hidden data', () => {
		expect(names(saved)).toEqual([...TICKET_ROUTING_OUTPUTS]);
		const hidden = saved.filter((field) => field.display === false);
		expect(hidden.map((field) => [field.id, field.displayName])).toEqual([
			[HIDDEN_ENTRY.decision, 'ticket-routing'],
			[HIDDEN_ENTRY.question, 'Which team should handle this support ticket?'],
			[HIDDEN_ENTRY.type, 'route'],
		]);
	});

	test.each([
		['added first', ['legal', 'billing', 'technical', 'sales', 'account']],
		['added last', ['billing', 'technical', 'sales', 'account', 'legal']],
		['added in the middle', ['billing', 'technical', 'legal', 'sales', 'account']],
	])(
		'an option %s: every output stays, an error keeper then the new option at the end',
		(_n, options) => {
			const after = refreshed(routeDecision(options), saved);
			expectStable(saved, after);
			expect(names(after)).toEqual([...TICKET_ROUTING_OUTPUTS, 'Error (kept in place)', 'legal']);
		},
	);

	it('an option removed: its output stays, marked; deleted by the user, it stays empty', () => {
		const after = refreshed(routeDecision(['billing', 'technical', 'account']), saved);
		expectStable(saved, after);
		expect(names(after)[2]).toBe(`sales ${REMOVED_ON_SERVICE}`);
		// Nothing was added, so no error keeper either.
		expect(after.some((field) => field.id.startsWith(ENTRY.errorKeeperPrefix))).toBe(false);
		// The user deletes its row: it keeps its place (n8n would move every wire after it), and
		// the next refresh keeps it there, still deleted.
		const removed = after.map((field) =>
			field.id === 'sales' ? { ...field, removed: true } : field,
		);
		const again = refreshed(routeDecision(['billing', 'technical', 'account']), removed);
		expect(again.map((f) => f.id).indexOf('sales')).toBe(2);
		expect(again.find((f) => f.id === 'sales')?.removed).toBe(true);
		expect(
			configuredOutputs({ routes: { schema: again } } as never).map((o) => o.displayName)[2],
		).toBe(`✕ sales ${REMOVED_ON_SERVICE}`);
	});

	it('an option coming back after removal gets its name back', () => {
		const gone = refreshed(routeDecision(['billing', 'technical', 'account']), saved);
		const back = refreshed(routeDecision(['billing', 'technical', 'sales', 'account']), gone);
		expect(names(back)).toEqual(names(saved));
	});

	it('options reordered: nothing changes', () => {
		const after = refreshed(routeDecision(['account', 'sales', 'technical', 'billing']), saved);
		expect(names(after)).toEqual(names(saved));
	});

	it('a key the user removed while the service still has it stays removed', () => {
		const removed = saved.map((field) =>
			field.id === 'technical' ? { ...field, removed: true } : field,
		);
		const after = refreshed(routeDecision(['billing', 'technical', 'sales', 'account']), removed);
		expect(after.find((field) => field.id === 'technical')?.removed).toBe(true);
		expect(names(after)).not.toContain('technical');
	});

	it('two growths keep two error positions, each where the error output was', () => {
		const once = refreshed(
			routeDecision(['billing', 'technical', 'sales', 'account', 'legal']),
			saved,
		);
		const twice = refreshed(
			routeDecision(['billing', 'technical', 'sales', 'account', 'legal', 'partners']),
			once,
		);
		expectStable(once, twice);
		expect(names(twice).slice(7)).toEqual([
			'Error (kept in place)',
			'legal',
			'Error (kept in place)',
			'partners',
		]);
		expect(
			twice.filter((field) => field.id.startsWith(ENTRY.errorKeeperPrefix)).map((f) => f.id),
		).toEqual([KEEPER, `${ENTRY.errorKeeperPrefix}2__`]);
	});

	it('a list saved as keys only keeps its layout: the fixed outputs after the keys, new keys after them', () => {
		const legacy: ResourceMapperField[] = ['billing', 'technical'].map((id) => ({
			id,
			displayName: id,
			required: false,
			defaultMatch: false,
			display: true,
		}));
		const after = refreshed(routeDecision(['billing', 'technical', 'legal']), legacy);
		expectStable(legacy, after);
		expect(names(after)).toEqual([
			'billing',
			'technical',
			'Uncertain',
			'Pending Review',
			'Other',
			'Error (kept in place)',
			'legal',
		]);
	});

	it('a list saved for another decision is not merged (the editor empties it when another decision is picked)', () => {
		const other = refreshed(routeDecision(['yes', 'no'], 'approval'), saved);
		expect(names(other)).toEqual(['yes', 'no', 'Uncertain', 'Pending Review', 'Other']);
	});

	it('classify: a label added after No Label', () => {
		const labels: Decision = {
			slug: 'content-labels',
			type: 'classify',
			instructions: 'Which labels apply to this message?',
			labels: ['spam', 'question'],
		};
		const first = freshOutputsList(labels);
		expect(names(first)).toEqual([
			'spam',
			'question',
			'No Label',
			'Uncertain',
			'Pending Review',
			'Other',
		]);
		const after = refreshed({ ...labels, labels: ['spam', 'question', 'event'] }, first);
		expectStable(first, after);
		expect(names(after).slice(-2)).toEqual(['Error (kept in place)', 'event']);
	});
});

describe("the node's expressions, in n8n's expression engine", () => {
	const node = new DecisionService();
	const subtitle = (parameters: INodeParameters) =>
		evaluateOnNode(parameters, node.description.subtitle as string);

	test.each<[INodeParameters, string]>([
		[
			{
				resource: 'decision',
				operation: 'decide',
				decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
			},
			'Decide: ticket-routing',
		],
		[{ decision: { __rl: true, mode: 'slug', value: 'lead-scoring' } }, 'Decide: lead-scoring'],
		[{ resource: 'decision', operation: 'decide' }, 'Decide'],
		[
			{
				resource: 'decision',
				operation: 'get',
				decision: { __rl: true, mode: 'list', value: 'x-y' },
			},
			'Get: x-y',
		],
		[{ resource: 'decision', operation: 'getAll' }, 'Get Many: decisions'],
		[{ resource: 'decision', operation: 'create' }, 'Create: decision'],
		[{ resource: 'template', operation: 'getAll' }, 'Get Many: templates'],
		[{ resource: 'run', operation: 'sendFeedback' }, 'Send Feedback: run'],
		[
			{
				resource: 'decision',
				operation: 'review',
				decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
			},
			'Review: ticket-routing',
		],
		[
			{
				resource: 'decision',
				operation: 'evaluate',
				decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
			},
			'Evaluate: ticket-routing',
		],
		[{ operation: 'review', decision: '  lead-scoring ' }, 'Review: lead-scoring'],
		[{ resource: 'decision', operation: 'review' }, 'Review'],
		[{ resource: 'decision', operation: 'evaluate', decision: '' }, 'Evaluate'],
	])('subtitle of %j is %s', (parameters, expected) => {
		// The literal in DecisionService.node.ts, evaluated by n8n's expression engine.
		expect(subtitle(parameters)).toBe(expected);
	});

	it('the tool description reads the question and the answers from the list', () => {
		const parameters = {
			resource: 'decision',
			operation: 'decide',
			decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
			routes: {
				mappingMode: 'defineBelow',
				value: {},
				schema: refreshed(routeDecision(['billing', 'technical', 'account']), saved),
			},
		} as unknown as INodeParameters;
		const text = evaluateOnNode(parameters, `={{(${toolDescriptionOf})($parameter)}}`);
		expect(text).toBe(
			'Asks the Decision Service decision "ticket-routing": Which team should handle this support ticket? It picks one option: billing, technical, account. Returns JSON: the answer (choice; or level and score; or labels), status (ok, uncertain, or pending: sent to human review, see review_url), confidence from 0 to 1, and run_id. On failure it returns an error text that says what to do.',
		);
	});
});

describe('the expressions repeat the Outputs list ids as literals (they cannot import them)', () => {
	const quoted = (text: string) => [`'${text}'`, `"${text}"`];
	const holds = (source: string, text: string) =>
		expect(quoted(text).some((literal) => source.includes(literal))).toBe(true);

	it('configuredOutputs names the fixed entries as outputs/list.ts does', () => {
		const source = String(configuredOutputs);
		for (const id of FIXED_ENTRY_IDS) {
			holds(source, id);
			holds(source, FIXED_OUTPUT_NAMES[id]);
		}
	});

	it('toolDescriptionOf reads the hidden entries and the removed mark as outputs/list.ts writes them', () => {
		const source = String(toolDescriptionOf);
		holds(source, HIDDEN_ENTRY.question);
		holds(source, HIDDEN_ENTRY.type);
		holds(source, REMOVED_ON_SERVICE);
		// Every id the list adds that is not a key starts with "__", which the tool skips.
		for (const id of [
			...FIXED_ENTRY_IDS,
			ENTRY.errorKeeperPrefix,
			...Object.values(HIDDEN_ENTRY),
		]) {
			expect(id.startsWith('__')).toBe(true);
		}
	});

	it.each<[INodeParameters, string]>([
		[{}, 'Decide'],
		[{ decision: { __rl: true, mode: 'list', value: 'ticket-routing' } }, 'Decide: ticket-routing'],
		[{ operation: 'get', decision: '  lead-scoring ' }, 'Get: lead-scoring'],
		[{ operation: 'getAll' }, 'Get Many: decisions'],
		[{ operation: 'create' }, 'Create: decision'],
		[{ resource: 'template', operation: 'getAll' }, 'Get Many: templates'],
		[{ resource: 'run', operation: 'sendFeedback' }, 'Send Feedback: run'],
		[{ operation: 'constructor' }, 'constructor: decision'],
		[{ decision: { __rl: true, mode: 'id', value: '' } }, 'Decide'],
		[{ operation: 'review' }, 'Review'],
		[{ resource: 'run', operation: 'review' }, 'Review: run'],
	])('the subtitle literal for %j is %s', (parameters, expected) => {
		const literal = new DecisionService().description.subtitle as string;
		expect(evaluateOnNode(parameters, literal)).toBe(expected);
	});
});
