/**
 * A submitted review form (issue 21): what a browser posts (urlencoded, as n8n parses it with
 * Node's querystring), the same as JSON, and hostile bodies; then the feedback each pick sends.
 */
import { parse } from 'node:querystring';
import { feedbackRequestSchema } from '../../src/contract';
import {
	agreedWith,
	feedbackFor,
	NOTE_MAX_LENGTH,
	parseReviewSubmission,
	renderReviewPage,
	type ReviewItem,
	type ReviewPage,
	type ReviewPick,
} from '../../src/review';
import { reviewRow } from '../../src/answer/labeled-row';
import { feedbackOf } from '../../src/answer/kinds';
import { JS_FIELD_NAMES, JS_KEYS, jsonObject } from '../support/js-names';
import { classifyPage, routePage, scorePage, submit } from '../support/review-pages';

/** The body n8n hands over for an urlencoded request. */
const urlencoded = (text: string) => parse(text, undefined, undefined, { maxKeys: 1000 });

function picksOf(body: unknown, page: ReviewPage): ReviewPick[] {
	const result = parseReviewSubmission(body, page);
	if ('error' in result) throw new Error(`refused: ${result.error}`);
	return result.picks;
}

function errorOf(body: unknown, page: ReviewPage): string {
	const result = parseReviewSubmission(body, page);
	if (!('error' in result)) throw new Error(`taken: ${JSON.stringify(result.picks)}`);
	return result.error;
}

describe('what a browser posts', () => {
	it('an untouched page is no pick at all, for every type', () => {
		for (const page of [routePage(), scorePage(), classifyPage()]) {
			const body = submit(renderReviewPage(page));
			expect(picksOf(body, page)).toEqual([]);
		}
	});

	it('route: the option picked, with the note trimmed; the others left for later', () => {
		const page = routePage();
		const body = submit(renderReviewPage(page), {
			tick: { 'pick-0': ['technical'], 'pick-2': ['sales'] },
			type: { 'note-0': '  The subject says "app crashes".\nNot billing.  ' },
		});
		expect(body['pick-1']).toBe('');
		expect(picksOf(body, page)).toEqual([
			{ index: 0, keys: ['technical'], note: 'The subject says "app crashes".\nNot billing.' },
			{ index: 2, keys: ['sales'] },
		]);
	});

	it('score: the level picked', () => {
		const page = scorePage();
		const body = submit(renderReviewPage(page), { tick: { 'pick-0': ['hot'] } });
		expect(picksOf(body, page)).toEqual([{ index: 0, keys: ['hot'] }]);
	});

	it('classify: the labels ticked (a repeated name), in the answers’ order', () => {
		const page = classifyPage();
		const body = submit(renderReviewPage(page), {
			tick: { 'pick-0': ['spam', 'urgent'], 'pick-1': ['refund'] },
		});
		expect(body['pick-0']).toEqual(['urgent', 'spam']);
		expect(body['pick-1']).toBe('refund');
		expect(picksOf(body, page)).toEqual([
			{ index: 0, keys: ['urgent', 'spam'] },
			{ index: 1, keys: ['refund'] },
		]);
	});

	it('classify: "No label applies" is a pick with no label; nothing ticked is not', () => {
		const page = classifyPage();
		const body = submit(renderReviewPage(page), { tick: { 'none-1': ['1'] } });
		expect(picksOf(body, page)).toEqual([{ index: 1, keys: [] }]);
	});

	it('a route with many options posts its drop-down list the same way', () => {
		const keys = Array.from({ length: 30 }, (_, i) => `option-${i}`);
		const page = routePage({ answers: keys.map((key) => ({ key, label: key })) });
		const html = renderReviewPage(page);
		expect(picksOf(submit(html), page)).toEqual([]);
		expect(picksOf(submit(html, { tick: { 'pick-1': ['option-29'] } }), page)).toEqual([
			{ index: 1, keys: ['option-29'] },
		]);
	});

	it('takes its own page shown again after a refusal', () => {
		const page = routePage();
		const refused = { 'pick-0': 'nope', 'pick-1': 'sales', 'note-1': 'a quote' };
		expect(errorOf(refused, page)).toBe(
			'Nothing was saved yet. Item 1: "nope" is not one of the answers.',
		);
		const again = renderReviewPage(page, { error: 'x', submitted: refused });
		expect(picksOf(submit(again, { tick: { 'pick-0': ['billing'] } }), page)).toEqual([
			{ index: 0, keys: ['billing'] },
			{ index: 1, keys: ['sales'], note: 'a quote' },
		]);
	});
});

describe('string or repeated strings, urlencoded or JSON', () => {
	const page = routePage();

	it('reads a one-element array as the string', () => {
		expect(picksOf({ 'pick-0': ['billing'] }, page)).toEqual([{ index: 0, keys: ['billing'] }]);
	});

	it('reads the same fields from a JSON object', () => {
		const body: unknown = JSON.parse('{"pick-0":"billing","note-0":"ok","pick-1":"","note-1":""}');
		expect(picksOf(body, page)).toEqual([{ index: 0, keys: ['billing'], note: 'ok' }]);
		const labels: unknown = JSON.parse('{"pick-0":["spam","urgent"],"none-1":true}');
		expect(picksOf(labels, classifyPage())).toEqual([
			{ index: 0, keys: ['urgent', 'spam'] },
			{ index: 1, keys: [] },
		]);
	});

	it('takes a JSON null as absent', () => {
		expect(picksOf({ 'pick-0': null, 'note-0': null }, page)).toEqual([]);
	});

	it('reads "No label applies" as a checkbox or a JSON flag would say it', () => {
		const classify = classifyPage();
		for (const on of ['1', 'on', 'true', 'yes', ' ON ', true, ['', '1']]) {
			expect(picksOf({ 'none-1': on }, classify)).toEqual([{ index: 1, keys: [] }]);
		}
		for (const off of ['', '0', 'off', 'false', 'no', false, null]) {
			expect(picksOf({ 'none-1': off }, classify)).toEqual([]);
		}
		expect(errorOf({ 'none-1': 'maybe' }, classify)).toContain(
			'Item 2: "No label applies" is neither ticked nor unticked.',
		);
	});

	it('reads the same label twice as once', () => {
		expect(picksOf({ 'pick-0': ['spam', 'spam', 'urgent'] }, classifyPage())).toEqual([
			{ index: 0, keys: ['urgent', 'spam'] },
		]);
	});

	it('ignores an empty value among the labels', () => {
		expect(picksOf({ 'pick-0': ['', 'spam'] }, classifyPage())).toEqual([
			{ index: 0, keys: ['spam'] },
		]);
	});
});

describe('an untrusted body', () => {
	const page = routePage();

	it('is refused when it is not an object', () => {
		for (const body of [null, undefined, 'pick-0=billing', 42, true, ['pick-0', 'billing']]) {
			expect(errorOf(body, page)).toBe('The submission is not a review form.');
		}
	});

	it('ignores fields it does not know', () => {
		const body = urlencoded(
			'pick-0=billing&foo=bar&pick-x=sales&pick-01=sales&pick--1=sales&note=hi&pick-1.5=sales&PICK-1=sales',
		);
		expect(picksOf(body, page)).toEqual([{ index: 0, keys: ['billing'] }]);
	});

	it('refuses a key that is not an answer, naming the item', () => {
		expect(errorOf({ 'pick-1': 'marketing' }, page)).toBe(
			'Nothing was saved yet. Item 2: "marketing" is not one of the answers.',
		);
		expect(errorOf({ 'pick-0': 'Billing team' }, page)).toContain(
			'Item 1: "Billing team" is not one of the answers.',
		);
		expect(errorOf({ 'pick-0': ['urgent', 'fraud'] }, classifyPage())).toContain(
			'Item 1: "fraud" is not one of the answers.',
		);
	});

	it('refuses the whole submission when one item is wrong', () => {
		const result = parseReviewSubmission({ 'pick-0': 'billing', 'pick-1': 'nope' }, page);
		expect(result).toEqual({
			error: 'Nothing was saved yet. Item 2: "nope" is not one of the answers.',
		});
	});

	it('refuses two answers to a route or score item', () => {
		expect(errorOf({ 'pick-0': ['billing', 'sales'] }, page)).toContain(
			'Item 1: pick one answer, not 2.',
		);
		expect(errorOf({ 'pick-0': ['cold', 'hot'] }, scorePage())).toContain(
			'Item 1: pick one answer, not 2.',
		);
		// The same key twice is one answer.
		expect(picksOf({ 'pick-0': ['billing', 'billing'] }, page)).toEqual([
			{ index: 0, keys: ['billing'] },
		]);
	});

	it('refuses labels together with "No label applies"', () => {
		expect(errorOf({ 'pick-0': 'spam', 'none-0': '1' }, classifyPage())).toContain(
			'Item 1: tick "No label applies" or labels, not both.',
		);
	});

	it('refuses values that are not text', () => {
		expect(errorOf({ 'pick-0': 3 }, page)).toContain('Item 1: the answer is not text.');
		expect(errorOf({ 'pick-0': { billing: true } }, page)).toContain('the answer is not text');
		expect(errorOf({ 'pick-0': ['billing', 3] }, page)).toContain('the answer is not text');
		expect(errorOf({ 'pick-0': 'billing', 'note-0': { text: 'x' } }, page)).toContain(
			'Item 1: the note is not text.',
		);
	});

	it('refuses a note on an item left for later rather than lose it', () => {
		expect(errorOf({ 'note-2': 'Check with Maria' }, page)).toBe(
			'Nothing was saved yet. Item 3: a note is kept only with an answer: pick one, or clear the note.',
		);
		expect(picksOf({ 'note-2': ' \r\n ' }, page)).toEqual([]);
	});

	it('refuses an answer to an item the page does not have, ignores an empty one', () => {
		expect(errorOf({ 'pick-0': 'billing', 'pick-7': 'sales' }, page)).toBe(
			'Nothing was saved yet. Item 8 is not on this page.',
		);
		expect(errorOf({ 'note-3': 'hello' }, page)).toContain('Item 4 is not on this page.');
		expect(picksOf({ 'pick-7': '', 'note-9': '  ' }, page)).toEqual([]);
		expect(picksOf(urlencoded('pick-99999999999=sales'), page)).toEqual([]);
	});

	it('names at most five refused items', () => {
		const many = routePage({
			items: Array.from({ length: 8 }, (_, index) => ({ ...routePage().items[0], index })),
		});
		const body = Object.fromEntries(many.items.map((item) => [`pick-${item.index}`, 'nope']));
		const error = errorOf(body, many);
		expect(error.match(/is not one of the answers/g)).toHaveLength(5);
		expect(error.endsWith('Item 5: "nope" is not one of the answers. And 3 more.')).toBe(true);
	});

	it('names one unknown value and counts the others', () => {
		const values = Array.from({ length: 5000 }, (_, i) => `bad-${i}`);
		const error = errorOf({ 'pick-0': ['urgent', ...values, 'bad-0'] }, classifyPage());
		expect(error).toBe(
			'Nothing was saved yet. Item 1: "bad-0" and 4999 more are not among the answers.',
		);
	});

	it('cuts a long hostile key in its message', () => {
		const error = errorOf({ 'pick-0': 'x'.repeat(10_000) }, page);
		expect(error.length).toBeLessThan(200);
		expect(error).toContain(`"${'x'.repeat(60)}…"`);
	});

	it('caps a huge note, never in the middle of a character', () => {
		const [pick] = picksOf({ 'pick-0': 'billing', 'note-0': `  ${'a'.repeat(50_000)}` }, page);
		expect(pick.note).toHaveLength(NOTE_MAX_LENGTH);
		const emoji = `${'a'.repeat(NOTE_MAX_LENGTH - 1)}😀😀`;
		const [cut] = picksOf({ 'pick-0': 'billing', 'note-0': emoji }, page);
		expect(cut.note).toBe('a'.repeat(NOTE_MAX_LENGTH - 1));
	});

	it('keeps line ends of a note as \\n', () => {
		const [pick] = picksOf(urlencoded('pick-0=billing&note-0=one%0D%0Atwo%0Dthree'), page);
		expect(pick.note).toBe('one\ntwo\nthree');
	});
});

describe('names that are JavaScript’s own', () => {
	const page = classifyPage({ answers: JS_KEYS.map((key) => ({ key, label: key })) });
	const route = routePage({
		answers: [...JS_FIELD_NAMES, ...JS_KEYS].map((key) => ({ key, label: key })),
	});

	it('are answers like any other, in the urlencoded body and in JSON', () => {
		const html = renderReviewPage(page);
		const body = submit(html, { tick: { 'pick-0': ['constructor', 'proto', 'tostring'] } });
		expect(picksOf(body, page)).toEqual([{ index: 0, keys: ['constructor', 'tostring', 'proto'] }]);
		for (const key of JS_FIELD_NAMES) {
			expect(picksOf(jsonObject([['pick-0', key]]), route)).toEqual([{ index: 0, keys: [key] }]);
			expect(picksOf(urlencoded(`pick-1=${encodeURIComponent(key)}`), route)).toEqual([
				{ index: 1, keys: [key] },
			]);
		}
	});

	it('are refused when they are not answers (never found on Object.prototype)', () => {
		for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
			expect(errorOf({ 'pick-0': key }, routePage())).toContain(
				`Item 1: ${JSON.stringify(key)} is not one of the answers.`,
			);
		}
	});

	it('as field names of the body are ignored, and nothing is read through a prototype', () => {
		const json = jsonObject([
			['__proto__', { 'pick-0': 'billing', 'note-0': 'inherited' }],
			['constructor', 'x'],
			['toString', 'y'],
			['hasOwnProperty', 'z'],
		]);
		expect(picksOf(json, routePage())).toEqual([]);
		const inheriting: unknown = Object.create({ 'pick-0': 'billing', 'none-1': '1' });
		expect(picksOf(inheriting, routePage())).toEqual([]);
		expect(picksOf(inheriting, classifyPage())).toEqual([]);
		const form = urlencoded('__proto__=x&constructor=y&hasOwnProperty=z&pick-0=sales');
		expect(picksOf(form, routePage())).toEqual([{ index: 0, keys: ['sales'] }]);
	});

	it('leave Object.prototype untouched', () => {
		parseReviewSubmission(jsonObject([['__proto__', { polluted: 'yes' }]]), routePage());
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});
});

describe('feedbackFor', () => {
	const item = (machineAnswer: string[] | undefined): ReviewItem => ({
		index: 0,
		runId: 'run_0',
		status: 'uncertain',
		machineAnswer,
		probabilities: [],
		fields: [],
	});

	it('route and score: "correct" when the person picked the machine’s answer', () => {
		for (const type of ['route', 'score'] as const) {
			expect(feedbackFor(item(['billing']), { index: 0, keys: ['billing'] }, type)).toEqual({
				feedback: 'correct',
			});
		}
	});

	it('route and score: the picked key when it differs, or when the machine had none', () => {
		for (const type of ['route', 'score'] as const) {
			expect(feedbackFor(item(['billing']), { index: 0, keys: ['sales'] }, type)).toEqual({
				feedback: 'sales',
			});
			expect(feedbackFor(item(undefined), { index: 0, keys: ['sales'] }, type)).toEqual({
				feedback: 'sales',
			});
		}
	});

	it('no guess (a tie at the top): the pick is the feedback, never "correct", never agreed', () => {
		for (const type of ['route', 'score', 'classify'] as const) {
			for (const keys of type === 'classify' ? [[], ['urgent']] : [['billing']]) {
				const pick = { index: 0, keys };
				expect(feedbackFor(item(undefined), pick, type).feedback).not.toBe('correct');
				expect(agreedWith(item(undefined), pick)).toBe(false);
			}
		}
		// "No label applies" on a classify item with no guess: a correction, not a confirmation.
		expect(feedbackFor(item(undefined), { index: 0, keys: [] }, 'classify')).toEqual({
			feedback: 'no label',
		});
		expect(agreedWith(undefined, { index: 0, keys: ['billing'] })).toBe(false);
	});

	it('agreed: the same answer as the guess (a set for classify, "no label" a guess too)', () => {
		expect(agreedWith(item(['billing']), { index: 0, keys: ['billing'] })).toBe(true);
		expect(agreedWith(item(['billing']), { index: 0, keys: ['sales'] })).toBe(false);
		expect(agreedWith(item(['a', 'b']), { index: 0, keys: ['b', 'a'] })).toBe(true);
		expect(agreedWith(item([]), { index: 0, keys: [] })).toBe(true);
	});

	it('passes the note through', () => {
		expect(
			feedbackFor(item(['billing']), { index: 0, keys: ['sales'], note: 'a quote' }, 'route'),
		).toEqual({ feedback: 'sales', note: 'a quote' });
		expect(feedbackFor(item(['a']), { index: 0, keys: ['a'], note: 'sure' }, 'classify')).toEqual({
			feedback: 'correct',
			note: 'sure',
		});
		expect(
			feedbackFor(item(['billing']), { index: 0, keys: ['billing'], note: '' }, 'route'),
		).toEqual({
			feedback: 'correct',
		});
	});

	it('classify: "correct" for the same set in any order, else the labels joined with ","', () => {
		expect(
			feedbackFor(item(['urgent', 'refund']), { index: 0, keys: ['refund', 'urgent'] }, 'classify'),
		).toEqual({ feedback: 'correct' });
		expect(
			feedbackFor(item(['urgent', 'refund']), { index: 0, keys: ['urgent'] }, 'classify'),
		).toEqual({ feedback: 'urgent' });
		expect(
			feedbackFor(item(['urgent']), { index: 0, keys: ['urgent', 'spam'] }, 'classify'),
		).toEqual({ feedback: 'urgent,spam' });
	});

	it('classify: "none" when no label applies, never an empty string; "correct" when the machine agreed', () => {
		expect(feedbackFor(item(['urgent']), { index: 0, keys: [] }, 'classify')).toEqual({
			feedback: 'no label',
		});
		expect(feedbackFor(item([]), { index: 0, keys: [] }, 'classify')).toEqual({
			feedback: 'correct',
		});
	});

	it('the row’s answer, sent by Run → Send Feedback, is the feedback Review sent (one encoding)', () => {
		const labels = [['promotion', 'complaint'], ['spam'], []];
		for (const keys of labels) {
			const sent = feedbackFor(item(['urgent']), { index: 0, keys }, 'classify').feedback;
			const row = reviewRow({
				picked: keys,
				labels: true,
				agreed: false,
				decision: 'content-labels',
				machineAnswer: ['urgent'],
				reviewedAt: '2026-11-27T12:00:00.000Z',
			});
			expect(row.answer).toBe(sent);
			expect(feedbackOf(row.answer)).toBe(sent);
		}
		// A row written before the one encoding ("a, b") is sent as Review sends it.
		expect(feedbackOf('promotion, complaint')).toBe('promotion,complaint');
	});

	it('names that are JavaScript’s own are keys like any other', () => {
		expect(
			feedbackFor(item(['constructor']), { index: 0, keys: ['constructor'] }, 'route'),
		).toEqual({
			feedback: 'correct',
		});
		expect(feedbackFor(item(['constructor']), { index: 0, keys: ['proto'] }, 'route')).toEqual({
			feedback: 'proto',
		});
		expect(
			feedbackFor(item(['tostring']), { index: 0, keys: ['tostring', 'valueof'] }, 'classify'),
		).toEqual({ feedback: 'tostring,valueof' });
	});

	it('a route or score pick without exactly one key is a programming error', () => {
		expect(() => feedbackFor(item(['a']), { index: 0, keys: [] }, 'route')).toThrow(RangeError);
		expect(() => feedbackFor(item(['a']), { index: 0, keys: ['a', 'b'] }, 'score')).toThrow(
			RangeError,
		);
		expect(() => feedbackFor(item(['']), { index: 0, keys: [''] }, 'route')).toThrow(RangeError);
	});

	it('every pick a page can make gives a feedback body the contract accepts', () => {
		const cases: Array<[ReviewPage, Record<string, string[]>]> = [
			[classifyPage(), { 'pick-0': ['spam'], 'none-1': ['1'] }],
			[classifyPage(), { 'pick-0': ['urgent', 'refund'], 'pick-1': ['spam', 'refund'] }],
			[routePage(), { 'pick-0': ['billing'], 'pick-1': ['sales'], 'pick-2': ['technical'] }],
			[scorePage(), { 'pick-0': ['hot'] }],
		];
		for (const [page, tick] of cases) {
			const picks = picksOf(
				submit(renderReviewPage(page), { tick, type: { 'note-0': 'n' } }),
				page,
			);
			expect(picks.length).toBeGreaterThan(0);
			for (const pick of picks) {
				const body = feedbackFor(page.items[pick.index], pick, page.decision.type);
				expect(feedbackRequestSchema.safeParse(body).success).toBe(true);
			}
		}
	});
});
