/**
 * Review's node side, without a service: its outputs (configuredOutputs in n8n's expression engine
 * against reviewLayout), the Outputs list it shows (forReview), the time limit, and what each item
 * asked, re-read from the Decide node wired into it (asked.ts) on a real n8n-core execute context,
 * so expressions resolve as n8n resolves them. The page's data: review-node-page-data.test.ts.
 */
import type { INodeParameters, ResourceMapperField } from 'n8n-workflow';
import { timeLimitMs } from '../../nodes/DecisionService/actions/decision/review/description';
import { configuredOutputs } from '../../nodes/DecisionService/expressions';
import {
	ENTRY,
	FIXED_ENTRY_IDS,
	HIDDEN_ENTRY,
	NO_LABEL_KEY,
	NOT_REVIEWED_NAME,
	freshOutputsList,
	forReview,
	outputsLayout,
	reviewLayout,
	type OutputsListEntry,
} from '../../nodes/DecisionService/outputs-list';
import { evaluateOnNode } from '../../harness/n8n-engine';
import { JS_FIELD_NAMES, JS_KEYS, jsonObject } from '../support/js-names';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';

const KEEPER = `${ENTRY.errorKeeperPrefix}1__`;

// ---------------------------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------------------------

const routesOf = (schema: OutputsListEntry[], value: Record<string, unknown> = {}) => ({
	mappingMode: 'defineBelow',
	value,
	matchingColumns: [],
	schema,
});

const nodeParameters = (
	operation: string,
	schema: OutputsListEntry[],
	value: Record<string, unknown> = {},
) =>
	({
		resource: 'decision',
		operation,
		decision: { __rl: true, mode: 'list', value: 'ticket-routing' },
		routes: routesOf(schema, value),
	}) as unknown as INodeParameters;

/** The node's output names as n8n's expression engine computes them from the saved parameters. */
function outputsInN8n(parameters: INodeParameters): string[] {
	const outputs = evaluateOnNode(parameters, `={{(${configuredOutputs})($parameter)}}`) as Array<{
		type: string;
		displayName?: string;
	}>;
	for (const output of outputs) expect(output.type).toBe('main');
	return outputs.map((output) => output.displayName ?? 'main');
}

const key = (id: string, extra: Partial<OutputsListEntry> = {}): OutputsListEntry => ({
	id,
	displayName: id,
	...extra,
});
const fixed = (): OutputsListEntry[] => [
	key(ENTRY.uncertain, { displayName: 'Uncertain' }),
	key(ENTRY.pending, { displayName: 'Pending Review' }),
	key(ENTRY.other, { displayName: 'Other' }),
];
const meta = (): OutputsListEntry[] => [
	key(HIDDEN_ENTRY.decision, { displayName: 'ticket-routing', display: false }),
	key(HIDDEN_ENTRY.question, { displayName: 'Which team?', display: false }),
	key(HIDDEN_ENTRY.type, { displayName: 'route', display: false }),
];

/**
 * Saved lists, each with the names Review's outputs must have (Not Reviewed first, then every
 * shown, kept, non-fixed entry in list order, renamed where a rename is given).
 */
const REVIEW_CASES: Array<[string, OutputsListEntry[], Record<string, unknown>, string[]]> = [
	[
		'keys only (saved before the fixed entries existed)',
		[key('billing'), key('technical')],
		{},
		['billing', 'technical'],
	],
	[
		'fixed entries after the keys, hidden entries last (a fresh list)',
		[key('billing'), key('technical'), key('sales'), ...fixed(), ...meta()],
		{},
		['billing', 'technical', 'sales'],
	],
	[
		'fixed entries first and between keys',
		[fixed()[2], key('billing'), fixed()[0], key('technical'), fixed()[1], key('sales')],
		{},
		['billing', 'technical', 'sales'],
	],
	[
		'renames (trimmed; blank or non-text renames keep the name)',
		[key('billing'), key('technical'), key('sales'), key('account'), ...fixed()],
		{ billing: '  Billing team ', technical: '   ', sales: 7, [ENTRY.uncertain]: 'Doubtful' },
		['Billing team', 'technical', 'sales', 'account'],
	],
	[
		'removed keys have no output; a removed fixed entry is still not one of Review’s',
		[
			key('billing', { removed: true }),
			key('technical'),
			key(ENTRY.uncertain, { removed: true }),
			key('sales', { removed: true }),
			key('account'),
			...fixed().slice(1),
		],
		{ billing: 'Billing team' },
		['technical', 'account'],
	],
	[
		'a kept error position and keys added after a refresh',
		[
			key('billing'),
			key('technical'),
			...fixed(),
			key(KEEPER, { displayName: 'Error (kept in place)' }),
			key('legal'),
			...meta(),
		],
		{ legal: 'Legal' },
		['billing', 'technical', 'Error (kept in place)', 'Legal'],
	],
	[
		'a removed error position and a key no longer on the service',
		[
			key('billing', { displayName: 'billing (no longer on the service)' }),
			key('technical'),
			...fixed(),
			key(KEEPER, { displayName: 'Error (kept in place)', removed: true }),
			key('legal'),
		],
		{},
		['billing (no longer on the service)', 'technical', 'legal'],
	],
	[
		'hidden entries among the keys carry data, not outputs',
		[key('cold'), key(HIDDEN_ENTRY.type, { display: false }), key('warm'), key('hot'), ...meta()],
		{ hot: 'Hot lead', [HIDDEN_ENTRY.type]: 'renamed data' },
		['cold', 'warm', 'Hot lead'],
	],
	[
		'classify: No Label is an output, renamed or not',
		[key('spam'), key('question'), key(NO_LABEL_KEY, { displayName: 'No Label' }), ...fixed()],
		{ [NO_LABEL_KEY]: 'Nothing applies' },
		['spam', 'question', 'Nothing applies'],
	],
	[
		'classify: No Label removed',
		[key('spam'), key(NO_LABEL_KEY, { displayName: 'No Label', removed: true }), ...fixed()],
		{},
		['spam'],
	],
	['an empty list', [], {}, []],
];

describe("Review's outputs", () => {
	test.each(REVIEW_CASES)('%s', (_name, schema, renames, expected) => {
		const names = outputsInN8n(nodeParameters('review', schema, renames));
		expect(names).toEqual([NOT_REVIEWED_NAME, ...expected]);
		// What runs in n8n is what the node's code says.
		expect(names).toEqual(
			configuredOutputs(nodeParameters('review', schema, renames)).map((o) => o.displayName),
		);

		// reviewLayout puts each item where the canvas shows its output.
		const layout = reviewLayout(schema);
		expect(layout.count).toBe(names.length);
		expect(layout.notReviewed).toBe(0);
		expect(names[layout.notReviewed]).toBe(NOT_REVIEWED_NAME);
		const shown = schema.filter(
			(field) =>
				field.display !== false &&
				field.removed !== true &&
				!(FIXED_ENTRY_IDS as readonly string[]).includes(field.id),
		);
		const keys = shown.filter((field) => !field.id.startsWith(ENTRY.errorKeeperPrefix));
		expect([...layout.indexOf.keys()]).toEqual(keys.map((field) => field.id));
		for (const field of keys) {
			const index = layout.indexOf.get(field.id)!;
			const rename = renames[field.id];
			expect(names[index]).toBe(
				typeof rename === 'string' && rename.trim() ? rename.trim() : field.displayName,
			);
		}
		// An error position keeps its output, where nothing is sent.
		const positions = names.map((_each, index) => index);
		const used = new Set([layout.notReviewed, ...layout.indexOf.values()]);
		expect(positions.filter((index) => !used.has(index)).map((index) => names[index])).toEqual(
			shown
				.filter((field) => field.id.startsWith(ENTRY.errorKeeperPrefix))
				.map(() => 'Error (kept in place)'),
		);
		const noLabel = keys.some((field) => field.id === NO_LABEL_KEY);
		expect(layout.noLabel).toBe(noLabel ? layout.indexOf.get(NO_LABEL_KEY) : undefined);
	});

	it('an item reviewed as a key goes to the output named after that key', () => {
		const schema = freshOutputsList({
			slug: 'ticket-routing',
			type: 'route',
			instructions: 'Which team?',
			options: ['billing', 'technical', 'sales', 'account'],
		});
		const layout = reviewLayout(schema);
		const names = outputsInN8n(nodeParameters('review', schema, { sales: 'Sales team' }));
		expect(names).toEqual([NOT_REVIEWED_NAME, 'billing', 'technical', 'Sales team', 'account']);
		expect(names[layout.indexOf.get('sales')!]).toBe('Sales team');
		expect(layout.count).toBe(5);
	});

	it('renames keyed by JavaScript’s own names: n8n drops `constructor` and `__proto__` ones, nothing inherited is read', () => {
		const ids = [...JS_KEYS, ...JS_FIELD_NAMES.filter((name) => name !== 'constructor')];
		const schema = [...ids.map((id) => key(id)), ...fixed(), ...meta()];
		const renames = jsonObject(ids.map((id) => [id, `Team ${id}`]));
		const names = outputsInN8n(nodeParameters('review', schema, renames));
		// n8n's deepCopy drops parameter keys `constructor`, `prototype` and `__proto__`
		// (n8n-workflow's reservedCopyKeys) before the expression sees them: those keep their key.
		const dropped = ['constructor', 'prototype', '__proto__'];
		expect(names).toEqual([
			NOT_REVIEWED_NAME,
			...ids.map((id) => (dropped.includes(id) ? id : `Team ${id}`)),
		]);
		const layout = reviewLayout(schema);
		expect(layout.count).toBe(ids.length + 1);
		ids.forEach((id, index) => expect(layout.indexOf.get(id)).toBe(index + 1));
		// Run directly, every own rename applies.
		expect(
			configuredOutputs(nodeParameters('review', schema, renames)).map((o) => o.displayName),
		).toEqual([NOT_REVIEWED_NAME, ...ids.map((id) => `Team ${id}`)]);
		// No rename given: no output is named after Object's members (`function Object()…`).
		expect(outputsInN8n(nodeParameters('review', schema, {}))).toEqual([NOT_REVIEWED_NAME, ...ids]);
	});

	it("Review's outputs do not depend on Decide's output mode", () => {
		const schema = [key('billing'), ...fixed()];
		const parameters = { ...nodeParameters('review', schema), outputMode: 'oneOutput' };
		expect(outputsInN8n(parameters as INodeParameters)).toEqual([NOT_REVIEWED_NAME, 'billing']);
	});
});

describe("Decide's outputs are unchanged by Review's branch", () => {
	it('a fresh list: its keys, then Uncertain, Pending Review and Other, no Not Reviewed', () => {
		const schema = freshOutputsList({
			slug: 'ticket-routing',
			type: 'route',
			instructions: 'Which team?',
			options: ['billing', 'technical', 'sales', 'account'],
		});
		expect(outputsInN8n(nodeParameters('decide', schema))).toEqual([...TICKET_ROUTING_OUTPUTS]);
	});

	test.each<[string, OutputsListEntry[], Record<string, unknown>, string[]]>([
		[
			'keys only: the fixed outputs after them',
			[key('billing'), key('technical')],
			{ billing: 'Billing team' },
			['Billing team', 'technical', 'Uncertain', 'Pending Review', 'Other'],
		],
		[
			'fixed entries in place, renamed, a kept error position, a removed key',
			[
				key('billing'),
				fixed()[1],
				key('technical', { removed: true }),
				fixed()[0],
				fixed()[2],
				key(KEEPER, { displayName: 'Error (kept in place)' }),
				key('legal'),
				...meta(),
			],
			{ [ENTRY.uncertain]: 'Doubtful' },
			['billing', 'Pending Review', 'Doubtful', 'Other', 'Error (kept in place)', 'legal'],
		],
	])('%s', (_name, schema, renames, expected) => {
		const names = outputsInN8n(nodeParameters('decide', schema, renames));
		expect(names).toEqual(expected);
		expect(names).not.toContain(NOT_REVIEWED_NAME);
		expect(outputsLayout(schema).count).toBe(names.length);
	});

	it('Evaluate and the other operations keep theirs', () => {
		const schema = [key('billing'), ...fixed()];
		expect(outputsInN8n(nodeParameters('evaluate', schema))).toEqual(['Report', 'Scored Items']);
		expect(outputsInN8n(nodeParameters('get', schema))).toEqual(['main']);
		expect(
			outputsInN8n({ ...nodeParameters('decide', schema), outputMode: 'oneOutput' } as never),
		).toEqual(['main']);
	});
});

describe('forReview', () => {
	test.each<Parameters<typeof freshOutputsList>[0]>([
		{
			slug: 'ticket-routing',
			type: 'route',
			instructions: 'Which team?',
			options: ['billing', 'sales'],
		},
		{
			slug: 'lead-scoring',
			type: 'score',
			instructions: 'How hot?',
			levels: ['cold', 'warm', 'hot'],
		},
		{ slug: 'content-labels', type: 'classify', instructions: 'Which labels?', labels: ['spam'] },
	])('hides exactly the three fixed entries of $slug and keeps the order', (decision) => {
		const fresh = freshOutputsList(decision);
		const review = forReview(fresh);
		expect(review.map((field) => field.id)).toEqual(fresh.map((field) => field.id));
		review.forEach((field, index) => {
			const isFixed = (FIXED_ENTRY_IDS as readonly string[]).includes(field.id);
			expect(field).toEqual(isFixed ? { ...fresh[index], display: false } : fresh[index]);
		});
		const hidden = (fields: ResourceMapperField[]) =>
			fields.filter((field) => field.display === false).map((field) => field.id);
		expect(hidden(review)).toEqual([...FIXED_ENTRY_IDS, ...hidden(fresh)]);
		// The editor's Review list and Review's outputs name the same answers.
		expect(outputsInN8n(nodeParameters('review', review)).slice(1)).toEqual(
			review.filter((field) => field.display !== false).map((field) => field.displayName),
		);
		// The list it was made from is untouched (it is the same list Decide shows).
		expect(
			fresh.filter((field) => FIXED_ENTRY_IDS.includes(field.id as never)).map((f) => f.display),
		).toEqual([true, true, true]);
	});
});

describe('timeLimitMs', () => {
	test.each<[number, string, number]>([
		[1, 'minutes', 60_000],
		[90, 'minutes', 90 * 60_000],
		[1, 'hours', 3_600_000],
		[24, 'hours', 86_400_000],
		[2, 'days', 2 * 86_400_000],
		[3, 'weeks', 3 * 3_600_000],
		[0, 'hours', 3_600_000],
		[-5, 'minutes', 60_000],
		[0.5, 'hours', 3_600_000],
		[1.5, 'days', 1.5 * 86_400_000],
		[2, 'constructor', 2 * 3_600_000],
	])('%d %s is %d ms', (amount, unit, expected) => {
		expect(timeLimitMs(amount, unit)).toBe(expected);
	});
});
