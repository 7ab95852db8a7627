import {
	evaluate,
	renderReport,
	summaryOf,
	type Metrics,
	type ScoredItem,
} from '../../src/evaluate';
import { type EvaluationDecision } from '../../src/answer';
import { itemsNeeded, wilsonInterval } from '../../src/evaluate/stats';
import { answerOfRun } from '../support/answers';

// Accuracy over all traffic from the doubtful and audited rows (src/evaluate/all-traffic.ts): a
// case worked by hand, the interval against the documented formula written out with jStat and
// simple-statistics, and each rule with a case that fails without it.

/** The parts of jStat and simple-statistics used here (the packages ship no types). */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jstat is CommonJS without types
const { jStat } = require('jstat') as {
	jStat: { normal: { inv(p: number, mean: number, sd: number): number } };
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

const rows = (count: number, right: number, extra: Omit<Row, 'right'>): ScoredItem[] =>
	Array.from({ length: count }, (_, at) => row({ right: at < right, ...extra }));

const metricsOf = (items: ScoredItem[], targetAccuracy = 0.9): Metrics =>
	evaluate(decision, items, { targetAccuracy }).metrics;

const z = jStat.normal.inv(0.975, 0, 1);

/** The documented estimate written out: W_h = N̂_h/ΣN̂, Agresti–Coull per stratum, weighted. */
function reference(strata: Array<{ right: number; rows: number; share: number }>) {
	const standsFor = strata.map((s) => s.rows / s.share);
	const total = ss.sum(standsFor);
	const w = standsFor.map((n) => n / total);
	const value = ss.sum(strata.map((s, h) => w[h] * (s.right / s.rows)));
	const adjusted = strata.map((s) => (s.right + (z * z) / 2) / (s.rows + z * z));
	const centre = ss.sum(adjusted.map((p, h) => w[h] * p));
	const half =
		z *
		Math.sqrt(ss.sum(adjusted.map((p, h) => (w[h] ** 2 * p * (1 - p)) / (strata[h].rows + z * z))));
	return {
		value,
		low: Math.min(value, Math.max(0, centre - half)),
		high: Math.max(value, Math.min(1, centre + half)),
		total,
	};
}

describe('accuracy over all traffic', () => {
	// 4 doubtful rows, guesses right on 2 (each stands for 1: 4 items);
	// 3 audited rows at 25 %, answers right on 2 (each stands for 4: 12 items).
	// W = 4/16 and 12/16: accuracy = 0.25 · 2/4 + 0.75 · 2/3 = 0.125 + 0.5 = 0.625.
	const items = [
		...rows(4, 2, { stratum: 'doubtful' }),
		...rows(3, 2, { stratum: 'audited', auditShare: 0.25 }),
	];
	const metrics = metricsOf(items);

	it('weighs each row by the traffic it stands for (worked by hand)', () => {
		expect(metrics.allTraffic.accuracy).toBeCloseTo(0.625, 12);
		expect(metrics.allTraffic.rows).toEqual({ doubtful: 4, audited: 3 });
		expect(metrics.allTraffic.standsFor).toEqual({ doubtful: 4, audited: 12, total: 16 });
		expect(metrics.allTraffic.strata).toEqual([
			{ stratum: 'doubtful', auditShare: null, rows: 4, right: 2, standsFor: 4, weight: 0.25 },
			{ stratum: 'audited', auditShare: 0.25, rows: 3, right: 2, standsFor: 12, weight: 0.75 },
		]);
		expect(metrics.allTraffic.reason).toBeNull();
		// The plain share of rows right (4 of 7) is not the estimate: the audited rows count 4 times.
		expect(metrics.allTraffic.accuracy).not.toBeCloseTo(4 / 7, 3);
	});

	it('gives the stratified 95 % interval of the documented formula (jStat, simple-statistics)', () => {
		const expected = reference([
			{ right: 2, rows: 4, share: 1 },
			{ right: 2, rows: 3, share: 0.25 },
		]);
		const interval = metrics.allTraffic.accuracyInterval!;
		expect(metrics.allTraffic.accuracy).toBeCloseTo(expected.value, 12);
		expect(interval.low).toBeCloseTo(expected.low, 9);
		expect(interval.high).toBeCloseTo(expected.high, 9);
		expect(interval).toMatchObject({ n: 7, level: 0.95 });
	});

	it("the audited rows' accuracy: the answers sent straight to their output (Wilson)", () => {
		const { low, high } = wilsonInterval(2, 3);
		expect(metrics.confidentAccuracy).toEqual({
			accuracy: 2 / 3,
			accuracyInterval: { low, high, n: 3, level: 0.95 },
			right: 2,
			n: 3,
			reason: null,
		});
	});

	it('says both in words, and in the report page', () => {
		const summary = summaryOf(metrics);
		const interval = metrics.allTraffic.accuracyInterval!;
		const pct = (value: number) => Math.round(value * 100);
		expect(summary.sentences[0]).toBe(
			`Accuracy over all traffic (estimated from 4 doubtful and 3 audited items, standing for about 16 items): 62.5% (95% interval ${pct(interval.low)}–${pct(interval.high)}%).`,
		);
		const wilson = wilsonInterval(2, 3);
		expect(summary.sentences[1]).toBe(
			`Answers sent straight to their output: right on 2 of 3 audited (95% interval ${pct(wilson.low)}–${pct(wilson.high)}%).`,
		);
		const html = renderReport(metrics, { summary });
		expect(html).toContain('data-figure="all-traffic"');
		expect(html).toContain('data-figure="confident"');
		expect(html).toContain('<table class="strata">');
		expect(html).toContain('Audited at 25.0%');
	});

	it('post-stratifies by distinct audit share: a share changed mid-way is two strata', () => {
		// Doubtful 2 rows, 1 right (2 items); audited at 50 %: 2 right of 2 (4 items); at 10 %: 0
		// right of 2 (20 items). (1 + 4 + 0) / 26. One pooled audited stratum would give another figure.
		const mixed = metricsOf([
			...rows(2, 1, { stratum: 'doubtful' }),
			...rows(2, 2, { stratum: 'audited', auditShare: 0.5 }),
			...rows(2, 0, { stratum: 'audited', auditShare: 0.1 }),
		]);
		expect(mixed.allTraffic.strata.map((s) => [s.auditShare, s.rows, s.standsFor])).toEqual([
			[null, 2, 2],
			[0.5, 2, 4],
			[0.1, 2, 20],
		]);
		expect(mixed.allTraffic.accuracy).toBeCloseTo(5 / 26, 12);
		const expected = reference([
			{ right: 1, rows: 2, share: 1 },
			{ right: 2, rows: 2, share: 0.5 },
			{ right: 0, rows: 2, share: 0.1 },
		]);
		expect(mixed.allTraffic.accuracyInterval!.low).toBeCloseTo(expected.low, 9);
		expect(mixed.allTraffic.accuracyInterval!.high).toBeCloseTo(expected.high, 9);
		expect(mixed.confidentAccuracy).toMatchObject({ right: 2, n: 4 });
		// The confident answers: 4 stand for right of 24 (not 2 of 4 rows), with the same interval rule.
		expect(mixed.confidentAccuracy.accuracy).toBeCloseTo(4 / 24, 12);
		const confident = reference([
			{ right: 2, rows: 2, share: 0.5 },
			{ right: 0, rows: 2, share: 0.1 },
		]);
		expect(mixed.confidentAccuracy.accuracyInterval!.low).toBeCloseTo(confident.low, 9);
		expect(mixed.confidentAccuracy.accuracyInterval!.high).toBeCloseTo(confident.high, 9);
	});

	it('leaves out an audited row whose share is 0, above 1, not a number or a text', () => {
		const base = rows(2, 2, { stratum: 'audited', auditShare: 0.5 });
		for (const auditShare of [0, 1.5, -0.2, Number.NaN, Infinity, '0.5', null, undefined]) {
			const withBad = metricsOf([...base, row({ right: false, stratum: 'audited', auditShare })]);
			expect(withBad.allTraffic.leftOut).toEqual({
				handAdded: 0,
				badStratum: 0,
				badShare: 1,
				notJudged: 0,
				total: 1,
			});
			// The estimate is the two good rows', unmoved by the bad one.
			expect(withBad.allTraffic.accuracy).toBe(1);
			expect(withBad.allTraffic.rows.audited).toBe(2);
			expect(summaryOf(withBad).sentences[0]).toContain(
				'Left out of it: 1 row, 1 audited with an audit share that is not a number above 0 and at most 1.',
			);
		}
	});

	it('takes a share of exactly 1: each such row stands for itself', () => {
		const all = metricsOf(rows(3, 2, { stratum: 'audited', auditShare: 1 }));
		expect(all.allTraffic.standsFor.total).toBe(3);
		expect(all.allTraffic.accuracy).toBeCloseTo(2 / 3, 12);
		expect(all.allTraffic.leftOut.total).toBe(0);
	});

	it('leaves out a stratum that is neither doubtful nor audited (`__proto__` among them), no crash', () => {
		const base = rows(2, 1, { stratum: 'audited', auditShare: 0.5 });
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

	it('leaves out a row added by hand (no stratum), and one with no answer nor guess', () => {
		const pendingNoGuess: ScoredItem = {
			expected: 'billing',
			run: answerOfRun({ status: 'pending' }, 'route'),
			charged: 0,
			stratum: 'doubtful',
		};
		const result = metricsOf([
			...rows(2, 1, { stratum: 'audited', auditShare: 0.5 }),
			row({ right: true }),
			row({ right: true, stratum: '' }),
			row({ right: true, stratum: null }),
			pendingNoGuess,
		]);
		expect(result.allTraffic.leftOut).toEqual({
			handAdded: 3,
			badStratum: 0,
			badShare: 0,
			notJudged: 1,
			total: 4,
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
		const reason = `not enough items yet (0 audited; about ${Math.round(needed / 10) * 10} needed for ± 5 points)`;
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
			/^not enough items yet \(0 audited; about \d+ needed/,
		);
	});
});
