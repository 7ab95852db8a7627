/**
 * The Outputs list a refresh loads (outputs/list.ts): the saved list merged with the decision as the
 * service has it, so that every output keeps its index and meaning; the outputs plan (plan.ts) for
 * every operation, mode and kind of entry, as n8n's expression engine evaluates it for the canvas
 * and as Decide and Review place items; and the node's other expressions (subtitle, tool
 * description) in n8n's expression engine.
 */
import { NodeHelpers, type INodeParameters, type ResourceMapperField } from 'n8n-workflow';
import { DecisionService } from '../../nodes/DecisionService/DecisionService.node';
import {
	OUTPUT_IDS,
	OUTPUTS_EXPRESSION,
	asNodeOutput,
	configuredOutputs,
	outputsPlan,
} from '../../nodes/DecisionService/outputs/plan';
import {
	outputsLayout,
	reviewLayout,
	singleOutputPlace,
} from '../../nodes/DecisionService/outputs/layout';
import { toolDescriptionOf } from '../../nodes/DecisionService/pipeline/tool-description';
import {
	ENTRY,
	FIXED_ENTRY_IDS,
	FIXED_OUTPUT_NAMES,
	HIDDEN_ENTRY,
	REMOVED_ON_SERVICE,
	forReview,
	freshOutputsList,
	outputsListFor,
	type OutputsListEntry,
} from '../../nodes/DecisionService/outputs/list';
import { evaluateOnNode, singleNodeWorkflow } from '../../harness/n8n-expressions';
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

describe('the outputs plan (plan.ts): one list of outputs for the canvas and the run', () => {
	const ticket = (options: string[]) => routeDecision(options);
	/** Every kind of entry: a key, a deleted key, the fixed ones, a kept error position, a key added after it, Audit, hidden data. */
	const full: ResourceMapperField[] = outputsListFor(
		ticket(['billing', 'technical', 'legal']),
		freshOutputsList(ticket(['billing', 'technical'])),
		{ audit: true },
	).map((field) => (field.id === 'technical' ? { ...field, removed: true } : field));
	const legacy = ['billing', 'technical'].map((id) => ({ id, displayName: id }));
	const jsNames = freshOutputsList(ticket(['constructor', '__proto__', 'prototype']));
	const lists: Array<[string, ResourceMapperField[] | Array<{ id: string }> | undefined]> = [
		['no saved list', undefined],
		['a fresh list', saved],
		['a list saved as keys only', legacy],
		['a deleted key, a kept error position and Audit', full],
		['keys named constructor, __proto__ and prototype', jsNames],
	];
	const modes: Array<[string, INodeParameters]> = [
		['Route to Outputs', { operation: 'decide', outputMode: 'routeToOutputs' }],
		['Single Output', { operation: 'decide', outputMode: 'singleOutput' }],
		['Review', { operation: 'review' }],
	];
	const withList = (mode: INodeParameters, schema: unknown, value: object = {}) =>
		({
			resource: 'decision',
			...mode,
			decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
			...(schema === undefined ? {} : { routes: { mappingMode: 'defineBelow', value, schema } }),
		}) as unknown as INodeParameters;
	const planned = (parameters: INodeParameters) =>
		outputsPlan(parameters).map((output) => `${output.role}:${output.name}`);

	describe.each(modes)('%s', (_mode, mode) => {
		test.each(lists)(
			"%s: the canvas (n8n's expression engine) shows the plan, and the items go where it says",
			(_list, schema) => {
				const parameters = withList(mode, schema);
				const plan = outputsPlan(parameters);
				expect(evaluateOnNode(parameters, OUTPUTS_EXPRESSION)).toEqual(plan.map(asNodeOutput));
				expect(new DecisionService().description.outputs).toBe(OUTPUTS_EXPRESSION);
				const entries = (schema ?? []) as OutputsListEntry[];
				const rolesAt = (role: string) =>
					plan.flatMap((output, index) => (output.role === role ? [index] : []));
				if (mode.operation === 'review') {
					const layout = reviewLayout(entries);
					expect(layout.count).toBe(plan.length);
					expect([layout.notReviewed]).toEqual(rolesAt('notReviewed'));
					expect([...layout.indexOf.values()]).toEqual(rolesAt('key'));
					for (const [key, index] of layout.indexOf) expect(plan[index].id).toBe(key);
				} else if (mode.outputMode === 'singleOutput') {
					const place = singleOutputPlace(entries);
					expect(place.count).toBe(plan.length);
					expect([place.index]).toEqual(rolesAt('allItems'));
					// Every other output is a spare, kept empty, or carries failures where the error was.
					expect(place.errorKeepers).toEqual(rolesAt('errorKeeper'));
					expect(rolesAt('singleSpare')).toHaveLength(plan.length - 1 - place.errorKeepers.length);
				} else {
					const layout = outputsLayout(entries);
					expect(layout.count).toBe(plan.length);
					expect([layout.uncertain, layout.pending, layout.other]).toEqual([
						...rolesAt('uncertain'),
						...rolesAt('pending'),
						...rolesAt('other'),
					]);
					expect(layout.errorKeepers).toEqual(rolesAt('errorKeeper'));
					expect(layout.audit === undefined ? [] : [layout.audit]).toEqual(rolesAt('audit'));
					expect([...layout.indexOf.values()]).toEqual(rolesAt('key'));
					for (const [key, index] of layout.indexOf) expect(plan[index].id).toBe(key);
				}
				// Every output that is no key of the decision has an id the AI-tool description skips.
				for (const output of plan)
					if (output.role !== 'key' && output.role !== 'deleted' && output.role !== 'singleSpare')
						expect(output.id.startsWith('__')).toBe(true);
			},
		);
	});

	it('Route to Outputs: every shown entry in its order, a deleted row kept empty and marked', () => {
		const route = modes[0][1];
		expect(planned(withList(route, undefined))).toEqual([
			'uncertain:Uncertain',
			'pending:Pending Review',
			'other:Other',
		]);
		expect(planned(withList(route, legacy))).toEqual([
			'key:billing',
			'key:technical',
			'uncertain:Uncertain',
			'pending:Pending Review',
			'other:Other',
		]);
		expect(planned(withList(route, full))).toEqual([
			'key:billing',
			'deleted:✕ technical',
			'uncertain:Uncertain',
			'pending:Pending Review',
			'other:Other',
			'errorKeeper:Error (kept in place)',
			'key:legal',
			'audit:Audit',
		]);
		expect(planned(withList(route, jsNames)).slice(0, 3)).toEqual([
			'key:constructor',
			'key:__proto__',
			'key:prototype',
		]);
	});

	it('renames apply by key, a deleted row keeps its mark; names from Object.prototype rename nothing', () => {
		const route = modes[0][1];
		const renames = {
			billing: ' Billing team ',
			[ENTRY.other]: 'Rest',
			technical: 'Tech',
			legal: ' ',
		};
		const parameters = withList(route, full, renames);
		expect(planned(parameters).slice(0, 7)).toEqual([
			'key:Billing team',
			'deleted:✕ Tech',
			'uncertain:Uncertain',
			'pending:Pending Review',
			'other:Rest',
			'errorKeeper:Error (kept in place)',
			'key:legal',
		]);
		expect(evaluateOnNode(parameters, OUTPUTS_EXPRESSION)).toEqual(configuredOutputs(parameters));
		expect(planned(withList(route, jsNames, {})).slice(0, 3)).toEqual([
			'key:constructor',
			'key:__proto__',
			'key:prototype',
		]);
	});

	it('Single Output: one plain output with nothing saved; with a list, its outputs kept empty, then All Items', () => {
		const single = modes[1][1];
		expect(outputsPlan(withList(single, undefined))).toEqual([
			{ id: OUTPUT_IDS.allItems, name: '', role: 'allItems' },
		]);
		expect(configuredOutputs(withList(single, []))).toEqual([{ type: 'main' }]);
		expect(planned(withList(single, full))).toEqual([
			'singleSpare:✕ billing',
			'singleSpare:✕ technical',
			'singleSpare:✕ Uncertain',
			'singleSpare:✕ Pending Review',
			'singleSpare:✕ Other',
			'errorKeeper:Error (kept in place)',
			'singleSpare:✕ legal',
			'singleSpare:✕ Audit',
			'errorKeeper:Error (kept in place)',
			'allItems:All Items',
		]);
		// Kept in place: each spare keeps its entry's id, so Route to Outputs gives the same back.
		expect(
			outputsPlan(withList(single, full))
				.slice(0, 8)
				.map((output) => output.id),
		).toEqual(outputsPlan(withList(modes[0][1], full)).map((output) => output.id));
	});

	it("Single Output keeps failures on the output the error wire is on (n8n's getNodeOutputs, wires by index)", () => {
		// n8n's outputs with On Error: error output, as the editor computes them from saved parameters.
		const n8nOutputs = (parameters: INodeParameters) => {
			const { workflow, node } = singleNodeWorkflow({ parameters, onError: 'continueErrorOutput' });
			return NodeHelpers.getNodeOutputs(workflow, node, new DecisionService().description).map(
				(output) => (typeof output === 'string' ? output : (output.displayName ?? output.type)),
			);
		};
		for (const schema of [saved, full]) {
			const routed = n8nOutputs(withList(modes[0][1], schema));
			const errorWire = routed.lastIndexOf('Error');
			expect(errorWire).toBe(routed.length - 1);
			const single = n8nOutputs(withList(modes[1][1], schema));
			// The editor keeps the wire on its index: there stands an output that carries failures.
			expect(single[errorWire]).toBe('Error (kept in place)');
			expect(singleOutputPlace(schema as OutputsListEntry[]).errorKeepers).toContain(errorWire);
			// Every kept error position of the list still carries them too.
			routed.forEach((name, index) => {
				if (name === 'Error (kept in place)')
					expect(singleOutputPlace(schema as OutputsListEntry[]).errorKeepers).toContain(index);
			});
		}
	});

	it('Review: Not Reviewed first, then the keys, without the fixed entries or Audit', () => {
		const review = modes[2][1];
		expect(planned(withList(review, undefined))).toEqual(['notReviewed:Not Reviewed']);
		expect(planned(withList(review, full))).toEqual([
			'notReviewed:Not Reviewed',
			'key:billing',
			'deleted:✕ technical',
			'errorKeeper:Error (kept in place)',
			'key:legal',
		]);
	});

	it('Evaluate: Report and Scored Items, then Drift when previous figures are given; other operations one plain output', () => {
		expect(planned({ operation: 'evaluate' })).toEqual(['report:Report', 'scored:Scored Items']);
		const drift = { operation: 'evaluate', evaluateOptions: { previousFigures: '{}' } };
		expect(planned(drift)).toEqual(['report:Report', 'scored:Scored Items', 'drift:Drift']);
		expect(evaluateOnNode(drift, OUTPUTS_EXPRESSION)).toEqual(configuredOutputs(drift));
		for (const parameters of [
			{ operation: 'get' },
			{ resource: 'run', operation: 'sendFeedback' },
			{ resource: 'template', operation: 'getAll' },
			{ resource: 'run', operation: 'review' },
		]) {
			expect(outputsPlan(parameters)).toEqual([{ id: OUTPUT_IDS.main, name: '', role: 'main' }]);
			expect(evaluateOnNode(parameters, OUTPUTS_EXPRESSION)).toEqual([{ type: 'main' }]);
		}
	});

	it('the Outputs list writes the ids the plan reads (plan.ts defines them once)', () => {
		const roles = (fields: ResourceMapperField[]) =>
			outputsPlan({ routes: { schema: fields } } as unknown as INodeParameters).map(
				(output) => output.role,
			);
		expect(roles(freshOutputsList(ticket(['billing']), { audit: true }))).toEqual([
			'key',
			'uncertain',
			'pending',
			'other',
			'audit',
		]);
		expect(roles(outputsListFor(ticket(['billing', 'legal']), saved))).toContain('errorKeeper');
		// An empty list's plan is the fixed entries list.ts adds after a list's keys.
		expect(FIXED_ENTRY_IDS).toEqual(outputsPlan({}).map((output) => output.id));
		expect(FIXED_ENTRY_IDS.map((id) => FIXED_OUTPUT_NAMES[id])).toEqual([
			'Uncertain',
			'Pending Review',
			'Other',
		]);
	});
	it("Review's list hides exactly the rows Review's plan has no output for: the fixed ones and Audit", () => {
		const list = [
			...outputsListFor(ticket(['billing', 'legal']), saved, { audit: true }),
			...freshOutputsList(ticket(['constructor', '__proto__'])).slice(0, 2),
		];
		const hidden = forReview(list)
			.filter((field) => field.display === false)
			.map((field) => field.id);
		expect(hidden).toEqual([
			ENTRY.uncertain,
			ENTRY.pending,
			ENTRY.other,
			ENTRY.audit,
			HIDDEN_ENTRY.decision,
			HIDDEN_ENTRY.question,
			HIDDEN_ENTRY.type,
		]);
		expect(outputsPlan({ operation: 'review', routes: { schema: list } } as never)).toHaveLength(
			list.length - hidden.length + 1,
		);
	});
});

describe("the tool description and the subtitle, in n8n's expression engine", () => {
	it('names the live keys only: no fixed, Audit, kept error, No Label, hidden, deleted or gone entry', () => {
		const labels: Decision = {
			slug: 'content-labels',
			type: 'classify',
			instructions: 'Which labels apply?',
			labels: ['spam', 'question', 'event'],
		};
		const first = freshOutputsList({ ...labels, labels: ['spam', 'question', 'old'] });
		const schema = outputsListFor(labels, first, { audit: true }).map((field) =>
			field.id === 'question' ? { ...field, removed: true } : field,
		);
		const kinds = new Set(
			outputsPlan({ routes: { schema } } as unknown as INodeParameters).map((o) => o.role),
		);
		expect([...kinds].sort()).toEqual(
			['audit', 'deleted', 'errorKeeper', 'key', 'other', 'pending', 'uncertain'].sort(),
		);
		const parameters = {
			operation: 'decide',
			decision: { __rl: true, mode: 'list', value: 'content-labels' },
			routes: { mappingMode: 'defineBelow', value: {}, schema },
		} as unknown as INodeParameters;
		expect(evaluateOnNode(parameters, `={{(${toolDescriptionOf})($parameter)}}`)).toContain(
			'Which labels apply? It returns every label that applies, possibly none: spam, event. Returns JSON',
		);
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
