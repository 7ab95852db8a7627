/**
 * The answer contract (src/answer/item-answer.ts): what Decide writes on an item, Simplify on or off, is what
 * Evaluate, Review and Send Feedback read back. Every kind x status x Simplify, through JSON (n8n
 * stores items as JSON), against runs shaped as the service sends them.
 */
import { readAnswer, writeAnswer } from '../../src/answer/item-answer';
import type { DecisionType, RunAnswer } from '../../src/contract';

const KEYS: Record<DecisionType, string[]> = {
	route: ['billing', 'technical', 'sales'],
	score: ['cold', 'warm', 'hot'],
	classify: ['spam', 'refund', 'question'],
};
const STATUSES = ['ok', 'uncertain', 'pending', 'escalated'] as const;

/** A run as the service sends it (sandbox/api.ts shapes them the same way). */
function runOf(type: DecisionType, status: string): RunAnswer {
	const common = {
		run_id: `run_${type}_${status}`,
		decision: 'd',
		version: 3,
		status,
		confidence: 0.42,
		confidence_source: 'calibrated',
		engine: 'jev',
		model: 'jev-1.4.2',
		...(status === 'pending' ? { review_url: 'https://app.example/reviews/1' } : {}),
	};
	if (type === 'route') {
		return {
			...common,
			choice: status === 'uncertain' ? '__uncertain__' : 'sales',
			probabilities: { billing: 0.2, technical: 0.18, sales: 0.62 },
		};
	}
	if (type === 'score') {
		return {
			...common,
			score: 61,
			raw_score: 1.22,
			legend: { '0': 'cold', '1': 'warm', '2': 'hot' },
			probabilities: { cold: 0.2, warm: 0.5, hot: 0.3 },
		};
	}
	return {
		...common,
		labels: ['spam', 'refund'],
		probabilities: { spam: 0.7, refund: 0.55, question: 0.1 },
	};
}

/** The answer the run gives, and the machine's guess on it, as keys. */
const GIVEN: Record<DecisionType, string[]> = {
	route: ['sales'],
	score: ['warm'],
	classify: ['spam', 'refund'],
};

describe.each(['route', 'score', 'classify'] as const)('%s', (type) => {
	describe.each(STATUSES)('status %s', (status) => {
		describe.each([true, false])('Simplify %s', (simplify) => {
			const run = runOf(type, status);
			const written = JSON.parse(JSON.stringify(writeAnswer(run, simplify))) as Record<
				string,
				unknown
			>;
			const read = readAnswer(written, type, KEYS[type])!;

			it('reads back the run, its status, the answer only when ok, the guess always', () => {
				expect(read.runId).toBe(run.run_id);
				expect(read.status).toBe(status);
				expect(read.kind?.type).toBe(type);
				if (status === 'ok') expect(read.answer).toEqual(GIVEN[type]);
				else expect(read.answer).toBeUndefined();
				expect(read.guess).toEqual(GIVEN[type]);
			});

			it('keeps what the loop measures: confidence, probabilities, engine, model', () => {
				expect(read.confidence).toBe(0.42);
				expect(read.probabilities).toEqual(run.probabilities);
				expect(read.engine).toBe('jev');
				expect(read.model).toBe('jev-1.4.2');
				if (status === 'pending') expect(read.reviewUrl).toBe(run.review_url);
			});

			it('writes the answer where a workflow reads it, and a doubtful guess as suggestion', () => {
				const field = type === 'route' ? 'choice' : type === 'score' ? 'level' : 'labels';
				const shown = type === 'classify' ? GIVEN[type] : GIVEN[type][0];
				if (status === 'ok') {
					expect(written[field]).toEqual(shown);
					expect(written).not.toHaveProperty('suggestion');
				} else {
					expect(written.suggestion).toEqual(shown);
					// never as the answer itself in the compact answer
					if (simplify) expect(written).not.toHaveProperty(field);
				}
				if (!simplify) expect(written.legend ?? written.labels ?? written.choice).toBeDefined();
			});
		});
	});
});

describe('the guess of a doubtful run without an answer', () => {
	it('route: the most probable option', () => {
		const run = { ...runOf('route', 'uncertain'), probabilities: { sales: 0.5, billing: 0.3 } };
		expect(readAnswer(writeAnswer(run, true), 'route')!.guess).toEqual(['sales']);
		expect(readAnswer(run, 'route', ['billing', 'sales'])!.guess).toEqual(['sales']);
	});

	it.each([true, false])(
		'a tie at the top is no guess, written (Simplify %s) and read, whatever the order',
		(simplify) => {
			const four = { billing: 0.25, technical: 0.25, sales: 0.25, account: 0.25 };
			// Uncertain (`__uncertain__`), and pending with the service's choice (the first option).
			for (const run of [
				{ ...runOf('route', 'uncertain'), choice: '__uncertain__', probabilities: four },
				{ ...runOf('route', 'pending'), choice: 'billing', probabilities: four },
			]) {
				const written = JSON.parse(JSON.stringify(writeAnswer(run, simplify)));
				expect(written).not.toHaveProperty('suggestion');
				for (const keys of [undefined, ['billing', 'technical', 'sales', 'account'], ['account']])
					expect(readAnswer(written, 'route', keys)!.guess).toBeUndefined();
			}
			// Score without a raw score: the same rule.
			const levels = { ...runOf('score', 'pending'), probabilities: { cold: 0.5, warm: 0.5 } };
			delete (levels as Partial<RunAnswer>).raw_score;
			expect(readAnswer(writeAnswer(levels, simplify), 'score')?.guess).toBeUndefined();
		},
	);

	it('classify: the labels at or over 0.5 when the run kept none', () => {
		const run: Partial<RunAnswer> & RunAnswer = { ...runOf('classify', 'pending') };
		delete run.labels;
		expect(readAnswer(run, 'classify', KEYS.classify)!.guess).toEqual(['spam', 'refund']);
	});

	it('classify: an empty guess is a guess (no label), written as []', () => {
		const run = { ...runOf('classify', 'uncertain'), labels: [] };
		const written = writeAnswer(run, true);
		expect(written.suggestion).toEqual([]);
		expect(readAnswer(written, 'classify')!.guess).toEqual([]);
	});

	it('reads a compact uncertain answer without being told the type', () => {
		const written = writeAnswer(runOf('classify', 'uncertain'), true);
		expect(readAnswer(written)!.guess).toEqual(['spam', 'refund']);
		expect(readAnswer(writeAnswer(runOf('route', 'uncertain'), true))!.guess).toEqual(['sales']);
	});
});

describe('what is not an answer, or is untrusted', () => {
	it.each([
		['nothing', undefined],
		['a string', 'sales'],
		['a list', [{ run_id: 'r', status: 'ok' }]],
		['no run ID', { status: 'ok', choice: 'sales' }],
		['no status', { run_id: 'r', choice: 'sales' }],
	])('%s: undefined', (_name, value) => {
		expect(readAnswer(value, 'route')).toBeUndefined();
	});

	it("keys named like JavaScript's own are ordinary keys", () => {
		const probabilities = JSON.parse('{"__proto__": 0.7, "constructor": 0.3}') as Record<
			string,
			number
		>;
		const read = readAnswer(
			{ run_id: 'r', status: 'uncertain', choice: '__uncertain__', probabilities },
			'route',
		)!;
		expect(read.guess).toEqual(['__proto__']);
		expect(Object.keys(read.probabilities)).toEqual(['__proto__', 'constructor']);
	});

	it('probabilities that are not finite numbers are left out', () => {
		const read = readAnswer(
			{ run_id: 'r', status: 'ok', choice: 'a', probabilities: { a: 'x', b: 0.5, c: null } },
			'route',
		)!;
		expect(read.probabilities).toEqual({ b: 0.5 });
	});

	it('a close call Decide wrote is read with its runner-up and gap', () => {
		const written = {
			...writeAnswer(runOf('route', 'ok'), true),
			close_call: true,
			runner_up: 'billing',
			gap: 0.05,
		};
		expect(readAnswer(written, 'route')!.closeCall).toEqual({ runnerUp: 'billing', gap: 0.05 });
	});
});
