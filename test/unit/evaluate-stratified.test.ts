/**
 * Like compared with like (issue 43): the recent rows' test stratum by stratum (src/evaluate/stats.ts
 * `cochranMantelHaenszel`, `stratifiedDifference`; src/evaluate/evidence.ts `recentEvidence`). The
 * formulas against R's published example and jStat's hypergeometric law; the evidence on a change
 * in the mix alone (no alert), a real drop within a stratum (an alert), and its one number.
 */
import {
	LOADED,
	cochranMantelHaenszel,
	recentEvidence,
	stratifiedDifference,
	type ItemOutcome,
	type RecentStratum,
	type StratumTable,
} from '../../src/evaluate';
import type { IDataObject } from 'n8n-workflow';
import { recentStrata } from '../../nodes/DecisionService/actions/decision/evaluate/recent-rows';

/** The parts of jStat these tests call (the package ships no types). */
interface JStat {
	hypgeom: {
		/** P(X = k): X successes in `draws` from `population` holding `successes`. */
		pdf(k: number, population: number, successes: number, draws: number): number;
		cdf(k: number, population: number, successes: number, draws: number): number;
	};
	chisquare: { cdf(x: number, dof: number): number };
	erf(x: number): number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jstat is CommonJS without types
const { jStat } = require('jstat') as { jStat: JStat };

/** The error function, for the normal curve: Φ(z) = ½(1 + erf(z/√2)) (jStat's). */
const erf = (x: number): number => jStat.erf(x);

const close = (actual: number, expected: number, tolerance: number) =>
	expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance);

const table = (recent: [number, number], earlier: [number, number]): StratumTable => ({
	recent: { successes: recent[0], n: recent[1] },
	earlier: { successes: earlier[0], n: earlier[1] },
});

describe('cochranMantelHaenszel', () => {
	// Penicillin and rabbits (Mantel & Haenszel 1959; R's mantelhaen.test example, Agresti 2002
	// table 6.12): per dose, cured of injected, delayed injection (here "recent") and immediate.
	const rabbits = [
		table([0, 5], [0, 6]),
		table([0, 6], [3, 6]),
		table([2, 6], [6, 6]),
		table([6, 6], [5, 6]),
		table([5, 5], [2, 2]),
	];

	it("gives R's statistic and exact one-sided p-value on the rabbits", () => {
		const test = cochranMantelHaenszel(rabbits);
		// mantelhaen.test(Rabbits): Mantel-Haenszel X-squared = 3.9286, df = 1, p-value = 0.04747.
		close(test.chiSquare!, 3.9286, 5e-5);
		close(1 - jStat.chisquare.cdf(test.chiSquare!, 1), 0.04747, 5e-6);
		expect(test.observed).toBe(13);
		expect(test.expected).toBe(16);
		// mantelhaen.test(Rabbits, exact = TRUE, alternative = "greater") on the immediate
		// injection: p = 0.020; the same tail seen from the delayed side is the lower one.
		expect(test.exact).toBe(true);
		close(test.pLower, 0.02, 5e-4);
	});

	it('its exact p-value is the convolution of the strata hypergeometric laws (jStat), summed by hand', () => {
		const tables = [table([7, 12], [40, 50]), table([3, 9], [20, 30]), table([10, 10], [55, 60])];
		const laws = tables.map((each) => {
			const right = each.recent.successes + each.earlier.successes;
			const all = each.recent.n + each.earlier.n;
			return Array.from({ length: each.recent.n + 1 }, (_, k) =>
				jStat.hypgeom.pdf(k, all, right, each.recent.n),
			);
		});
		let lower = 0;
		laws[0].forEach((p0, a) =>
			laws[1].forEach((p1, b) =>
				laws[2].forEach((p2, c) => {
					if (a + b + c <= 20) lower += p0 * p1 * p2;
				}),
			),
		);
		close(cochranMantelHaenszel(tables).pLower, lower, 1e-12);
	});

	it("with one stratum, is Fisher's exact test (jStat's hypergeometric distribution)", () => {
		for (const [k, n, right, all] of [
			[26, 34, 332, 374],
			[25, 34, 331, 374],
			[5, 20, 70, 120],
			[0, 3, 10, 40],
			[150, 200, 3750, 4200],
		])
			close(
				cochranMantelHaenszel([table([k, n], [right - k, all - n])]).pLower,
				jStat.hypgeom.cdf(k, all, right, n),
				1e-10,
			);
	});

	it('past a few million products, the normal approximation with continuity correction, close to exact', () => {
		const tables = [table([1230, 2500], [1300, 2500]), table([1240, 2500], [1290, 2500])];
		const big = cochranMantelHaenszel(tables);
		expect(big.exact).toBe(false);
		// The exact law, convolved here from jStat's pdfs.
		const laws = tables.map((each) =>
			Array.from({ length: 2501 }, (_, k) =>
				jStat.hypgeom.pdf(k, 5000, each.recent.successes + each.earlier.successes, 2500),
			),
		);
		let lower = 0;
		laws[0].forEach((p0, a) => {
			for (let b = 0; a + b <= big.observed; b++) lower += p0 * laws[1][b];
		});
		close(big.pLower, lower, 2e-4);
		expect(big.pLower).toBeGreaterThan(0.005);
		expect(big.pLower).toBeLessThan(0.02);
	});

	it('a stratum of 300,000 rows a side: exact, no overflow, close to the normal curve', () => {
		const big = cochranMantelHaenszel([table([150000, 300000], [150500, 300000])]);
		expect(big.exact).toBe(true);
		const z = (big.observed - big.expected + 0.5) / Math.sqrt(big.variance);
		close(big.pLower, 0.5 * (1 + erf(z / Math.SQRT2)), 2e-3);
	});

	it('a stratum where nothing can differ (all right, or one side empty) tells nothing', () => {
		expect(cochranMantelHaenszel([table([5, 5], [50, 50]), table([3, 4], [0, 0])])).toMatchObject({
			chiSquare: null,
			pLower: 1,
		});
		expect(() => cochranMantelHaenszel([table([5, 4], [1, 2])])).toThrow(RangeError);
	});
});

describe('stratifiedDifference', () => {
	it("with one stratum, is Newcombe's hybrid score interval", () => {
		const one = stratifiedDifference([table([160, 200], [3600, 4000])]);
		close(one.value, -0.1, 1e-12);
		close(one.low, -0.1615, 1e-4);
		close(one.high, -0.0495, 1e-4);
	});

	it('weighs each stratum by its share of the recent rows: the earlier rows on the recent mix', () => {
		// Recent: 30 doubtful (18 right), 10 audited (10 right); earlier: 60 % and 97 %.
		const mixed = stratifiedDifference([table([18, 30], [300, 500]), table([10, 10], [291, 300])]);
		expect(mixed.weights).toEqual([0.75, 0.25]);
		close(mixed.recent.value, 28 / 40, 1e-12);
		close(mixed.earlier.value, 0.75 * 0.6 + 0.25 * 0.97, 1e-12);
		close(mixed.value, 28 / 40 - (0.75 * 0.6 + 0.25 * 0.97), 1e-12);
		expect(mixed.low).toBeLessThan(mixed.value);
		expect(mixed.high).toBeGreaterThan(mixed.value);
		expect(() => stratifiedDifference([table([1, 2], [0, 0])])).toThrow(RangeError);
	});
});

describe('the recent rows compared like with like', () => {
	const options = { falseAlarmRate: 0.01, threshold: 5 };
	const stratum = (name: string, recent: [number, number], earlier: [number, number]) => ({
		stratum: name,
		...table(recent, earlier),
	});
	/** Every stratum pooled into one: the test before issue 43. */
	const pooled = (strata: RecentStratum[]) => [
		strata.reduce(
			(all, each) =>
				stratum(
					LOADED,
					[all.recent.successes + each.recent.successes, all.recent.n + each.recent.n],
					[all.earlier.successes + each.earlier.successes, all.earlier.n + each.earlier.n],
				),
			stratum(LOADED, [0, 0], [0, 0]),
		),
	];

	it('a week with no audit reviews, nothing changed: no alert (pooled, it alerted)', () => {
		// Doubtful rows judged by the guess, 60 % right; audited rows 97 %: the week has only doubtful.
		const strata = [
			stratum('doubtful', [60, 100], [300, 500]),
			stratum('audited', [0, 0], [291, 300]),
		];
		expect(recentEvidence(pooled(strata), options).alert).toBe(true);
		const evidence = recentEvidence(strata, options);
		expect(evidence.alert).toBe(false);
		expect(evidence.points).toBe(0);
		expect(evidence.rows).toBe(100);
		expect(evidence.left_out).toEqual([{ stratum: 'audited', recent: 0, earlier: 300 }]);
		expect(evidence.words).toContain('doubtful rows only');
		expect(evidence.words).toContain(
			'left out, with no row of their kind on the other side: 300 earlier audited',
		);
	});

	it('audit reviews halve, nothing changed: no alert (pooled, it alerted)', () => {
		const strata = [
			stratum('doubtful', [120, 200], [600, 1000]),
			stratum('audited', [15, 15], [582, 600]),
		];
		expect(recentEvidence(pooled(strata), options).alert).toBe(true);
		const evidence = recentEvidence(strata, options);
		expect(evidence.alert).toBe(false);
		expect(evidence.p_value!).toBeGreaterThan(0.3);
		expect(evidence.strata!.map((each) => each.weight)).toEqual([200 / 215, 15 / 215]);
	});

	it('3 reviews against 37 loaded rows: nothing to compare, no alert (pooled: −58.6 points)', () => {
		const strata = [stratum('doubtful', [1, 3], [0, 0]), stratum(LOADED, [0, 0], [34, 37])];
		const evidence = recentEvidence(strata, options);
		expect(evidence).toMatchObject({
			alert: false,
			points: null,
			p_value: null,
			rows: 0,
			too_few: true,
		});
		expect(evidence.words).toContain(
			'Recent rows: none to compare like with like (left out, with no row of their kind on the other side: 3 recent doubtful, 37 earlier loaded)',
		);
	});

	it('a real drop within a stratum alerts, and its points are the words and the two rates shown', () => {
		// Doubtful rows 60 % → 33 %, audited unchanged, the mix as before.
		const strata = [
			stratum('doubtful', [33, 100], [600, 1000]),
			stratum('audited', [58, 60], [582, 600]),
		];
		const evidence = recentEvidence(strata, options);
		expect(evidence.alert).toBe(true);
		expect(evidence.p_value!).toBeLessThan(0.001);
		// The one number: after − before on the recent mix, as the words say it.
		const weighed = (100 / 160) * 0.6 + (60 / 160) * 0.97;
		expect(evidence.points).toBe(Math.round((91 / 160 - weighed) * 10000) / 100);
		close(evidence.after.value! - evidence.before.value!, evidence.points! / 100, 1e-9);
		expect(evidence.words).toContain(`${Math.abs(evidence.points!).toFixed(1)} points`);
		expect(evidence.words).toContain(
			`accuracy ${((91 / 160) * 100).toFixed(1)}% on 160 against ${(weighed * 100).toFixed(1)}% on 1,600 rows before`,
		);
		expect(evidence.words).toContain(
			'doubtful, audited rows, each kind against its own earlier rows',
		);
		expect(evidence.words).toContain('Alert:');
	});
});

describe("the watch's recent rows, by kind (recentStrata)", () => {
	it('puts each scored row in its stratum and side; a row nobody reviewed is not in the test', () => {
		const now = Date.parse('2026-12-07T12:00:00Z');
		const since = now - 7 * 24 * 60 * 60 * 1000;
		const recent = '2026-12-05T10:00:00Z';
		const old = '2026-11-01T10:00:00Z';
		const rows: IDataObject[] = [
			{ stratum: 'doubtful', reviewed_at: recent },
			{ stratum: 'doubtful', reviewed_at: old },
			{ stratum: 'audited', audit_share: 0.2, reviewed_at: recent },
			{}, // loaded: no stratum, no reviewed_at (counts as before)
			{ stratum: 'something else', reviewed_at: recent }, // not a kind the watch knows: loaded
			{ stratum: 'doubtful', status: 'not_reviewed', reviewed_at: recent },
			{ stratum: 'doubtful', reviewed_at: recent }, // a tie: nothing to judge
		];
		// Answered when judged by its answer; doubtful (by its guess, or a tie) otherwise.
		const outcome = (index: number, correct: boolean | null, guessRight: boolean | null) =>
			({ index, correct, guessRight, answered: correct !== null }) as ItemOutcome;
		const metrics = {
			items: [
				outcome(0, null, true),
				outcome(1, null, false),
				outcome(2, true, null),
				outcome(3, false, null),
				outcome(4, true, null),
				outcome(5, null, true),
				outcome(6, null, null),
			],
		};
		const strata = recentStrata(
			rows.map((json) => ({ json })),
			metrics,
			since,
		);
		expect(strata).toEqual([
			{ stratum: 'doubtful', recent: { successes: 1, n: 1 }, earlier: { successes: 0, n: 1 } },
			{ stratum: 'audited', recent: { successes: 1, n: 1 }, earlier: { successes: 0, n: 0 } },
			{ stratum: LOADED, recent: { successes: 1, n: 1 }, earlier: { successes: 0, n: 1 } },
		]);

		// A new version answers an earlier doubtful row and doubts an earlier audited one: each is
		// its own kind, not a gain among doubtful rows nor a drop among audited ones.
		const moved = recentStrata(
			[
				{ json: { stratum: 'doubtful', reviewed_at: recent } },
				{ json: { stratum: 'doubtful', reviewed_at: old } },
				{ json: { stratum: 'doubtful', reviewed_at: old } },
				{ json: { stratum: 'audited', audit_share: 0.2, reviewed_at: recent } },
				{ json: { stratum: 'audited', audit_share: 0.2, reviewed_at: old } },
				{ json: {} }, // loaded, doubtful on the live version: still a loaded row
			],
			{
				items: [
					outcome(0, null, false),
					outcome(1, true, null), // answered now, right
					outcome(2, null, true),
					outcome(3, true, null),
					outcome(4, null, false), // doubted now, its guess wrong
					outcome(5, null, true),
				],
			},
			since,
		);
		expect(moved).toEqual([
			{ stratum: 'doubtful', recent: { successes: 0, n: 1 }, earlier: { successes: 1, n: 1 } },
			{ stratum: 'audited', recent: { successes: 1, n: 1 }, earlier: { successes: 0, n: 0 } },
			{ stratum: LOADED, recent: { successes: 0, n: 0 }, earlier: { successes: 1, n: 1 } },
			{
				stratum: 'doubtful (answered now)',
				recent: { successes: 0, n: 0 },
				earlier: { successes: 1, n: 1 },
			},
			{
				stratum: 'audited (doubtful now)',
				recent: { successes: 0, n: 0 },
				earlier: { successes: 0, n: 1 },
			},
		]);
		// Said as left out: no row of their kind on the other side.
		expect(recentEvidence(moved, { falseAlarmRate: 0.01, threshold: 5 }).words).toContain(
			'1 earlier doubtful (answered now), 1 earlier audited (doubtful now)',
		);
	});
});
