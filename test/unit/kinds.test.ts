/**
 * The kind module (src/kinds.ts): each rule with a case that fails without it.
 */
import {
	FEEDBACK_CORRECT,
	FEEDBACK_NO_LABEL,
	answerText,
	feedbackText,
	guessOf,
	kindOf,
	kindOfRun,
	readExpected,
	sameAnswer,
	type Kind,
} from '../../src/kinds';

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
