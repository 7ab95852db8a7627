/** Routing is pure: where each run goes for every status and type, and what its item carries. */
import type { RunAnswer as Run } from '../../src/contract';
import {
	anomalyOf,
	otherNote,
	itemPerTarget,
	targetsFor,
	pickTargets,
} from '../../nodes/DecisionService/outputs/targets';
import { answerOf } from '../../nodes/DecisionService/pipeline/item-json';
import { configuredOutputs } from '../../nodes/DecisionService/outputs/plan';
import {
	ERROR_KEEPER_NAME,
	FIXED_OUTPUT_NAMES,
	HIDDEN_ENTRY,
	NO_LABEL_KEY,
	ENTRY,
} from '../../nodes/DecisionService/outputs/list';
import { outputsLayout, reviewLayout } from '../../nodes/DecisionService/outputs/layout';

function run(fields: Partial<Run>): Run {
	return {
		run_id: 'run_1',
		decision: 'd',
		version: 1,
		status: 'ok',
		probabilities: {},
		confidence: 0.9,
		confidence_source: 'calibrated',
		engine: 'jev',
		model: 'jev-1',
		latency_ms: 3,
		pii_redacted: 0,
		...fields,
	};
}

const route = outputsLayout(['billing', 'technical', 'sales']);
const legend = { '0': 'cold', '1': 'warm', '2': 'hot' };
const score = outputsLayout(['cold', 'warm', 'hot']);
const classify = outputsLayout(['spam', 'question', NO_LABEL_KEY]);
const classifyWithoutNoLabel = outputsLayout(['spam', 'question']);

describe('outputsLayout', () => {
	it('puts Uncertain, Pending Review and Other after the keys, as configuredOutputs names them', () => {
		expect(route).toMatchObject({ uncertain: 3, pending: 4, other: 5, count: 6 });
		const names = configuredOutputs({
			routes: { schema: ['billing', 'technical', 'sales'].map((id) => ({ id, displayName: id })) },
		}).map((output) => output.displayName);
		expect(names).toEqual([
			'billing',
			'technical',
			'sales',
			'Uncertain',
			'Pending Review',
			'Other',
		]);
		expect(names).toHaveLength(route.count);
	});

	it('has no keys and only the fixed outputs when nothing was loaded', () => {
		expect(outputsLayout([])).toMatchObject({ uncertain: 0, pending: 1, other: 2, count: 3 });
	});
});

describe('targetsFor', () => {
	test.each<[string, Run, ReturnType<typeof outputsLayout>, number[]]>([
		['route: its choice', run({ choice: 'technical' }), route, [1]],
		['route: first option', run({ choice: 'billing' }), route, [0]],
		[
			'route: a choice the workflow does not know goes to Other',
			run({ choice: 'legal' }),
			route,
			[5],
		],
		['route: uncertain', run({ status: 'uncertain', choice: '__uncertain__' }), route, [3]],
		[
			'route: pending',
			run({ status: 'pending', choice: '__uncertain__', review_url: 'https://r' }),
			route,
			[4],
		],
		['route: no choice at all goes to Other', run({}), route, [5]],
		['score: legend[round(raw_score)]', run({ score: 50, raw_score: 1.4, legend }), score, [1]],
		['score: rounds half up', run({ score: 80, raw_score: 1.5, legend }), score, [2]],
		['score: lowest level', run({ score: 0, raw_score: 0, legend }), score, [0]],
		[
			'score: a level outside the legend goes to Other',
			run({ score: 100, raw_score: 3, legend }),
			score,
			[5],
		],
		[
			'score: a level the workflow does not know goes to Other',
			run({ raw_score: 0, legend: { '0': 'frozen' } }),
			score,
			[5],
		],
		[
			'score: uncertain keeps its score but goes to Uncertain',
			run({ status: 'uncertain', score: 50, raw_score: 1, legend }),
			score,
			[3],
		],
		['score: pending', run({ status: 'pending', raw_score: 1, legend }), score, [4]],
		[
			'classify: every retained label, lowest output first',
			run({ labels: ['question', 'spam'] }),
			classify,
			[0, 1],
		],
		['classify: one label', run({ labels: ['question'] }), classify, [1]],
		['classify: none retained goes to No Label', run({ labels: [] }), classify, [2]],
		[
			'classify: none retained, no No Label output, goes to Other',
			run({ labels: [] }),
			classifyWithoutNoLabel,
			[4],
		],
		[
			'classify: an unknown label goes to Other, known ones to theirs',
			run({ labels: ['spam', 'legal'] }),
			classify,
			[0, 5],
		],
		[
			'classify: two unknown labels reach Other once',
			run({ labels: ['legal', 'hr'] }),
			classify,
			[5],
		],
		['classify: uncertain', run({ status: 'uncertain', labels: ['spam'] }), classify, [3]],
		['classify: pending', run({ status: 'pending', labels: [] }), classify, [4]],
	])('%s', (_name, answer, layout, expected) => {
		expect(targetsFor(answer, layout)).toEqual(expected);
	});
});

describe('answers a newer service may send', () => {
	test.each<[string, Partial<Run>, RegExp]>([
		['an unknown status', { status: 'escalated', choice: 'billing' }, /status "escalated"/],
		['confidence above 1', { confidence: 1.7, choice: 'billing' }, /confidence 1.7/],
		['a score above 100', { score: 140, raw_score: 2, legend }, /score 140/],
		[
			'a probability below 0',
			{ probabilities: { billing: -0.2 }, choice: 'billing' },
			/probability of "billing"/,
		],
	])('%s goes to Other with a note', (_name, fields, note) => {
		const answer = run(fields);
		expect(anomalyOf(answer)).toMatch(note);
		expect(targetsFor(answer, route)).toEqual([route.other]);
		expect(otherNote(answer, route)).toMatch(note);
	});

	it('an unknown engine, confidence source or extra field changes nothing', () => {
		const answer = {
			...run({ choice: 'sales' }),
			engine: 'jev2',
			confidence_source: 'ensemble',
			shiny: true,
		} as Run;
		expect(anomalyOf(answer)).toBeUndefined();
		expect(targetsFor(answer, route)).toEqual([2]);
		expect(otherNote(answer, route)).toBeUndefined();
		expect(answerOf(answer, false)).toMatchObject({ engine: 'jev2', shiny: true });
	});

	it('a key the Outputs list does not have is named in the note', () => {
		expect(otherNote(run({ choice: 'legal' }), route)).toMatch(
			/"legal" is not in the Outputs list/,
		);
		expect(otherNote(run({ labels: ['spam', 'hr'] }), classify)).toMatch(
			/"hr" is not in the Outputs list/,
		);
	});
});

describe('outputsLayout from the saved Outputs list', () => {
	const nameOf = (id: string) => FIXED_OUTPUT_NAMES[id as keyof typeof FIXED_OUTPUT_NAMES] ?? id;
	const list = (...ids: Array<string | { id: string; removed?: boolean; display?: boolean }>) =>
		ids.map((id) =>
			typeof id === 'string'
				? { id, displayName: nameOf(id) }
				: { displayName: nameOf(id.id), ...id },
		);

	test.each<[string, ReturnType<typeof list>]>([
		['keys only (saved before the fixed entries existed)', list('billing', 'technical')],
		[
			'fixed entries in the list',
			list('billing', 'technical', ENTRY.uncertain, ENTRY.pending, ENTRY.other),
		],
		[
			'hidden entries have no output; a key the user removed keeps an empty one',
			list(
				'billing',
				{ id: 'technical', removed: true },
				ENTRY.uncertain,
				ENTRY.pending,
				ENTRY.other,
				{ id: HIDDEN_ENTRY.question, display: false },
			),
		],
		[
			'a kept error position, then keys added after a refresh',
			list(
				'billing',
				ENTRY.uncertain,
				ENTRY.pending,
				ENTRY.other,
				`${ENTRY.errorKeeperPrefix}1__`,
				'legal',
			),
		],
		[
			'fixed entries cannot be removed; a kept error position can',
			list('billing', { id: ENTRY.uncertain, removed: true }, ENTRY.pending, ENTRY.other, {
				id: `${ENTRY.errorKeeperPrefix}1__`,
				removed: true,
			}),
		],
		['a list missing one fixed entry gets it at its end', list('billing', ENTRY.other)],
	])('%s: configuredOutputs and outputsLayout agree', (_name, schema) => {
		const layout = outputsLayout(schema);
		const names = configuredOutputs({ routes: { schema } } as never).map(
			(output) => output.displayName,
		);
		expect(names).toHaveLength(layout.count);
		expect(names[layout.uncertain]).toBe('Uncertain');
		expect(names[layout.pending]).toBe('Pending Review');
		expect(names[layout.other]).toBe('Other');
		for (const [key, index] of layout.indexOf) expect(names[index]).toBe(key);
		for (const index of layout.errorKeepers)
			expect(names[index]).toBe(`${ENTRY.errorKeeperPrefix}1__`);
	});

	it('places each output where the list says, the kept error position included', () => {
		const layout = outputsLayout([
			{ id: 'billing' },
			{ id: ENTRY.uncertain },
			{ id: ENTRY.pending },
			{ id: ENTRY.other },
			{ id: `${ENTRY.errorKeeperPrefix}1__` },
			{ id: 'legal' },
			{ id: HIDDEN_ENTRY.decision, display: false },
		]);
		expect(layout).toMatchObject({
			uncertain: 1,
			pending: 2,
			other: 3,
			errorKeepers: [4],
			count: 6,
		});
		expect(layout.indexOf.get('legal')).toBe(5);
		expect(targetsFor(run({ choice: 'legal' }), layout)).toEqual([5]);
	});

	it('a key the user deleted from the list goes to Other; its empty output keeps its place', () => {
		const layout = outputsLayout([
			{ id: 'billing' },
			{ id: 'sales', removed: true },
			{ id: 'account' },
		]);
		expect(targetsFor(run({ choice: 'sales' }), layout)).toEqual([layout.other]);
		// account stays at 2: the wire on it does not move to the output before.
		expect(layout.indexOf.get('account')).toBe(2);
		expect(layout.count).toBe(6);
	});

	it('the plan reads the ids outputs/list.ts writes (plan.ts defines them once)', () => {
		const names = configuredOutputs({
			routes: {
				schema: [
					{ id: ENTRY.other, displayName: 'Other', removed: true },
					{ id: `${ENTRY.errorKeeperPrefix}1__`, displayName: ERROR_KEEPER_NAME },
					{ id: `${ENTRY.errorKeeperPrefix}2__`, displayName: ERROR_KEEPER_NAME, removed: true },
					{ id: HIDDEN_ENTRY.type, displayName: 'route', display: false },
				],
			},
		} as never).map((output) => output.displayName);
		expect(names).toEqual([
			'Other',
			ERROR_KEEPER_NAME,
			`✕ ${ERROR_KEEPER_NAME}`,
			FIXED_OUTPUT_NAMES[ENTRY.uncertain],
			FIXED_OUTPUT_NAMES[ENTRY.pending],
		]);
	});
});

describe('an item on several outputs', () => {
	it('is a separate copy on each: editing one cannot change another', () => {
		const item = {
			json: { text: 'post', decision: { labels: ['spam', 'promotion'], nested: { n: 1 } } },
			pairedItem: { item: 0 },
		};
		const placed = itemPerTarget(item, [0, 2, 5]);
		expect(placed.map(([target]) => target)).toEqual([0, 2, 5]);
		const [first, second, third] = placed.map(([, each]) => each);
		expect(second.json).toEqual(first.json);
		(first.json.decision as { nested: { n: number } }).nested.n = 2;
		first.json.text = 'edited';
		(second.json.decision as { labels: string[] }).labels.push('edited');
		expect(second.json.text).toBe('post');
		expect((second.json.decision as { nested: { n: number } }).nested.n).toBe(1);
		expect((third.json.decision as { labels: string[] }).labels).toEqual(['spam', 'promotion']);
		expect(third.pairedItem).toEqual({ item: 0 });
	});
});

describe("where a person's pick goes (Review)", () => {
	// Not Reviewed (0), billing (1), sales (2), No Label (3); fixed entries are not Review's outputs.
	const layout = reviewLayout([
		'billing',
		'sales',
		NO_LABEL_KEY,
		ENTRY.uncertain,
		ENTRY.pending,
		ENTRY.other,
	]);

	it.each<[string, string[] | undefined, number[]]>([
		['no pick: Not Reviewed', undefined, [0]],
		['one key: its output', ['sales'], [2]],
		['labels: each once, lowest first', ['sales', 'billing', 'sales'], [1, 2]],
		['no label: No Label', [], [3]],
		['a key the list no longer has: Not Reviewed', ['refund'], [0]],
	])('%s', (_name, keys, expected) => {
		expect(pickTargets(keys, layout)).toEqual(expected);
	});
});
