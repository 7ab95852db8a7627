/**
 * The kind module (src/answer/kinds.ts): each rule with a case that fails without it.
 */
import {
	FEEDBACK_CORRECT,
	FEEDBACK_NO_LABEL,
	answerText,
	feedbackOf,
	feedbackText,
	guessOf,
	kindOf,
	kindOfRun,
	readExpected,
	sameAnswer,
	type Kind,
} from '../../src/answer/kinds';

const route = kindOf('route')!;
const score = kindOf('score')!;
const classify = kindOf('classify')!;

describe('kindOf and kindOfRun', () => {
	it('knows the three types, nothing else', () => {
		expect([route, score, classify].map((kind) => kind.type)).toEqual([
			'route',
			'score',
			'classify',
		]);
		expect(kindOf('rank')).toBeUndefined();
		expect(kindOf('constructor')).toBeUndefined();
	});

	it("tells a run's kind by its fields", () => {
		expect(kindOfRun({ labels: [] })?.type).toBe('classify');
		expect(kindOfRun({ raw_score: 1, legend: {} })?.type).toBe('score');
		expect(kindOfRun({ level: 'warm' })?.type).toBe('score');
		expect(kindOfRun({ choice: '__uncertain__' })?.type).toBe('route');
		expect(kindOfRun({})).toBeUndefined();
	});

	it("lists a decision's keys in the service's order", () => {
		const decision = { type: 'score' as const, levels: ['cold', 'warm'], options: ['x'] };
		expect(score.keysOf(decision)).toEqual(['cold', 'warm']);
		expect(route.keysOf({ type: 'route', options: null })).toEqual([]);
	});
});

describe("a run's answer and the machine's guess", () => {
	it('route: the choice, never `__uncertain__`; the guess is the most probable option', () => {
		expect(route.answerOf({ choice: 'sales' })).toEqual(['sales']);
		expect(route.answerOf({ choice: '__uncertain__' })).toBeUndefined();
		const uncertain = { choice: '__uncertain__', probabilities: { billing: 0.2, sales: 0.7 } };
		expect(guessOf(route, uncertain)).toEqual(['sales']);
	});

	it('score: legend[round(raw_score)], a kept level on any status', () => {
		const legend = { '0': 'cold', '1': 'warm', '2': 'hot' };
		expect(score.answerOf({ raw_score: 1.49, legend })).toEqual(['warm']);
		expect(score.answerOf({ raw_score: 1.5, legend })).toEqual(['hot']);
		expect(score.answerOf({ raw_score: 3, legend })).toBeUndefined();
	});

	it('classify: the labels kept, each once; the guess without labels: those at 0.5 or over', () => {
		expect(classify.answerOf({ labels: ['a', 'a', 3] })).toEqual(['a']);
		expect(classify.answerOf({})).toBeUndefined();
		expect(
			guessOf(classify, { probabilities: { b: 0.5, a: 0.9, c: 0.49 } }, ['a', 'b', 'c']),
		).toEqual(['a', 'b']);
	});

	it('shows an answer as a key (route, score) or a list (classify)', () => {
		expect(route.shown(['sales'])).toBe('sales');
		expect(classify.shown(['a'])).toEqual(['a']);
	});
});

describe('a tie at the top is no guess (one rule, every kind)', () => {
	const FOUR = { billing: 0.25, technical: 0.25, sales: 0.25, account: 0.25 };
	const keysOf: Record<string, string[]> = {
		route: ['billing', 'technical', 'sales', 'account'],
		score: ['cold', 'warm', 'hot', 'urgent'],
		classify: ['billing', 'technical', 'sales', 'account'],
	};

	it.each([
		['route: four options at 0.25', route, { choice: '__uncertain__', probabilities: FOUR }],
		['route: two of three at the top', route, { probabilities: { b: 0.4, a: 0.4, c: 0.2 } }],
		[
			'score (no raw score): two levels at the top',
			score,
			{ probabilities: { cold: 0.1, warm: 0.45, hot: 0.45 } },
		],
	] as const)('%s: no guess, with or without the keys’ order', (_name, kind, run) => {
		expect(guessOf(kind, run)).toBeUndefined();
		expect(guessOf(kind, run, keysOf[kind.type])).toBeUndefined();
		expect(guessOf(kind, run, [...keysOf[kind.type]].reverse())).toBeUndefined();
	});

	it('route: a pending run’s choice on a tie (the first in the service’s order) is no guess either', () => {
		const pending = { status: 'pending', choice: 'billing', probabilities: FOUR };
		expect(route.answerOf(pending)).toBeUndefined();
		expect(guessOf(route, pending, keysOf.route)).toBeUndefined();
		// Answered `ok`, the choice is the service's answer, tie or not; untied, a pending choice stays.
		expect(route.answerOf({ ...pending, status: 'ok' })).toEqual(['billing']);
		const untied = { ...pending, probabilities: { ...FOUR, billing: 0.3 } };
		expect(guessOf(route, untied)).toEqual(['billing']);
	});

	it('route and score: a tie below the top leaves the top one its guess', () => {
		expect(guessOf(route, { probabilities: { a: 0.2, b: 0.5, c: 0.2 } })).toEqual(['b']);
		expect(guessOf(score, { probabilities: { cold: 0.3, warm: 0.3, hot: 0.4 } })).toEqual(['hot']);
	});

	it('score: a raw score is the service’s own level, tie or not (no guess is made)', () => {
		const legend = { '0': 'cold', '1': 'warm', '2': 'hot' };
		const run = { raw_score: 1, legend, probabilities: { cold: 0.4, warm: 0.2, hot: 0.4 } };
		expect(guessOf(score, run)).toEqual(['warm']);
	});

	it('classify: each label on its own (no top to tie): equal labels are all kept or all not', () => {
		// Four labels at 0.25: none reaches the threshold, so the guess is "no label" ([]).
		expect(guessOf(classify, { probabilities: FOUR }, keysOf.classify)).toEqual([]);
		const over = { billing: 0.6, technical: 0.6, sales: 0.6, account: 0.6 };
		expect(guessOf(classify, { probabilities: over }, keysOf.classify)).toEqual(keysOf.classify);
	});
});

describe('feedbackOf: what Send Feedback sends', () => {
	it('a label set in the one encoding: a list, or labels separated by ", " (older review rows)', () => {
		expect(feedbackOf(['promotion', 'complaint'])).toBe('promotion,complaint');
		expect(feedbackOf(' promotion, complaint ')).toBe('promotion,complaint');
		expect(feedbackOf('promotion ,complaint,')).toBe('promotion,complaint');
		expect(feedbackOf('promotion,complaint')).toBe('promotion,complaint');
		expect(feedbackOf([])).toBe(FEEDBACK_NO_LABEL);
		// Review's row and Send Feedback agree: the row's answer is sent as it is.
		expect(feedbackOf(answerText(classify, ['promotion', 'complaint']))).toBe(
			feedbackText(classify, ['promotion', 'complaint'], undefined),
		);
	});

	it('any other text as it is, trimmed: correct, no label, a key, a level with words', () => {
		expect(feedbackOf(' correct ')).toBe('correct');
		expect(feedbackOf('no label')).toBe('no label');
		expect(feedbackOf('billing')).toBe('billing');
		expect(feedbackOf('Hot, ready to buy')).toBe('Hot, ready to buy');
		expect(feedbackOf(undefined)).toBe('');
	});
});

describe('readExpected', () => {
	const labels = ['billing', 'refund', 'none'];
	it.each<[Kind, unknown, string[], string[]]>([
		[route, 'billing', ['billing', 'sales'], ['billing']],
		[route, ' sales ', ['billing', 'sales'], ['sales']],
		[score, 'warm', ['cold', 'warm'], ['warm']],
		[score, 1, ['cold', 'warm'], ['warm']],
		[classify, ['refund', 'billing', 'refund'], labels, ['refund', 'billing']],
		[classify, 'billing, refund', labels, ['billing', 'refund']],
		[classify, 'billing,refund,', labels, ['billing', 'refund']],
		[classify, 'no label', labels, []],
		[classify, [], labels, []],
		// "none" is a legal label key: it is read as the label, not as "no label"
		[classify, 'none', labels, ['none']],
	])('%#: %p reads as its keys', (kind, raw, keys, expected) => {
		expect(readExpected(kind, raw, keys)).toEqual({ ok: true, keys: expected });
	});

	it.each<[Kind, unknown, string]>([
		[route, 'Billing', "is not one of the decision's options"],
		[route, 3, 'must be one option'],
		[route, '', 'must be one option'],
		[score, 2, 'not a level index (0 to 1)'],
		[score, 0.5, 'not a level index'],
		[classify, 'billing, refnd', '"refnd" is not one of the decision\'s labels'],
		[classify, '', 'are missing'],
		[classify, ' , ', 'are missing'],
		[classify, undefined, 'are missing'],
		[classify, [1], 'must be label keys'],
	])('%#: %p is refused', (kind, raw, message) => {
		const keys = kind === score ? ['cold', 'warm'] : ['billing', 'refund'];
		const read = readExpected(kind, raw, keys);
		expect(read.ok).toBe(false);
		if (!read.ok) expect(read.message).toContain(message);
	});
});

describe('the one feedback text', () => {
	it('"correct" when the answer equals the machine\'s answer or guess', () => {
		expect(feedbackText(route, ['sales'], ['sales'])).toBe(FEEDBACK_CORRECT);
		expect(feedbackText(classify, ['b', 'a'], ['a', 'b'])).toBe(FEEDBACK_CORRECT);
		expect(feedbackText(classify, [], [])).toBe(FEEDBACK_CORRECT);
	});

	it('else the key, or the labels joined with "," ("no label" for none)', () => {
		expect(feedbackText(route, ['billing'], ['sales'])).toBe('billing');
		expect(feedbackText(score, ['hot'], undefined)).toBe('hot');
		expect(feedbackText(classify, ['a', 'b', 'a'], ['a'])).toBe('a,b');
		expect(feedbackText(classify, [], ['a'])).toBe(FEEDBACK_NO_LABEL);
		expect(answerText(classify, [])).toBe('no label');
	});

	it('what it sends reads back as the same expected answer', () => {
		const keys = ['a', 'b', 'c'];
		for (const answer of [[], ['a'], ['a', 'c']]) {
			const text = answerText(classify, answer);
			expect(readExpected(classify, text, keys)).toEqual({ ok: true, keys: answer });
		}
	});

	it('compares answers as sets', () => {
		expect(sameAnswer(['a', 'b'], ['b', 'a', 'a'])).toBe(true);
		expect(sameAnswer(['a'], ['a', 'b'])).toBe(false);
	});
});
