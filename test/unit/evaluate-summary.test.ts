/**
 * The evaluation in people's words and for machines (src/evaluate/summary.ts), and what the report
 * page shows of it.
 */
import {
	evaluate,
	forMachines,
	renderReport,
	summaryOf,
	type EvaluationDecision,
	type ScoredItem,
} from '../../src/evaluate';
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
		expect(summary.headline).toBe('Answered 2 of 5 items (40%); 1 of them right (50%).');
		// guesses: billing (0.55, right), billing (0.52: sales 0.48, wrong), sales (billing 0.3, right)
		expect(metrics.doubtful).toMatchObject({ count: 3, guessed: 3, guessRight: 2 });
		expect(summary.sentences[0]).toBe(
			"3 were doubtful (uncertain or sent to review): the machine's guess was right on 2 of 3. Lowering the threshold to 0.55 would have routed 1 of them, 1 right.",
		);
		// A minimum confidence of 0.75 keeps the 0.9 answer alone: right.
		expect(summary.confidence).toMatchObject({ value: 0.75, sentToReview: 1, wrongCaught: 1 });
		expect(summary.sentences[1]).toBe(
			'A minimum confidence of 0.75 would send 1 answered items to review, 1 of them wrong, and leave 100% right.',
		);
	});

	it('says "none needed" when the answers already reach the target, never a threshold of 0.00', () => {
		const { metrics } = evaluate(decision, [item('billing', 'ok', 'billing', 0.9)]);
		const summary = summaryOf(metrics);
		expect(summary.confidence).toMatchObject({ value: 0, sentToReview: 0 });
		expect(summary.sentences.join(' ')).toContain('Minimum confidence: none needed');
		expect(summary.sentences.join(' ')).toContain('Close Call Gap: none needed');
		const html = renderReport(metrics);
		expect(html).toMatch(/data-figure="recommended"><span class="value">none needed</);
		expect(html).toMatch(/data-figure="close-call-gap"><span class="value">none needed</);
	});

	it('recommends a Close Call Gap that sends the near ties to review', () => {
		const { metrics } = evaluate(decision, [
			item('billing', 'ok', 'billing', 0.9, { billing: 0.9, sales: 0.1 }),
			item('sales', 'ok', 'billing', 0.52, { billing: 0.52, sales: 0.48 }),
			item('billing', 'ok', 'billing', 0.8, { billing: 0.8, sales: 0.2 }),
		]);
		const summary = summaryOf(metrics);
		expect(summary.closeCallGap).toMatchObject({ value: 0.05, sentToReview: 1, wrongCaught: 1 });
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
