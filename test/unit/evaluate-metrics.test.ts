import { evaluate, DEFAULT_THRESHOLDS, type ScoredItem } from '../../src/evaluate';
import { evaluationDecisionOf, type EvaluationDecision } from '../../src/answer';
import { wilsonInterval } from '../../src/evaluate/stats';
import { jsonObject } from '../support/js-names';
import { answerOfRun, type RunFields } from '../support/answers';

type EvaluatedRun = RunFields;

// Every expected figure below is computed by hand from the small tables in the comments.

/** The 95 % interval a rate of `successes` of `n` carries (the formula is tested in evaluate-stats). */
const ci = (successes: number, n: number) => {
	const { low, high } = wilsonInterval(successes, n);
	return { low, high, n, level: 0.95 };
};

const item = (expected: unknown, run: EvaluatedRun, charged = 0): ScoredItem => ({
	expected,
	run: answerOfRun(run),
	charged,
});

const routeRun = (
	status: string,
	choice: string | undefined,
	confidence: number,
	engine: string | null = 'jev',
	probabilities?: Record<string, number>,
): EvaluatedRun => ({
	status,
	...(choice === undefined ? {} : { choice }),
	confidence,
	...(engine === null ? {} : { engine, model: `${engine}-1` }),
	...(probabilities ? { probabilities } : {}),
});

describe('route', () => {
	// keys: billing, technical, sales, account, legal (legal: never expected, never predicted)
	//  #  expected   status     choice     confidence  engine        charged
	//  0  billing    ok         billing    0.90        jev           1
	//  1  billing    ok         billing    0.80        jev           1
	//  2  billing    ok         technical  0.55        jev           1
	//  3  technical  ok         technical  0.95        jev           1
	//  4  technical  uncertain  __uncertain__ 0.40     (none)        0
	//  5  sales      ok         billing    0.60        jev           0
	//  6  sales      pending    sales      0.50        jev           0
	//  7  account    ok         account    0.70        llm_fallback  0
	const decision: EvaluationDecision = {
		type: 'route',
		keys: ['billing', 'technical', 'sales', 'account', 'legal'],
	};
	const items = [
		item('billing', routeRun('ok', 'billing', 0.9), 1),
		item('billing', routeRun('ok', 'billing', 0.8), 1),
		item('billing', routeRun('ok', 'technical', 0.55), 1),
		item('technical', routeRun('ok', 'technical', 0.95), 1),
		item('technical', routeRun('uncertain', '__uncertain__', 0.4, null)),
		item('sales', routeRun('ok', 'billing', 0.6)),
		item('sales', routeRun('pending', 'sales', 0.5)),
		item('account', routeRun('ok', 'account', 0.7, 'llm_fallback')),
	];
	const { metrics, problems } = evaluate(decision, items, {
		thresholds: [0, 0.6, 0.8, 0.95],
		targetAccuracy: 0.8,
	});
	if (metrics.type !== 'route') throw new Error('expected route metrics');

	it('counts answered items and accuracy over them only', () => {
		expect(problems).toEqual([]);
		expect(metrics.total).toBe(8);
		// answered: 0,1,2,3,5,7 = 6; correct: 0,1,3,7 = 4
		expect(metrics.answered).toBe(6);
		expect(metrics.coverage).toBe(6 / 8);
		expect(metrics.accuracy).toBe(4 / 6);
		expect(metrics.statuses).toEqual({ ok: 6, uncertain: 1, pending: 1, other: 0 });
		expect(metrics.uncertainRate).toBe(1 / 8);
		expect(metrics.pendingRate).toBe(1 / 8);
		expect(metrics.otherRate).toBe(0);
	});

	it('gives every rate its 95 % interval over its own count', () => {
		expect(metrics.accuracyInterval).toEqual(ci(4, 6));
		expect(metrics.coverageInterval).toEqual(ci(6, 8));
		expect(metrics.uncertainRateInterval).toEqual(ci(1, 8));
		expect(metrics.pendingRateInterval).toEqual(ci(1, 8));
		expect(metrics.otherRateInterval).toEqual(ci(0, 8));
		// 4 of 6 right: 30–90 %, wide on so few items
		expect(metrics.accuracyInterval).toMatchObject({
			low: expect.closeTo(0.3, 2),
			high: expect.closeTo(0.9032, 3),
		});
	});

	it('gives precision, recall and F1 per option, null where undefined', () => {
		const byKey = new Map(metrics.classes.map((c) => [c.key, c]));
		// billing: predicted 0,1,5 (3), TP 0,1 (2), answered support 0,1,2 (3) → P 2/3, R 2/3, F1 2/3
		expect(byKey.get('billing')).toEqual({
			key: 'billing',
			support: 3,
			answeredSupport: 3,
			predicted: 3,
			truePositives: 2,
			precision: 2 / 3,
			precisionInterval: ci(2, 3),
			recall: 2 / 3,
			recallInterval: ci(2, 3),
			f1: expect.closeTo(2 / 3, 12),
		});
		// technical: predicted 2,3 (2), TP 3, answered support 3 only (4 is uncertain: not wrong)
		// → P 1/2, R 1, F1 2·0.5·1/1.5 = 2/3
		expect(byKey.get('technical')).toMatchObject({
			support: 2,
			answeredSupport: 1,
			predicted: 2,
			precision: 0.5,
			recall: 1,
		});
		expect(byKey.get('technical')?.f1).toBeCloseTo(2 / 3, 12);
		// precision over the 2 answers given, recall over the 1 answered item expecting it
		expect(byKey.get('technical')?.precisionInterval).toEqual(ci(1, 2));
		expect(byKey.get('technical')?.recallInterval).toEqual(ci(1, 1));
		// sales: never predicted → precision null (not NaN); answered support 1 (item 5), TP 0 → R 0;
		// F1 null because precision is null
		expect(byKey.get('sales')).toMatchObject({
			support: 2,
			answeredSupport: 1,
			predicted: 0,
			precision: null,
			recall: 0,
			f1: null,
		});
		expect(byKey.get('account')).toMatchObject({ precision: 1, recall: 1, f1: 1 });
		// legal: an empty class: nothing to divide by anywhere
		expect(byKey.get('legal')).toEqual({
			key: 'legal',
			support: 0,
			answeredSupport: 0,
			predicted: 0,
			truePositives: 0,
			precision: null,
			precisionInterval: null,
			recall: null,
			recallInterval: null,
			f1: null,
		});
		// macro F1 over the defined F1s: (2/3 + 2/3 + 1) / 3 = 7/9
		expect(metrics.macroF1).toBeCloseTo(7 / 9, 12);
	});

	it('builds the confusion matrix: rows expected, columns predicted, then no-answer columns', () => {
		expect(metrics.confusion.keys).toEqual(['billing', 'technical', 'sales', 'account', 'legal']);
		const rows = metrics.confusion.rows.map((r) => [
			r.expected,
			...r.predicted,
			r.uncertain,
			r.pending,
			r.other,
			r.total,
		]);
		expect(rows).toEqual([
			//            bil tec sal acc leg unc pen oth total
			['billing', 2, 1, 0, 0, 0, 0, 0, 0, 3],
			['technical', 0, 1, 0, 0, 0, 1, 0, 0, 2],
			['sales', 1, 0, 0, 0, 0, 0, 1, 0, 2],
			['account', 0, 0, 0, 1, 0, 0, 0, 0, 1],
			['legal', 0, 0, 0, 0, 0, 0, 0, 0, 0],
		]);
	});

	it('counts engines, models and units', () => {
		// jev: 0,1,2,3,5,6; llm_fallback: 7; none: 4 (ties on count: by name, null last)
		expect(metrics.engines).toEqual([
			{ name: 'jev', count: 6 },
			{ name: 'llm_fallback', count: 1 },
			{ name: null, count: 1 },
		]);
		expect(metrics.models[0]).toEqual({ name: 'jev-1', count: 6 });
		expect(metrics.units).toEqual({ charged: 4, fresh: 4, reused: 4 });
	});

	it('tabulates coverage against accuracy over confidence and recommends the lowest threshold', () => {
		// answered confidences: 0.90✓ 0.80✓ 0.55✗ 0.95✓ 0.60✗ 0.70✓ (✓ correct)
		const row = (threshold: number, count: number, right: number) => ({
			threshold,
			count,
			coverage: count / 8,
			coverageInterval: ci(count, 8),
			accuracy: right / count,
			accuracyInterval: ci(right, count),
		});
		expect(metrics.coverageByConfidence).toEqual([
			row(0, 6, 4),
			row(0.6, 5, 4),
			row(0.8, 3, 3),
			row(0.95, 1, 1),
		]);
		// target 0.8: 0.00 gives 0.667, 0.60 gives 0.8, but on 5 items (lower bound 38 %): nothing
		// is supported; 0.60 reaches the target on its figures, exactly: no number of items is enough.
		expect(metrics.recommended.confidence).toBeNull();
		expect(metrics.recommended.notYet.confidence).toEqual({
			threshold: 0.6,
			items: 5,
			accuracy: 0.8,
			accuracyInterval: ci(4, 5),
			needed: null,
		});
		const strict = evaluate(decision, items, { thresholds: [0, 0.6, 0.8], targetAccuracy: 1.01 });
		expect(strict.metrics.recommended.confidence).toBeNull();
		expect(strict.metrics.recommended.notYet.confidence).toBeNull();
	});

	it('recommends a threshold only when the 95 % lower bound of its accuracy reaches the target', () => {
		// 60 answers at confidence 0.9, all right; 40 at 0.5, half right. Target 0.9.
		const many = (sure: number) => [
			...Array.from({ length: sure }, () => item('billing', routeRun('ok', 'billing', 0.9))),
			...Array.from({ length: 40 }, (_, i) =>
				item('billing', routeRun('ok', i % 2 ? 'billing' : 'sales', 0.5)),
			),
		];
		const supported = evaluate(decision, many(60), { targetAccuracy: 0.9 }).metrics;
		// from 0.55 on, 60 of 60 right: Wilson 94.0–100 %, low end ≥ 90 %
		expect(supported.recommended.confidence).toMatchObject({ threshold: 0.55, count: 60 });
		expect(supported.recommended.confidence?.accuracyInterval?.low).toBeGreaterThanOrEqual(0.9);
		expect(supported.recommended.notYet.confidence).toBeNull();
		// 20 of 20 right: 100 % on its figures, but Wilson's low end is 83.9 %: not yet. About
		// 35 items are needed (n / (n + z²) ≥ 0.9 ⇔ n ≥ 9z² = 34.6).
		const few = evaluate(decision, many(20), { targetAccuracy: 0.9 }).metrics;
		expect(few.recommended.confidence).toBeNull();
		expect(few.recommended.notYet.confidence).toMatchObject({
			threshold: 0.55,
			items: 20,
			accuracy: 1,
			needed: 35,
		});
		expect(few.recommended.notYet.confidence?.accuracyInterval.low).toBeCloseTo(0.839, 3);
	});

	it('keeps per-item outcomes for the node', () => {
		expect(metrics.items[2]).toEqual({
			index: 2,
			status: 'ok',
			answered: true,
			correct: false,
			expected: 'billing',
			predicted: 'technical',
			guessRight: null,
			confidence: 0.55,
			gap: null,
			charged: 1,
		});
		expect(metrics.items[4]).toMatchObject({ answered: false, correct: null, status: 'uncertain' });
	});

	it('sends an ok run whose choice the decision does not know to Other, not to a wrong answer', () => {
		const { metrics: m } = evaluate(decision, [
			item('billing', routeRun('ok', 'refunds', 0.9)),
			item('billing', routeRun('shelved', 'billing', 0.9)),
			item('billing', { status: 'ok' }),
		]);
		if (m.type !== 'route') throw new Error('route');
		expect(m.answered).toBe(0);
		expect(m.accuracy).toBeNull();
		expect(m.otherRate).toBe(1);
		expect(m.statuses).toEqual({ ok: 2, uncertain: 0, pending: 0, other: 1 });
		expect(m.confusion.rows[0]).toMatchObject({ other: 3, total: 3 });
	});
});

describe('unknown or malformed expected answers', () => {
	const decision: EvaluationDecision = { type: 'route', keys: ['billing', 'technical'] };

	it('leaves the item out with a problem naming the index, the key and the known keys', () => {
		const { metrics, problems } = evaluate(decision, [
			item('billing', routeRun('ok', 'billing', 0.9)),
			item('technical', routeRun('ok', 'technical', 0.9)),
			item('refunds', routeRun('ok', 'billing', 0.9)),
		]);
		expect(metrics.total).toBe(2);
		expect(metrics.accuracy).toBe(1);
		expect(problems).toEqual([
			{
				code: 'unknown_expected_key',
				index: 2,
				key: 'refunds',
				knownKeys: ['billing', 'technical'],
				message:
					'The expected option "refunds" is not one of the decision\'s options ("billing", "technical").',
			},
		]);
	});

	it('rejects a wrong shape: a number for route or classify, an empty string for classify', () => {
		const route = evaluate(decision, [item(3, routeRun('ok', 'billing', 0.9))]);
		expect(route.problems[0]).toMatchObject({ code: 'invalid_expected', index: 0 });
		expect(route.problems[0].message).not.toContain('Item 0');
		for (const expected of [3, '', ' , ', undefined]) {
			const classify = evaluate({ type: 'classify', keys: ['spam'] }, [
				item(expected, { status: 'ok', labels: ['spam'] }),
			]);
			expect(classify.problems[0]).toMatchObject({ code: 'invalid_expected', index: 0 });
		}
	});

	it('reads classify expected answers written as a sheet holds them: "billing, refund", "no label"', () => {
		const labels = { type: 'classify' as const, keys: ['billing', 'refund', 'spam'] };
		const { metrics, problems } = evaluate(labels, [
			item('billing, refund', { status: 'ok', labels: ['refund', 'billing'] }),
			item(' spam ,', { status: 'ok', labels: ['spam'] }),
			item('no label', { status: 'ok', labels: [] }),
			item(['billing', 'billing'], { status: 'ok', labels: ['billing'] }),
		]);
		expect(problems).toEqual([]);
		expect(metrics.items.map((outcome) => outcome.correct)).toEqual([true, true, true, true]);
		const unknown = evaluate(labels, [item('billing, refnd', { status: 'ok', labels: [] })]);
		expect(unknown.problems[0]).toMatchObject({ code: 'unknown_expected_key', key: 'refnd' });
	});

	it('evaluates an empty list to nulls, never NaN', () => {
		const { metrics } = evaluate(decision, []);
		expect(metrics.total).toBe(0);
		expect(metrics.coverage).toBeNull();
		expect(metrics.accuracy).toBeNull();
		expect(metrics.uncertainRate).toBeNull();
		expect(metrics.coverageByConfidence).toHaveLength(DEFAULT_THRESHOLDS.length);
		expect(metrics.coverageByConfidence[0]).toEqual({
			threshold: 0,
			count: 0,
			coverage: 0,
			coverageInterval: null,
			accuracy: null,
			accuracyInterval: null,
		});
		// no count, no interval: null like the rate, never 0–100 % dressed as a figure
		expect(metrics.accuracyInterval).toBeNull();
		expect(metrics.coverageInterval).toBeNull();
		expect(metrics.recommended.notYet).toEqual({ confidence: null, gap: null });
		expect(JSON.stringify(metrics)).not.toContain('NaN');
	});
});

describe('the gap table and ties', () => {
	// keys a, b, c
	//  #  expected  choice  probabilities          gap (leader − runner-up)       correct
	//  0  a         a       a .7  b .2  c .1       .7 − .2 = .5 (float .49999…)  ✓
	//  1  b         a       a .45 b .4  c .15      .05                           ✗
	//  2  c         c       c .4  a .4  b .2       tie: own answer c leads, 0    ✓
	//  3  b         b       b .6  a .3  c .1       .3                            ✓
	const decision: EvaluationDecision = { type: 'route', keys: ['a', 'b', 'c'] };
	const p = (a: number, b: number, c: number) => ({ a, b, c });
	const items = [
		item('a', routeRun('ok', 'a', 0.7, 'jev', p(0.7, 0.2, 0.1))),
		item('b', routeRun('ok', 'a', 0.45, 'jev', p(0.45, 0.4, 0.15))),
		item('c', routeRun('ok', 'c', 0.4, 'jev', p(0.4, 0.2, 0.4))),
		item('b', routeRun('ok', 'b', 0.6, 'jev', p(0.3, 0.6, 0.1))),
	];
	const { metrics } = evaluate(decision, items, { gaps: [0, 0.1, 0.3, 0.5], targetAccuracy: 0.9 });

	it('measures the gap with float noise removed', () => {
		expect(metrics.items.map((o) => o.gap)).toEqual([0.5, 0.05, 0, 0.3]);
	});

	it('tabulates coverage over the gap', () => {
		const row = (threshold: number, count: number, right: number) => ({
			threshold,
			count,
			coverage: count / 4,
			coverageInterval: ci(count, 4),
			accuracy: right / count,
			accuracyInterval: ci(right, count),
		});
		expect(metrics.coverageByGap).toEqual([
			row(0, 4, 3),
			row(0.1, 2, 2),
			row(0.3, 2, 2),
			row(0.5, 1, 1),
		]);
		// 0.10 reaches 90 % on 2 items (100 %, 34–100 %): not supported; about 35 items needed
		expect(metrics.recommended.gap).toBeNull();
		expect(metrics.recommended.notYet.gap).toMatchObject({ threshold: 0.1, items: 2, needed: 35 });
	});
});

describe('score', () => {
	// levels (lowest first): cold 0, warm 1, hot 2, sales-ready 3; level = legend[round(raw_score)]
	//  #  expected     status     raw_score  level         error
	//  0  cold         ok         0.2        cold          0
	//  1  warm         ok         1.6        hot           +1
	//  2  hot          ok         0.4        cold          −2
	//  3  sales-ready  ok         2.7        sales-ready   0
	//  4  hot          uncertain  2.0        (hot)         not answered
	//  5  warm         ok         1.0        (no legend)   Other
	const legend = { '0': 'cold', '1': 'warm', '2': 'hot', '3': 'sales-ready' };
	const decision: EvaluationDecision = {
		type: 'score',
		keys: ['cold', 'warm', 'hot', 'sales-ready'],
	};
	const scoreRun = (status: string, raw: number, withLegend = true): EvaluatedRun => ({
		status,
		raw_score: raw,
		...(withLegend ? { legend } : {}),
		confidence: 0.7,
	});
	const { metrics } = evaluate(decision, [
		item('cold', scoreRun('ok', 0.2)),
		item('warm', scoreRun('ok', 1.6)),
		item('hot', scoreRun('ok', 0.4)),
		item('sales-ready', scoreRun('ok', 2.7)),
		item('hot', scoreRun('uncertain', 2.0)),
		item('warm', scoreRun('ok', 1.0, false)),
	]);
	if (metrics.type !== 'score') throw new Error('expected score metrics');

	it('gives exact accuracy, mean absolute error and within-one accuracy over answered items', () => {
		expect(metrics.total).toBe(6);
		expect(metrics.answered).toBe(4);
		expect(metrics.coverage).toBe(4 / 6);
		// exact: 0 and 3 → 2/4
		expect(metrics.exactAccuracy).toBe(0.5);
		expect(metrics.accuracy).toBe(0.5);
		// |0| + |1| + |−2| + |0| = 3 → 3/4
		expect(metrics.meanAbsoluteError).toBe(0.75);
		// at most one level off: 0, 1, 3 → 3/4
		expect(metrics.withinOneAccuracy).toBe(0.75);
		expect(metrics.withinOneAccuracyInterval).toEqual(ci(3, 4));
		expect(metrics.uncertainRate).toBe(1 / 6);
		expect(metrics.otherRate).toBe(1 / 6);
	});

	it('histograms the signed level error from −3 to +3', () => {
		expect(metrics.errorHistogram).toEqual([
			{ error: -3, count: 0 },
			{ error: -2, count: 1 },
			{ error: -1, count: 0 },
			{ error: 0, count: 2 },
			{ error: 1, count: 1 },
			{ error: 2, count: 0 },
			{ error: 3, count: 0 },
		]);
	});

	it('builds the level confusion matrix', () => {
		expect(metrics.confusion.rows.map((r) => [...r.predicted, r.uncertain, r.other])).toEqual([
			[1, 0, 0, 0, 0, 0],
			[0, 0, 1, 0, 0, 1],
			[1, 0, 0, 0, 1, 0],
			[0, 0, 0, 1, 0, 0],
		]);
		// warm: never predicted → precision null
		expect(metrics.classes[1]).toMatchObject({ key: 'warm', predicted: 0, precision: null });
	});

	it('takes a number as a level index (0 = lowest), as the legend keys are', () => {
		// 0 → cold (right: raw 0.2 is cold); 2 → hot (raw 0.4 is cold: 2 levels off)
		const { metrics: m, problems } = evaluate(decision, [
			item(0, scoreRun('ok', 0.2)),
			item(2, scoreRun('ok', 0.4)),
			item(4, scoreRun('ok', 0.4)),
			item(1.5, scoreRun('ok', 0.4)),
		]);
		if (m.type !== 'score') throw new Error('score');
		expect(m.items.map((o) => o.expected)).toEqual(['cold', 'hot']);
		expect(m.meanAbsoluteError).toBe(1);
		expect(problems.map((p) => [p.index, p.code])).toEqual([
			[2, 'invalid_expected'],
			[3, 'invalid_expected'],
		]);
		expect(problems[0].message).toBe(
			'The expected level 4 is not a level index (0 to 3) nor a level ("cold", "warm", "hot", "sales-ready").',
		);
	});

	it('rejects an expected level that is not a level label', () => {
		const { problems } = evaluate(decision, [item('Cold', scoreRun('ok', 0))]);
		expect(problems[0].message).toBe(
			'The expected level "Cold" is not one of the decision\'s levels ("cold", "warm", "hot", "sales-ready").',
		);
	});
});

describe('classify', () => {
	// labels: spam, promotion, question, toxic (toxic: never expected, never predicted)
	//  #  expected          status     labels             exact  wrong label decisions
	//  0  spam, promotion   ok         spam, promotion    ✓      0
	//  1  question          ok         question, spam     ✗      1 (spam)
	//  2  (none)            ok         (none)             ✓      0
	//  3  promotion         ok         (none)             ✗      1 (promotion)
	//  4  question          uncertain  question           not answered
	//  5  spam, spam        ok         spam               ✓      0 (the list is a set)
	const decision: EvaluationDecision = {
		type: 'classify',
		keys: ['spam', 'promotion', 'question', 'toxic'],
	};
	const labelRun = (status: string, labels: string[]): EvaluatedRun => ({
		status,
		labels,
		confidence: 0.5,
		engine: 'jev',
	});
	const { metrics } = evaluate(decision, [
		item(['spam', 'promotion'], labelRun('ok', ['spam', 'promotion'])),
		item(['question'], labelRun('ok', ['question', 'spam'])),
		item([], labelRun('ok', [])),
		item(['promotion'], labelRun('ok', [])),
		item(['question'], labelRun('uncertain', ['question'])),
		item(['spam', 'spam'], labelRun('ok', ['spam'])),
	]);
	if (metrics.type !== 'classify') throw new Error('expected classify metrics');

	it('gives exact-set match and Hamming loss over answered items', () => {
		expect(metrics.answered).toBe(5);
		expect(metrics.exactSetMatch).toBe(3 / 5);
		expect(metrics.exactSetMatchInterval).toEqual(ci(3, 5));
		// 2 wrong decisions / (5 answered × 4 labels)
		expect(metrics.hammingLoss).toBe(2 / 20);
		expect(metrics.uncertainRate).toBe(1 / 6);
	});

	it('gives precision, recall and F1 per label', () => {
		const byKey = new Map(metrics.labels.map((c) => [c.key, c]));
		// spam: expected 0,5; predicted 0,1,5; TP 0,5 → P 2/3, R 1, F1 (4/3)/(5/3) = 0.8
		expect(byKey.get('spam')).toMatchObject({
			support: 2,
			answeredSupport: 2,
			predicted: 3,
			truePositives: 2,
			precision: 2 / 3,
			recall: 1,
		});
		expect(byKey.get('spam')?.f1).toBeCloseTo(0.8, 12);
		// promotion: expected 0,3; predicted 0; TP 0 → P 1, R 1/2, F1 2/3
		expect(byKey.get('promotion')).toMatchObject({ precision: 1, recall: 0.5 });
		expect(byKey.get('promotion')?.f1).toBeCloseTo(2 / 3, 12);
		// question: expected 1 and 4 (4 uncertain → support 2, answered support 1); predicted 1
		expect(byKey.get('question')).toMatchObject({
			support: 2,
			answeredSupport: 1,
			precision: 1,
			recall: 1,
			f1: 1,
		});
		expect(byKey.get('toxic')).toMatchObject({ precision: null, recall: null, f1: null });
		// (0.8 + 2/3 + 1) / 3 = 37/45
		expect(metrics.macroF1).toBeCloseTo(37 / 45, 12);
	});

	it('names an unknown label in the expected list', () => {
		const { problems } = evaluate(decision, [item(['spam', 'nsfw'], labelRun('ok', ['spam']))]);
		expect(problems[0]).toMatchObject({ code: 'unknown_expected_key', index: 0, key: 'nsfw' });
		expect(problems[0].message).toContain('"nsfw"');
	});
});

describe("names that are JavaScript's own", () => {
	it('route keys constructor, __proto__, toString are ordinary keys', () => {
		const decision: EvaluationDecision = {
			type: 'route',
			keys: ['constructor', '__proto__', 'toString'],
		};
		const probabilities = jsonObject<Record<string, number>>([
			['__proto__', 0.6],
			['constructor', 0.3],
			['toString', 0.1],
		]);
		const { metrics, problems } = evaluate(decision, [
			item('__proto__', routeRun('ok', '__proto__', 0.6, 'jev', probabilities)),
			item('constructor', routeRun('ok', '__proto__', 0.6, 'jev', probabilities)),
			item('toString', routeRun('ok', 'toString', 0.6, 'constructor')),
			// valueOf and hasOwnProperty are inherited by every object, not keys of this decision
			item('valueOf', routeRun('ok', 'toString', 0.6)),
			item('toString', routeRun('ok', 'hasOwnProperty', 0.6)),
		]);
		if (metrics.type !== 'route') throw new Error('route');
		expect(problems.map((p) => [p.index, p.key])).toEqual([[3, 'valueOf']]);
		expect(metrics.total).toBe(4);
		expect(metrics.answered).toBe(3);
		expect(metrics.otherRate).toBe(1 / 4);
		expect(metrics.accuracy).toBe(2 / 3);
		expect(metrics.items[0].gap).toBeCloseTo(0.3, 12);
		expect(metrics.classes.map((c) => [c.key, c.precision, c.recall])).toEqual([
			['constructor', null, 0],
			['__proto__', 0.5, 1],
			['toString', 1, 1],
		]);
		expect(metrics.engines).toEqual([
			{ name: 'jev', count: 3 },
			{ name: 'constructor', count: 1 },
		]);
		expect(Object.getPrototypeOf(metrics)).toBe(Object.prototype);
	});

	it('score levels named __proto__ and constructor, read from an own-key legend', () => {
		const legend = jsonObject<Record<string, string>>([
			['0', '__proto__'],
			['1', 'constructor'],
		]);
		const { metrics, problems } = evaluate({ type: 'score', keys: ['__proto__', 'constructor'] }, [
			item('__proto__', { status: 'ok', raw_score: 0.2, legend }),
			item('constructor', { status: 'ok', raw_score: 0.1, legend }),
		]);
		expect(problems).toEqual([]);
		if (metrics.type !== 'score') throw new Error('score');
		expect(metrics.accuracy).toBe(0.5);
		expect(metrics.meanAbsoluteError).toBe(0.5);
	});

	it('classify labels tostring and constructor', () => {
		const { metrics } = evaluate({ type: 'classify', keys: ['constructor', 'tostring'] }, [
			item(['constructor'], { status: 'ok', labels: ['constructor'] }),
			item(['tostring'], { status: 'ok', labels: ['constructor', 'tostring'] }),
		]);
		if (metrics.type !== 'classify') throw new Error('classify');
		expect(metrics.exactSetMatch).toBe(0.5);
		expect(metrics.hammingLoss).toBe(1 / 4);
		expect(metrics.labels.map((l) => [l.key, l.precision])).toEqual([
			['constructor', 0.5],
			['tostring', 1],
		]);
	});
});

describe('evaluationDecisionOf', () => {
	it('takes the keys of the decision type from a decision as the API gives it', () => {
		expect(evaluationDecisionOf({ type: 'route', options: ['a', 'b'], labels: ['x'] })).toEqual({
			type: 'route',
			keys: ['a', 'b'],
		});
		expect(evaluationDecisionOf({ type: 'score', levels: ['low', 'high'] })).toEqual({
			type: 'score',
			keys: ['low', 'high'],
		});
		const thresholds = new Map([['toxic', 0.7]]);
		expect(evaluationDecisionOf({ type: 'classify', labels: ['toxic'] }, thresholds)).toEqual({
			type: 'classify',
			keys: ['toxic'],
			thresholds,
		});
		expect(evaluationDecisionOf({ type: 'classify' })).toEqual({ type: 'classify', keys: [] });
	});
});
