/** Routing is pure: where each run goes for every status and type, and what its item carries. */
import type { RunAnswer as Run } from '../../src/contract';
import {
	anomalyOf,
	answerOf,
	otherNote,
	routeLayout,
	simplifyRun,
	targetsFor,
} from '../../nodes/DecisionService/actions/decision/decide/routing';
import { NO_LABEL_KEY, configuredOutputs } from '../../nodes/DecisionService/outputs';

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

const route = routeLayout(['billing', 'technical', 'sales']);
const legend = { '0': 'cold', '1': 'warm', '2': 'hot' };
const score = routeLayout(['cold', 'warm', 'hot']);
const classify = routeLayout(['spam', 'question', NO_LABEL_KEY]);
const classifyWithoutNoLabel = routeLayout(['spam', 'question']);

describe('routeLayout', () => {
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
		expect(routeLayout([])).toMatchObject({ uncertain: 0, pending: 1, other: 2, count: 3 });
	});
});

describe('targetsFor', () => {
	test.each<[string, Run, ReturnType<typeof routeLayout>, number[]]>([
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

describe('what the item carries', () => {
	it('the whole run, with the level of a score run', () => {
		const scored = run({ score: 50, raw_score: 1.2, legend });
		expect(answerOf(scored, false)).toEqual({ ...scored, level: 'warm' });
		expect(answerOf(run({ choice: 'sales' }), false)).not.toHaveProperty('level');
	});

	it('simplified: answer, status, confidence, run ID, review URL', () => {
		expect(simplifyRun(run({ choice: 'sales' }))).toEqual({
			run_id: 'run_1',
			status: 'ok',
			confidence: 0.9,
			choice: 'sales',
		});
		expect(simplifyRun(run({ score: 80, raw_score: 2, legend }))).toMatchObject({
			score: 80,
			level: 'hot',
		});
		expect(
			simplifyRun(run({ status: 'pending', labels: [], review_url: 'https://r' })),
		).toMatchObject({
			labels: [],
			review_url: 'https://r',
		});
		expect(answerOf(run({ choice: 'sales' }), true)).toEqual(simplifyRun(run({ choice: 'sales' })));
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
