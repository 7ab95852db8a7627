import {
	allTrafficLines,
	evaluate,
	renderReport,
	summaryOf,
	type Metrics,
	type ScoredItem,
} from '../../src/evaluate';
import { type EvaluationDecision } from '../../src/answer';
import { itemsNeeded } from '../../src/evaluate/stats';
import { intervalWords } from '../../src/evaluate/tables';
import { answerOfRun } from '../support/answers';

// Accuracy over all traffic from the doubtful and audited rows (src/evaluate/all-traffic.ts): a
// case worked by hand, the interval against the documented formula written out with jStat (its
// beta quantiles for Clopper–Pearson) and simple-statistics, and each rule with a case that fails
// without it: ties counted as not right, the items nobody reviewed, too few audited rows.

/** The parts of jStat and simple-statistics used here (the packages ship no types). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jstat is CommonJS without types
const { jStat } = require('jstat') as {
	jStat: { beta: { inv(p: number, a: number, b: number): number } };
};
// eslint-disable-next-line @typescript-eslint/no-require-imports -- same, typed by hand above
const ss = require('simple-statistics') as { sum(values: number[]): number };

const decision: EvaluationDecision = { type: 'route', keys: ['billing', 'technical'] };

/** An answer that went straight to its output: right when it is `expected`. */
const answered = (choice: string) => answerOfRun({ status: 'ok', choice, confidence: 0.9 });
/** An uncertain run whose guess (the most probable option) is `guess`. */
const doubtfulRun = (guess: string) =>
	answerOfRun({
		status: 'uncertain',
		choice: '__uncertain__',
		confidence: 0.4,
		probabilities:
			guess === 'billing' ? { billing: 0.6, technical: 0.4 } : { billing: 0.3, technical: 0.7 },
	});

interface Row {
	right: boolean;
	stratum?: unknown;
	auditShare?: unknown;
	reviewedFrom?: unknown;
	/** Score the row from an uncertain run's guess (default: doubtful rows are, audited are not). */
	guessed?: boolean;
}

/** A scored item: expected `billing`; right or wrong by its answer, or by its guess. */
function row({ right, stratum, auditShare, reviewedFrom, guessed }: Row): ScoredItem {
	const said = right ? 'billing' : 'technical';
	const byGuess = guessed ?? stratum === 'doubtful';
	return {
		expected: 'billing',
		run: byGuess ? doubtfulRun(said) : answered(said),
		charged: 0,
		...(stratum === undefined ? {} : { stratum }),
		...(auditShare === undefined ? {} : { auditShare }),
		...(reviewedFrom === undefined ? {} : { reviewedFrom }),
	};
}

/** A doubtful row whose run is a tie: no answer, no guess (a pending run carries none). */
const tie = (): ScoredItem => ({
	expected: 'billing',
	run: answerOfRun({ status: 'pending' }, 'route'),
	charged: 0,
	stratum: 'doubtful',
});

const rows = (count: number, right: number, extra: Omit<Row, 'right'>): ScoredItem[] =>
	Array.from({ length: count }, (_, at) => row({ right: at < right, ...extra }));

/** Rows of items nobody reviewed, by their cells (what Review writes with status `not_reviewed`). */
const unreviewed = (count: number, stratum: unknown = 'doubtful', auditShare?: unknown) =>
	Array.from({ length: count }, () => ({ stratum, auditShare }));

const metricsOf = (
	items: ScoredItem[],
	targetAccuracy = 0.9,
	notReviewed: ReturnType<typeof unreviewed> = [],
): Metrics => evaluate(decision, items, { targetAccuracy, notReviewed }).metrics;

/** Clopper–Pearson at 95 % from jStat's beta quantiles; counts may be fractional. */
function clopperPearson(x: number, n: number) {
	return {
		low: x <= 0 ? 0 : jStat.beta.inv(0.025, x, n - x + 1),
		high: x >= n ? 1 : jStat.beta.inv(0.975, x + 1, n - x),
	};
}

/**
 * The documented estimate written out (docs/evaluate.md): N_h = (rows + not reviewed) / share,
 * R = Σ N_h p_h / Σ N_h, V = [Σ N_h² p_h(1−p_h)/n_h + Σ (N_h/π_h)(p_h − R)²] / (Σ N_h)²,
 * n_eff = min(R(1−R)/V, (Σ N_h)² / Σ N_h²/n_h), Clopper–Pearson at R·n_eff of n_eff.
 */
function reference(
	strata: Array<{ right: number; rows: number; share: number; notReviewed?: number }>,
) {
	const N = strata.map((s) => (s.rows + (s.notReviewed ?? 0)) / s.share);
	const total = ss.sum(N);
	const p = strata.map((s) => s.right / s.rows);
	const value = ss.sum(p.map((ph, h) => N[h] * ph)) / total;
	const noise = ss.sum(p.map((ph, h) => (N[h] ** 2 * ph * (1 - ph)) / strata[h].rows));
	const sizes = ss.sum(p.map((ph, h) => (N[h] / strata[h].share) * (ph - value) ** 2));
	const variance = (noise + sizes) / total ** 2;
	const kish = total ** 2 / ss.sum(N.map((n, h) => n ** 2 / strata[h].rows));
	const effective =
		variance > 0 && value > 0 && value < 1
			? Math.min(kish, (value * (1 - value)) / variance)
			: kish;
	return { value, total, effective, ...clopperPearson(value * effective, effective) };
}

describe('accuracy over all traffic', () => {
	// 4 doubtful rows, guesses right on 2 (each stands for 1: 4 items);
	// 12 audited rows at 25 %, answers right on 9 (each stands for 4: 48 items).
	// Accuracy = (4 · 2/4 + 48 · 9/12) / 52 = (2 + 36) / 52.
	const items = [
		...rows(4, 2, { stratum: 'doubtful' }),
		...rows(12, 9, { stratum: 'audited', auditShare: 0.25 }),
	];
	const metrics = metricsOf(items);

	it('weighs each row by the traffic it stands for (worked by hand)', () => {
		expect(metrics.allTraffic.accuracy).toBeCloseTo(38 / 52, 12);
		expect(metrics.allTraffic.rows).toEqual({ doubtful: 4, audited: 12 });
		expect(metrics.allTraffic.notReviewed).toEqual({ doubtful: 0, audited: 0 });
		expect(metrics.allTraffic.standsFor).toEqual({ doubtful: 4, audited: 48, total: 52 });
		expect(metrics.allTraffic.strata).toEqual([
			{
				stratum: 'doubtful',
				auditShare: null,
				rows: 4,
				right: 2,
				noGuess: 0,
				notReviewed: 0,
				standsFor: 4,
				weight: 4 / 52,
			},
			{
				stratum: 'audited',
				auditShare: 0.25,
				rows: 12,
				right: 9,
				noGuess: 0,
				notReviewed: 0,
				standsFor: 48,
				weight: 48 / 52,
			},
		]);
		expect(metrics.allTraffic.reason).toBeNull();
		// The plain share of rows right (11 of 16) is not the estimate: the audited rows count 4 times.
		expect(metrics.allTraffic.accuracy).not.toBeCloseTo(11 / 16, 3);
	});

	it('gives the interval of the documented formula (jStat beta quantiles, simple-statistics)', () => {
		const expected = reference([
			{ right: 2, rows: 4, share: 1 },
			{ right: 9, rows: 12, share: 0.25 },
		]);
		const interval = metrics.allTraffic.accuracyInterval!;
		expect(metrics.allTraffic.accuracy).toBeCloseTo(expected.value, 12);
		expect(interval.low).toBeCloseTo(expected.low, 7);
		expect(interval.high).toBeCloseTo(expected.high, 7);
		expect(interval).toMatchObject({ n: 16, level: 0.95 });
		expect(interval.low).toBeLessThan(expected.value);
		expect(interval.high).toBeGreaterThan(expected.value);
	});

	it("the audited rows' accuracy: Clopper–Pearson, which holds its level near 100 %", () => {
		const { low, high } = clopperPearson(9, 12);
		expect(metrics.confidentAccuracy).toEqual({
			accuracy: 9 / 12,
			accuracyInterval: {
				low: expect.closeTo(low, 7),
				high: expect.closeTo(high, 7),
				n: 12,
				level: 0.95,
			},
			right: 9,
			n: 12,
			reason: null,
		});
		// 12 of 12: the upper end is 100 %, the lower end the exact one (2.5 % tail), 73.5 %.
		const perfect = metricsOf(rows(12, 12, { stratum: 'audited', auditShare: 0.25 }));
		expect(perfect.confidentAccuracy.accuracyInterval!.high).toBe(1);
		expect(perfect.confidentAccuracy.accuracyInterval!.low).toBeCloseTo(
			clopperPearson(12, 12).low,
			9,
		);
		expect(perfect.confidentAccuracy.accuracyInterval!.low).toBeCloseTo(0.7354, 4);
	});

	it('says both in words, and in the report page', () => {
		const summary = summaryOf(metrics);
		const interval = metrics.allTraffic.accuracyInterval!;
		const pct = (value: number) => Math.round(value * 100);
		expect(summary.sentences[0]).toBe(
			`Accuracy over all traffic (estimated from 4 doubtful and 12 audited items, standing for about 52 items): 73.1% (95% interval ${pct(interval.low)}–${pct(interval.high)}%).`,
		);
		const exact = clopperPearson(9, 12);
		expect(summary.sentences[1]).toBe(
			`Answers sent straight to their output: right on 9 of 12 audited (95% interval ${pct(exact.low)}–${pct(exact.high)}%).`,
		);
		const html = renderReport(metrics, { summary });
		expect(html).toContain('data-figure="all-traffic"');
		expect(html).toContain('data-figure="confident"');
		expect(html).toContain('<table class="strata">');
		expect(html).toContain('Audited at 25.0%');
	});

	it('counts a doubtful row with no guess (a tie) as not answered right, and says so', () => {
		// 5 doubtful rows: 1 guess right, 4 ties; 10 audited at 50 %, all right (20 items).
		// Leaving the ties out would give (1 + 20) / 21 = 100 %; counted: (1 + 20) / 25 = 84 %.
		const withTies = metricsOf([
			...rows(1, 1, { stratum: 'doubtful' }),
			tie(),
			tie(),
			tie(),
			tie(),
			...rows(10, 10, { stratum: 'audited', auditShare: 0.5 }),
		]);
		expect(withTies.allTraffic.accuracy).toBeCloseTo(21 / 25, 12);
		expect(withTies.allTraffic.noGuess).toBe(4);
		expect(withTies.allTraffic.strata[0]).toMatchObject({ rows: 5, right: 1, noGuess: 4 });
		expect(withTies.allTraffic.leftOut.total).toBe(0);
		expect(summaryOf(withTies).sentences[0]).toContain(
			'4 of 5 reviewed doubtful rows had no guess (a tie with no suggestion): counted as not answered right.',
		);
	});

	it('weighs the reviewed doubtful rows for the doubtful items nobody reviewed', () => {
		// 4 of 8 doubtful items reviewed (2 right): each stands for 2. Audited as above.
		// (8 · 2/4 + 48 · 9/12) / 56 = 40 / 56; the unreviewed taken to be like the reviewed.
		const half = metricsOf(items, 0.9, unreviewed(4));
		expect(half.allTraffic.accuracy).toBeCloseTo(40 / 56, 12);
		expect(half.allTraffic.notReviewed).toEqual({ doubtful: 4, audited: 0 });
		expect(half.allTraffic.standsFor).toEqual({ doubtful: 8, audited: 48, total: 56 });
		const expected = reference([
			{ right: 2, rows: 4, share: 1, notReviewed: 4 },
			{ right: 9, rows: 12, share: 0.25 },
		]);
		expect(half.allTraffic.accuracyInterval!.low).toBeCloseTo(expected.low, 7);
		expect(half.allTraffic.accuracyInterval!.high).toBeCloseTo(expected.high, 7);
		// Not a row of the estimate: the rows and the other figures are the reviewed ones'.
		expect(half.total).toBe(16);
		const words = '4 of 8 doubtful items reviewed; the other 4 are taken to be like them.';
		// One item left: "is", not "are".
		expect(allTrafficLines(metricsOf(items, 0.9, unreviewed(1)))[0]).toContain(
			'4 of 5 doubtful items reviewed; the other 1 is taken to be like them.',
		);
		expect(summaryOf(half).sentences[0]).toContain(words);
		expect(allTrafficLines(half)).toEqual([
			`• Over all traffic: 71.4% (95% interval ${intervalWords(half.allTraffic.accuracyInterval)}). ${words}`,
		]);
		const html = renderReport(half);
		expect(html).toContain(words);
		expect(html).toContain('<th>Not reviewed</th>');
	});

	it('an audited item nobody reviewed widens its share: the reviewed rows stand for it too', () => {
		// 12 reviewed and 4 not at 25 %: 16 picked stand for 64 items.
		const result = metricsOf(items, 0.9, unreviewed(4, 'audited', 0.25));
		expect(result.allTraffic.standsFor).toEqual({ doubtful: 4, audited: 64, total: 68 });
		expect(result.allTraffic.accuracy).toBeCloseTo((2 + 64 * 0.75) / 68, 12);
		// A share whose picked items nobody reviewed: no figure for either, and why.
		const unseen = metricsOf(items, 0.9, unreviewed(3, 'audited', 0.05));
		const why = 'not enough items yet (none of the 3 audited (at 5 %) items reviewed)';
		expect(unseen.allTraffic).toMatchObject({ accuracy: null, reason: why });
		expect(unseen.confidentAccuracy).toMatchObject({ accuracy: null, reason: why });
		// Bad cells on such a row: not counted.
		const bad = metricsOf(items, 0.9, [
			...unreviewed(2, '__proto__'),
			...unreviewed(2, 'audited', 7),
		]);
		expect(bad.allTraffic.standsFor.total).toBe(52);
	});

	it('doubtful items with none reviewed: no figure, and why', () => {
		const none = metricsOf(
			rows(12, 9, { stratum: 'audited', auditShare: 0.25 }),
			0.9,
			unreviewed(3),
		);
		expect(none.allTraffic).toMatchObject({ accuracy: null, accuracyInterval: null });
		expect(none.allTraffic.reason).toBe(
			'not enough items yet (none of the 3 doubtful items reviewed)',
		);
		// The audited answers' own figure stands.
		expect(none.confidentAccuracy.accuracy).toBe(0.75);
		expect(summaryOf(none).sentences[0]).toBe(
			'Accuracy over all traffic: not enough items yet (none of the 3 doubtful items reviewed). 0 of 3 doubtful items reviewed; the other 3 are taken to be like them.',
		);
	});

	it('post-stratifies by distinct audit share: a share changed mid-way is two strata', () => {
		// Doubtful 2 rows, 1 right (2 items); audited at 50 %: 6 right of 6 (12 items); at 10 %: 1
		// right of 6 (60 items). (1 + 12 + 10) / 74. One pooled audited stratum would give another figure.
		const mixed = metricsOf([
			...rows(2, 1, { stratum: 'doubtful' }),
			...rows(6, 6, { stratum: 'audited', auditShare: 0.5 }),
			...rows(6, 1, { stratum: 'audited', auditShare: 0.1 }),
		]);
		expect(mixed.allTraffic.strata.map((s) => [s.auditShare, s.rows, s.standsFor])).toEqual([
			[null, 2, 2],
			[0.5, 6, 12],
			[0.1, 6, 60],
		]);
		expect(mixed.allTraffic.accuracy).toBeCloseTo(23 / 74, 12);
		const expected = reference([
			{ right: 1, rows: 2, share: 1 },
			{ right: 6, rows: 6, share: 0.5 },
			{ right: 1, rows: 6, share: 0.1 },
		]);
		expect(mixed.allTraffic.accuracyInterval!.low).toBeCloseTo(expected.low, 7);
		expect(mixed.allTraffic.accuracyInterval!.high).toBeCloseTo(expected.high, 7);
		expect(mixed.confidentAccuracy).toMatchObject({ right: 7, n: 12 });
		// The confident answers: (12 + 10) right of 72 (not 7 of 12 rows), with the same interval rule.
		expect(mixed.confidentAccuracy.accuracy).toBeCloseTo(22 / 72, 12);
		const confident = reference([
			{ right: 6, rows: 6, share: 0.5 },
			{ right: 1, rows: 6, share: 0.1 },
		]);
		expect(mixed.confidentAccuracy.accuracyInterval!.low).toBeCloseTo(confident.low, 7);
		expect(mixed.confidentAccuracy.accuracyInterval!.high).toBeCloseTo(confident.high, 7);
	});

	it('leaves out an audited row whose share is 0, above 1, not a number or a text', () => {
		const base = rows(10, 10, { stratum: 'audited', auditShare: 0.5 });
		for (const auditShare of [0, 1.5, -0.2, Number.NaN, Infinity, '0.5', null, undefined]) {
			const withBad = metricsOf([...base, row({ right: false, stratum: 'audited', auditShare })]);
			expect(withBad.allTraffic.leftOut).toEqual({
				handAdded: 0,
				badStratum: 0,
				badShare: 1,
				total: 1,
			});
			// The estimate is the good rows', unmoved by the bad one.
			expect(withBad.allTraffic.accuracy).toBe(1);
			expect(withBad.allTraffic.rows.audited).toBe(10);
			expect(summaryOf(withBad).sentences[0]).toContain(
				'Left out of it: 1 row, 1 audited with an audit share that is not a number above 0 and at most 1.',
			);
		}
	});

	it('takes a share of exactly 1: each such row stands for itself', () => {
		const all = metricsOf(rows(12, 8, { stratum: 'audited', auditShare: 1 }));
		expect(all.allTraffic.standsFor.total).toBe(12);
		expect(all.allTraffic.accuracy).toBeCloseTo(8 / 12, 12);
		expect(all.allTraffic.leftOut.total).toBe(0);
	});

	it('leaves out a stratum that is neither doubtful nor audited (`__proto__` among them), no crash', () => {
		const base = rows(10, 5, { stratum: 'audited', auditShare: 0.5 });
		for (const stratum of [
			'__proto__',
			'constructor',
			'Audited',
			'audited ',
			7,
			{ audited: true },
		]) {
			const withBad = metricsOf([...base, row({ right: true, stratum, auditShare: 0.5 })]);
			expect(withBad.allTraffic.leftOut).toMatchObject({ badStratum: 1, total: 1 });
			expect(withBad.allTraffic.accuracy).toBe(0.5);
			expect(withBad.allTraffic.strata).toHaveLength(1);
		}
	});

	it('leaves out a row added by hand (no stratum)', () => {
		const result = metricsOf([
			...rows(10, 5, { stratum: 'audited', auditShare: 0.5 }),
			row({ right: true }),
			row({ right: true, stratum: '' }),
			row({ right: true, stratum: null }),
		]);
		expect(result.allTraffic.leftOut).toEqual({
			handAdded: 3,
			badStratum: 0,
			badShare: 0,
			total: 3,
		});
		expect(result.allTraffic.accuracy).toBe(0.5);
	});

	it('scores an audited row by its guess when its run was doubtful (the rule of the doubtful table)', () => {
		// An audited row decided again on a new version that came back uncertain, its guess right.
		const result = metricsOf([
			row({ right: true, stratum: 'audited', auditShare: 0.5, guessed: true }),
			row({ right: false, stratum: 'audited', auditShare: 0.5 }),
		]);
		expect(result.allTraffic.strata[0]).toMatchObject({ rows: 2, right: 1 });
		expect(result.doubtful).toMatchObject({ guessed: 1, guessRight: 1 });
	});

	it('no audited row: no figure, and how many audited items it needs', () => {
		const needed = itemsNeeded(0.05, 0.9);
		const onlyDoubtful = metricsOf(rows(5, 4, { stratum: 'doubtful', reviewedFrom: 'uncertain' }));
		expect(onlyDoubtful.allTraffic).toMatchObject({
			accuracy: null,
			accuracyInterval: null,
			rows: { doubtful: 5, audited: 0 },
		});
		const reason = `not enough items yet (0 audited; at least 10 needed for a figure, about ${Math.round(needed / 10) * 10} for ± 5 points)`;
		expect(needed).toBeGreaterThan(100);
		expect(onlyDoubtful.allTraffic.reason).toBe(reason);
		expect(onlyDoubtful.confidentAccuracy).toEqual({
			accuracy: null,
			accuracyInterval: null,
			right: 0,
			n: 0,
			reason,
		});
		const sentences = summaryOf(onlyDoubtful).sentences;
		expect(sentences[0]).toBe(
			`Accuracy over all traffic: ${reason}: set Decide's Audit Share (Decide → Options → Audit Share (%)) so that a sample of the confident answers is reviewed too.`,
		);
		// Only doubtful rows: the warning stands.
		expect(onlyDoubtful.reviewedFrom.doubtfulOnly).toBe(true);
		expect(sentences.join(' ')).toContain('the accuracy is that of the hard cases');
	});

	it('fewer than 10 audited rows: "not enough items yet", not a figure, in words and on the page', () => {
		const few = metricsOf([
			...rows(4, 2, { stratum: 'doubtful' }),
			...rows(9, 9, { stratum: 'audited', auditShare: 0.05 }),
		]);
		expect(few.allTraffic.accuracy).toBeNull();
		expect(few.allTraffic.reason).toMatch(
			/^not enough items yet \(9 audited; at least 10 needed for a figure, about \d+ for ± 5 points\)$/,
		);
		expect(few.confidentAccuracy).toMatchObject({ accuracy: null, n: 9, right: 9 });
		expect(summaryOf(few).sentences[0]).toBe(
			`Accuracy over all traffic: ${few.allTraffic.reason}.`,
		);
		expect(allTrafficLines(few)).toEqual([`• Over all traffic: ${few.allTraffic.reason}.`]);
		const html = renderReport(few);
		expect(html).toContain('data-figure="all-traffic"');
		expect(html).toContain('9 audited; at least 10 needed for a figure');
		// One more audited row and the figure is there.
		const enough = metricsOf([
			...rows(4, 2, { stratum: 'doubtful' }),
			...rows(10, 10, { stratum: 'audited', auditShare: 0.05 }),
		]);
		expect(enough.allTraffic.accuracy).not.toBeNull();
	});

	it('rows with no stratum at all: nothing said about all traffic', () => {
		const plain = metricsOf(rows(5, 4, {}));
		expect(plain.allTraffic.leftOut.handAdded).toBe(5);
		expect(plain.allTraffic.accuracy).toBeNull();
		expect(summaryOf(plain).sentences.join(' ')).not.toContain('all traffic');
		expect(renderReport(plain)).not.toContain('data-figure="all-traffic"');
	});

	it('with an audited row the doubtful-only warning does not fire', () => {
		// Every row says its run was uncertain (an audited row decided again on a new version may),
		// but one is audited: the figures are not only the hard cases.
		const items = [
			...rows(4, 3, { stratum: 'doubtful', reviewedFrom: 'uncertain' }),
			row({
				right: true,
				stratum: 'audited',
				auditShare: 0.2,
				reviewedFrom: 'uncertain',
				guessed: true,
			}),
		];
		const result = metricsOf(items);
		expect(result.reviewedFrom).toEqual({ told: 5, doubtful: 5, doubtfulOnly: false });
		expect(summaryOf(result).sentences.join(' ')).not.toContain('hard cases');
		// The same rows with the audited one left out by a bad share: the warning is back.
		items[4] = { ...items[4], auditShare: 0 };
		expect(metricsOf(items).reviewedFrom.doubtfulOnly).toBe(true);
	});

	it('a target outside 0–1 does not stop the evaluation', () => {
		expect(metricsOf(rows(2, 1, { stratum: 'doubtful' }), 1.01).allTraffic.reason).toMatch(
			/^not enough items yet \(0 audited; at least 10 needed for a figure, about \d+ for/,
		);
	});
});
