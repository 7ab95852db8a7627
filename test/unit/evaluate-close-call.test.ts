import {
	closeCall as closeCallOfJudged,
	marginOf as marginOfJudged,
	type EvaluationDecision,
} from '../../src/answer';
import { kindOf, type RunFields } from '../../src/answer/kinds';

// Runs are written as the service sends them; the rule reads their answer through src/answer/kinds.ts.
type Run = RunFields & { status: string };
const judged = (decision: EvaluationDecision, run: Run) => ({
	status: run.status,
	probabilities: run.probabilities,
	answer: kindOf(decision.type)!.answerOf(run),
});
const closeCall = (decision: EvaluationDecision, run: Run, gap: number) =>
	closeCallOfJudged(decision, judged(decision, run), gap);
const marginOf = (decision: EvaluationDecision, run: Run) =>
	marginOfJudged(decision, judged(decision, run));
import { jsonObject } from '../support/js-names';

const route: EvaluationDecision = {
	type: 'route',
	keys: ['billing', 'technical', 'sales', 'account'],
};

describe('close calls: route', () => {
	// billing .50, technical .45 → gap .05 (0.5 − 0.45 is 0.04999… in floating point)
	const run = {
		status: 'ok',
		choice: 'billing',
		probabilities: { billing: 0.5, technical: 0.45, sales: 0.05, account: 0 },
	};

	it('names the runner-up and the gap; close when the gap is at or below the limit', () => {
		expect(closeCall(route, run, 0.05)).toEqual({
			verdict: 'close',
			leader: 'billing',
			leaderProbability: 0.5,
			runnerUp: 'technical',
			runnerUpProbability: 0.45,
			gap: 0.05,
		});
		expect(closeCall(route, run, 0.04)).toMatchObject({ verdict: 'clear', gap: 0.05 });
		expect(marginOf(route, run)).toBe(0.05);
	});

	it('on a tie, the run’s own answer leads; then the decision’s key order', () => {
		const tied = { billing: 0.4, technical: 0.4, sales: 0.2, account: 0 };
		expect(
			closeCall(route, { status: 'ok', choice: 'technical', probabilities: tied }, 0),
		).toMatchObject({ verdict: 'close', leader: 'technical', runnerUp: 'billing', gap: 0 });
		// no choice (an uncertain run says __uncertain__): decision order, billing before technical
		expect(
			closeCall(route, { status: 'uncertain', choice: '__uncertain__', probabilities: tied }, 0),
		).toMatchObject({ verdict: 'close', leader: 'billing', runnerUp: 'technical' });
		// keys the decision does not list come after listed ones on a tie, then by code units
		expect(
			closeCall(route, { status: 'ok', probabilities: { zeta: 0.3, alpha: 0.3, sales: 0.3 } }, 0),
		).toMatchObject({ leader: 'sales', runnerUp: 'alpha' });
	});

	it('a pending run stays pending whatever its gap', () => {
		expect(
			closeCall(
				route,
				{ status: 'pending', choice: 'billing', probabilities: { billing: 0.9, sales: 0.1 } },
				0.5,
			),
		).toEqual({ verdict: 'pending' });
	});

	it('says unknown when fewer than two probabilities exist', () => {
		expect(closeCall(route, { status: 'ok', choice: 'billing' }, 0.1)).toMatchObject({
			verdict: 'unknown',
		});
		expect(
			closeCall(route, { status: 'ok', probabilities: { billing: 1, sales: Number.NaN } }, 0.1),
		).toMatchObject({ verdict: 'unknown' });
		expect(marginOf(route, { status: 'ok' })).toBeUndefined();
	});

	it("JavaScript's own names are keys like others", () => {
		const decision: EvaluationDecision = { type: 'route', keys: ['constructor', '__proto__'] };
		const probabilities = jsonObject<Record<string, number>>([
			['__proto__', 0.55],
			['constructor', 0.45],
		]);
		expect(closeCall(decision, { status: 'ok', choice: '__proto__', probabilities }, 0.1)).toEqual({
			verdict: 'close',
			leader: '__proto__',
			leaderProbability: 0.55,
			runnerUp: 'constructor',
			runnerUpProbability: 0.45,
			gap: 0.1,
		});
		// a probability inherited from Object.prototype is not one: {} has no own `constructor`
		expect(closeCall(decision, { status: 'ok', probabilities: {} }, 0.1)).toMatchObject({
			verdict: 'unknown',
		});
	});
});

describe('close calls: score', () => {
	const score: EvaluationDecision = { type: 'score', keys: ['cold', 'warm', 'hot'] };
	const legend = { '0': 'cold', '1': 'warm', '2': 'hot' };

	it('compares levels; the run’s level (legend[round(raw_score)]) leads a tie', () => {
		// raw_score 1.35 → level 1, warm; warm and hot tie at .45
		const run = {
			status: 'ok',
			raw_score: 1.35,
			legend,
			probabilities: { cold: 0.1, warm: 0.45, hot: 0.45 },
		};
		expect(closeCall(score, run, 0.02)).toMatchObject({
			verdict: 'close',
			leader: 'warm',
			runnerUp: 'hot',
			gap: 0,
		});
		// hot .7, warm .2 → gap .5
		expect(
			closeCall(
				score,
				{ ...run, raw_score: 1.6, probabilities: { cold: 0.1, warm: 0.2, hot: 0.7 } },
				0.2,
			),
		).toMatchObject({ verdict: 'clear', leader: 'hot', runnerUp: 'warm', gap: 0.5 });
	});
});

describe('close calls: classify', () => {
	const thresholds = new Map([
		['spam', 0.5],
		['toxic', 0.7],
	]);
	const classify: EvaluationDecision = {
		type: 'classify',
		keys: ['spam', 'toxic', 'question'],
		thresholds,
	};
	// margins |p − t|: spam |.9 − .5| = .4, toxic |.65 − .7| = .05, question |.2 − .5| = .3
	const run = {
		status: 'ok',
		labels: ['spam'],
		probabilities: { spam: 0.9, toxic: 0.65, question: 0.2 },
	};

	it('the closest call is the label nearest its threshold', () => {
		expect(closeCall(classify, run, 0.05)).toEqual({
			verdict: 'close',
			leader: 'toxic',
			leaderProbability: 0.65,
			runnerUp: 'toxic',
			runnerUpProbability: 0.65,
			runnerUpRetained: false,
			gap: 0.05,
		});
		expect(closeCall(classify, run, 0.04)).toMatchObject({ verdict: 'clear' });
	});

	it('takes 0.5 for a label whose threshold is not given', () => {
		// toxic now |.65 − .5| = .15, question .3, spam .4 → toxic at .15
		expect(
			closeCall({ type: 'classify', keys: ['spam', 'toxic', 'question'] }, run, 0.1),
		).toMatchObject({ verdict: 'clear', leader: 'toxic', gap: 0.15 });
	});

	it('ties go to the decision’s label order', () => {
		expect(
			closeCall(
				{ type: 'classify', keys: ['b', 'a'] },
				{ status: 'ok', labels: ['a', 'b'], probabilities: { a: 0.6, b: 0.6 } },
				0.1,
			),
		).toMatchObject({ leader: 'b', gap: 0.1, runnerUpRetained: true, verdict: 'close' });
	});

	it('a pending classify run stays pending; no probabilities is unknown', () => {
		expect(closeCall(classify, { ...run, status: 'pending' }, 1)).toEqual({ verdict: 'pending' });
		expect(closeCall(classify, { status: 'ok', labels: [] }, 1)).toMatchObject({
			verdict: 'unknown',
		});
	});
});
