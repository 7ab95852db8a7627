/**
 * The evaluation in people's words and for machines (src/evaluate/summary.ts), and what the report
 * page shows of it.
 */
import {
	evaluate,
	forMachines,
	notYetWords,
	renderReport,
	summaryOf,
	type ScoredItem,
} from '../../src/evaluate';
import { type EvaluationDecision } from '../../src/answer';
import { answerOfRun } from '../support/answers';

const decision: EvaluationDecision = { type: 'route', keys: ['billing', 'sales'] };
const item = (
	expected: string,
	status: string,
	choice: string,
	confidence: number,
	probabilities: Record<string, number> = { billing: confidence, sales: 1 - confidence },
): ScoredItem => ({
	expected,
	run: answerOfRun({ status, choice, confidence, probabilities }, 'route'),
	charged: 0,
});

/** The start of the threshold's and the gap's advice: the setting, where it is set, its value today. */
const THRESHOLD = (today: string) =>
	`The decision's confidence threshold (set in the Decision Service app, \`confidence_threshold\` in the API; ${today}): `;
const GAP =
	"Close Call Gap (Decide → Options → Close Call Gap; its value today is your Decide node's, 0 = off by default): ";

describe('summaryOf', () => {
	it('says answered and right, the doubtful guesses, and what a lower threshold would route', () => {
		const { metrics } = evaluate(
			decision,
			[
				item('billing', 'ok', 'billing', 0.9),
				item('sales', 'ok', 'billing', 0.7),
				item('billing', 'uncertain', '__uncertain__', 0.55),
				item('sales', 'uncertain', '__uncertain__', 0.52),
				item('sales', 'uncertain', '__uncertain__', 0.3),
			],
			{ targetAccuracy: 0.9, confidenceThreshold: 0.6 },
		);
		const summary = summaryOf(metrics);
		// Each rate with its 95 % Wilson interval: 2/5 → 12–77 %, 1/2 → 9–91 %.
		expect(summary.headline).toBe(
			'Answered 2 of 5 items, 40% (12–77%); 1 of them right, 50% (9–91%, 2 items).',
		);
		// guesses: billing (0.55, right), billing (0.52: sales 0.48, wrong), sales (billing 0.3, right)
		expect(metrics.doubtful).toMatchObject({ count: 3, guessed: 3, guessRight: 2 });
		// 2 of 3 → 21–94 %; 1 of 1 routed → 21–100 %: far from sure of 90 %.
		expect(summary.sentences[0]).toBe(
			"3 were doubtful (uncertain or sent to review): the machine's guess was right on 2 of 3 (21–94%). Lowering the threshold to 0.55 would have routed 1 of them, 1 right (21–100%): not enough items yet (1; about 35 needed) to be sure of 90%.",
		);
		// A minimum confidence of 0.75 keeps the 0.9 answer alone: right, but one item proves
		// little (Wilson 21–100 %): no recommendation, what it lacks instead.
		expect(summary.confidence).toBeNull();
		expect(summary.notYet.confidence).toMatchObject({ threshold: 0.75, items: 1, needed: 35 });
		expect(summary.sentences[1]).toBe(
			`${THRESHOLD('0.60 today')}keep 0.60: raising it to 0.75 would leave 100% (21–100%, 1 item) right on these items, not enough items yet (1; about 35 needed) to be sure of 90%.`,
		);
		const html = renderReport(metrics);
		expect(html).toContain(
			'data-figure="recommended"><span class="value words">not enough items yet</span><span class="label">Minimum confidence for 90.0% accuracy</span><span class="ci">(1; about 35 needed)</span>',
		);
	});

	it('recommends a minimum confidence the items support, with its interval', () => {
		// 40 answers at 0.9, all right; 10 at 0.6, all wrong. At 0.65 the 40 left are 100 % right,
		// Wilson 91.2–100 %: the low end reaches 90 %.
		const { metrics } = evaluate(decision, [
			...Array.from({ length: 40 }, () => item('billing', 'ok', 'billing', 0.9)),
			...Array.from({ length: 10 }, () => item('sales', 'ok', 'billing', 0.6)),
		]);
		const summary = summaryOf(metrics);
		expect(summary.confidence).toMatchObject({ value: 0.65, sentToReview: 10, wrongCaught: 10 });
		expect(summary.confidence?.accuracyInterval?.low).toBeCloseTo(40 / (40 + 1.959964 ** 2), 5);
		expect(summary.notYet.confidence).toBeNull();
		expect(summary.sentences).toContain(
			`${THRESHOLD('its value today is not known here')}set it to 0.65: it would have sent 10 more answered items to review, 10 of them wrong, and left 100% (91–100%, 40 items) right, surely 90% or better.`,
		);
		expect(summary.headline).toBe(
			'Answered 50 of 50 items, 100% (93–100%); 40 of them right, 80% (67–89%, 50 items).',
		);
		const html = renderReport(metrics);
		expect(html).toMatch(/data-figure="recommended"><span class="value">0.65</);
		expect(html).toContain('<span class="ci">leaves 100% (91–100%, 40 items) right</span>');
		expect(html).toContain(
			'data-figure="accuracy"><span class="value">80.0%</span><span class="label">Accuracy (answered items)</span><span class="ci">67–89%, 50 items</span>',
		);
	});

	it('says "none needed" when the answers already reach the target, never a threshold of 0.00', () => {
		// 100 of 100 right: Wilson 96.3–100 %, surely above 90 % with no setting.
		const { metrics } = evaluate(
			decision,
			Array.from({ length: 100 }, () => item('billing', 'ok', 'billing', 0.9)),
		);
		const summary = summaryOf(metrics);
		expect(summary.confidence).toMatchObject({ value: 0, sentToReview: 0 });
		expect(summary.sentences.join(' ')).toContain(
			`${THRESHOLD('its value today is not known here')}keep it: the answers already reach 90% accuracy: 100% (96–100%, 100 items) right.`,
		);
		expect(summary.sentences.join(' ')).toContain(`${GAP}none needed, leave it at 0 (off)`);
		const html = renderReport(metrics);
		expect(html).toMatch(/data-figure="recommended"><span class="value words">none needed</);
		expect(html).toMatch(/data-figure="close-call-gap"><span class="value words">none needed</);
	});

	it('recommends a Close Call Gap that sends the near ties to review', () => {
		// 40 clear answers, all right; 2 near ties (gap 0.04), both wrong. At 0.05 the ties go to
		// review and the 40 left are 91–100 % right.
		const { metrics } = evaluate(decision, [
			...Array.from({ length: 40 }, () =>
				item('billing', 'ok', 'billing', 0.9, { billing: 0.9, sales: 0.1 }),
			),
			item('sales', 'ok', 'billing', 0.52, { billing: 0.52, sales: 0.48 }),
			item('sales', 'ok', 'billing', 0.52, { billing: 0.52, sales: 0.48 }),
		]);
		const summary = summaryOf(metrics);
		expect(summary.closeCallGap).toMatchObject({ value: 0.05, sentToReview: 2, wrongCaught: 2 });
	});

	it('on three items the same Close Call Gap is not enough items yet', () => {
		const { metrics } = evaluate(decision, [
			item('billing', 'ok', 'billing', 0.9, { billing: 0.9, sales: 0.1 }),
			item('sales', 'ok', 'billing', 0.52, { billing: 0.52, sales: 0.48 }),
			item('billing', 'ok', 'billing', 0.8, { billing: 0.8, sales: 0.2 }),
		]);
		const summary = summaryOf(metrics);
		expect(summary.closeCallGap).toBeNull();
		expect(summary.notYet.closeCallGap).toMatchObject({ threshold: 0.05, items: 2, needed: 35 });
		expect(summary.sentences).toContain(
			`${GAP}leave it as it is: at 0.05 the answers left are 100% (34–100%, 2 items) right, not enough items yet (2; about 35 needed) to be sure of 90%.`,
		);
		const html = renderReport(metrics);
		expect(html).toMatch(
			/data-figure="close-call-gap"><span class="value words">not enough items yet</,
		);
	});

	it('says when no number of items is enough: the answers are right exactly at the target', () => {
		// 9 of 10 right at every setting, target 90 %: the lower bound never reaches 90 %.
		const { metrics } = evaluate(decision, [
			...Array.from({ length: 9 }, () => item('billing', 'ok', 'billing', 0.9)),
			item('sales', 'ok', 'billing', 0.9),
		]);
		const summary = summaryOf(metrics);
		expect(summary.notYet.confidence).toMatchObject({ threshold: 0, items: 10, needed: null });
		expect(summary.sentences).toContain(
			`${THRESHOLD('its value today is not known here')}keep it: the answers are 90% (60–98%, 10 items) right, not enough items yet (10; at exactly the target no number of items is enough) to be sure of 90%.`,
		);
	});
});

describe('advice a user can follow', () => {
	// The case: 300 answers 95 % right (surely 90 %) at threshold 0.60; 30 doubtful at
	// 0.55 whose guesses were right on 10. Lowering to 0.55 routes them: 295 of 330 = 89.4 %.
	const answers = [
		...Array.from({ length: 285 }, () => item('billing', 'ok', 'billing', 0.9)),
		...Array.from({ length: 15 }, () => item('sales', 'ok', 'billing', 0.9)),
	];
	const doubtfulItems = (rightGuesses: number) =>
		Array.from({ length: 30 }, (_, at) =>
			item(at < rightGuesses ? 'billing' : 'sales', 'uncertain', '__uncertain__', 0.55),
		);

	it('names the threshold, where it is set, its value today, and keeps it when lowering would miss the target', () => {
		const { metrics } = evaluate(decision, [...answers, ...doubtfulItems(10)], {
			targetAccuracy: 0.9,
			confidenceThreshold: 0.6,
		});
		const summary = summaryOf(metrics);
		const [threshold, gap] = summary.advice;
		expect(threshold).toMatchObject({
			setting: 'confidence_threshold',
			current: 0.6,
			action: 'keep',
			value: 0.6,
			change: { value: 0.55, moved: 30, movedCounted: 10, reachesTarget: false, surely: false },
		});
		expect(threshold.change?.accuracy).toBeCloseTo(295 / 330, 10);
		expect(threshold.words).toBe(
			`${THRESHOLD('0.60 today')}keep 0.60: lowering it to 0.55 would have routed 30 more items, 10 of them right: accuracy 89.4% (86–92%, 330 items), under your 90% target.`,
		);
		expect(gap).toMatchObject({
			setting: 'close_call_gap',
			where: 'Decide → Options → Close Call Gap',
		});
		expect(summary.sentences).toContain(threshold.words);
		// The report page shows each piece of advice as what to do.
		const html = renderReport(metrics, { summary });
		expect(html.match(/<li class="advice"><strong>What to do:<\/strong> /g)).toHaveLength(2);
		expect(html).toContain('keep 0.60: lowering it to 0.55 would have routed 30 more items');
		// For machines: snake_case, as the report's JSON carries it.
		expect(forMachines(summary.advice)).toMatchObject([
			{
				setting: 'confidence_threshold',
				current: 0.6,
				action: 'keep',
				change: { moved: 30, moved_counted: 10 },
			},
			{ setting: 'close_call_gap', current: null },
		]);
	});

	it('advises lowering the threshold when the doubtful guesses surely keep the target', () => {
		const many = [
			...Array.from({ length: 300 }, () => item('billing', 'ok', 'billing', 0.9)),
			...Array.from({ length: 60 }, () => item('billing', 'uncertain', '__uncertain__', 0.55)),
		];
		const { metrics } = evaluate(decision, many, { targetAccuracy: 0.9, confidenceThreshold: 0.6 });
		const [threshold] = summaryOf(metrics).advice;
		expect(threshold).toMatchObject({ action: 'lower', current: 0.6, value: 0.55 });
		expect(threshold.words).toBe(
			`${THRESHOLD('0.60 today')}lower it to 0.55: it would have routed 60 more items, 60 of them right: accuracy 100% (98.9–100.0%, 360 items), surely 90% or better.`,
		);
	});

	it('advises raising the threshold from its value today to the minimum confidence the data supports', () => {
		const { metrics } = evaluate(
			decision,
			[
				...Array.from({ length: 40 }, () => item('billing', 'ok', 'billing', 0.9)),
				...Array.from({ length: 10 }, () => item('sales', 'ok', 'billing', 0.6)),
			],
			{ confidenceThreshold: 0.6 },
		);
		const [threshold] = summaryOf(metrics).advice;
		expect(threshold).toMatchObject({ action: 'raise', current: 0.6, value: 0.65 });
		expect(threshold.words).toMatch(
			/; 0\.60 today\): raise it to 0\.65: it would have sent 10 more/,
		);
	});

	it('warns when every row was reviewed from a doubtful run: the hard cases, not all traffic', () => {
		const reviewed = (from: string) => ({
			...item('billing', 'ok', 'billing', 0.9),
			reviewedFrom: from,
		});
		const hard = evaluate(decision, [reviewed('uncertain'), reviewed('pending')]).metrics;
		expect(hard.reviewedFrom).toEqual({ told: 2, doubtful: 2, doubtfulOnly: true });
		expect(summaryOf(hard).sentences[0]).toBe(
			'Every item was reviewed from a doubtful run (machine status uncertain or pending): the accuracy is that of the hard cases, not of all traffic.',
		);
		expect(forMachines<Record<string, unknown>>(hard).reviewed_from).toEqual({
			told: 2,
			doubtful: 2,
			doubtful_only: true,
		});
		// One row from an answered run, or one row that does not say: not only the hard cases.
		for (const mixed of [
			[reviewed('uncertain'), reviewed('ok')],
			[reviewed('uncertain'), item('billing', 'ok', 'billing', 0.9)],
		]) {
			const { metrics } = evaluate(decision, mixed);
			expect(metrics.reviewedFrom.doubtfulOnly).toBe(false);
			expect(summaryOf(metrics).sentences.join(' ')).not.toContain('hard cases');
		}
	});
});

describe('notYetWords', () => {
	it('says the items and about how many are needed: exact under 100, else two digits', () => {
		const notYet = (needed: number | null) => ({
			threshold: 0.8,
			items: 211,
			accuracy: 0.9526,
			accuracyInterval: { low: 0.915, high: 0.974, n: 211, level: 0.95 },
			needed,
		});
		expect(notYetWords(notYet(35))).toBe('not enough items yet (211; about 35 needed)');
		expect(notYetWords(notYet(26856))).toBe('not enough items yet (211; about 27000 needed)');
		expect(notYetWords(notYet(1569))).toBe('not enough items yet (211; about 1600 needed)');
		expect(notYetWords(notYet(null))).toBe(
			'not enough items yet (211; at exactly the target no number of items is enough)',
		);
	});
});

describe('forMachines', () => {
	it('writes keys in snake_case and numbers with at most 4 decimals; non-finite numbers as null', () => {
		expect(
			forMachines({ guessRight: 2 / 3, byThreshold: [{ threshold: 0.15 }], n: Number.NaN }),
		).toEqual({ guess_right: 0.6667, by_threshold: [{ threshold: 0.15 }], n: null });
	});

	it("keeps keys named like JavaScript's own as ordinary keys", () => {
		const out = forMachines<Record<string, unknown>>(JSON.parse('{"__proto__": {"a": 1}}'));
		expect(Object.keys(out)).toEqual(['__proto__']);
		expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
	});
});

describe('summaryOf on rows that were all doubtful', () => {
	it('leads with the guesses, not "Answered 0"', () => {
		const { metrics } = evaluate(decision, [
			item('billing', 'uncertain', '__uncertain__', 0.55),
			item('sales', 'uncertain', '__uncertain__', 0.52),
		]);
		const { headline, sentences } = summaryOf(metrics);
		expect(headline).toBe(
			"All 2 items were doubtful (uncertain or sent to review), so none was routed: the figures below are the machine's guesses.",
		);
		expect([headline, ...sentences].join(' ')).not.toContain('Answered 0');
		expect(sentences.join(' ')).toContain('2 were doubtful');
	});
});
