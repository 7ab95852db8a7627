import {
	betaCdf,
	betaQuantile,
	binomialCdf,
	clopperPearson,
	logGamma,
	weighedRate,
	itemsNeeded,
	itemsNeededToReach,
	mcnemarExact,
	normalCdf,
	normalQuantile,
	twoProportionTest,
	wilsonInterval,
	zFor,
} from '../../src/evaluate/stats';

// Each formula of src/evaluate/stats.ts against a well-kept library (jStat, simple-statistics) over
// a grid, and against published values. The shipped code does not use these libraries.

/** The parts of jStat these tests call (the package ships no types). */
interface JStat {
	gammaln(x: number): number;
	ibeta(x: number, a: number, b: number): number;
	beta: { inv(p: number, a: number, b: number): number };
	studentt: { inv(p: number, dof: number): number };
	normal: {
		cdf(x: number, mean: number, sd: number): number;
		inv(p: number, mean: number, sd: number): number;
	};
	binomial: { cdf(k: number, n: number, p: number): number };
	chisquare: { cdf(x: number, dof: number): number };
	ztest(z: number, sides: 1 | 2): number;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jstat is CommonJS without types
const { jStat } = require('jstat') as { jStat: JStat };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- same, typed by hand above
const ss = require('simple-statistics') as {
	binomialDistribution(trials: number, p: number): number[] | undefined;
	sum(values: number[]): number;
};

const close = (actual: number, expected: number, tolerance: number) =>
	expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance);
const relativelyClose = (actual: number, expected: number, tolerance: number) =>
	expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));

/** P(X ≤ k), X ~ Binomial(n, 1/2), exactly: Σ C(n, i) / 2^n in whole numbers (n ≤ 1000). */
function exactHalfBinomialCdf(k: number, n: number): number {
	let c = 1n;
	let sum = 0n;
	for (let i = 0; i <= k; i += 1) {
		if (i > 0) c = (c * BigInt(n - i + 1)) / BigInt(i);
		sum += c;
	}
	// Scale so that both numbers stay below 2^1023 before the division.
	const shift = BigInt(Math.max(0, n - 1000));
	return Number(sum >> shift) / Number((1n << BigInt(n)) >> shift);
}

describe('normalCdf', () => {
	it('matches jStat over −8 … 8', () => {
		for (let x = -8; x <= 8; x += 0.05) close(normalCdf(x), jStat.normal.cdf(x, 0, 1), 1e-14);
	});

	it('keeps relative precision in the far tail', () => {
		// jStat's 1 + erf(x) loses these. Expected: erfc(x/√2)/2 by the C library's erfc (Python's
		// math.erfc); R's pnorm(-x) prints the same first 7 digits.
		relativelyClose(normalCdf(-5), 2.866515718791946e-7, 1e-8);
		relativelyClose(normalCdf(-10), 7.619853024160593e-24, 1e-8);
		relativelyClose(normalCdf(-30), 4.906713927148764e-198, 1e-8);
		expect(normalCdf(-40)).toBe(0);
		expect(normalCdf(40)).toBe(1);
		expect(normalCdf(0)).toBeCloseTo(0.5, 15);
	});
});

describe('normalQuantile', () => {
	it('matches jStat over 1e-6 … 1 − 1e-6', () => {
		const ps: number[] = [];
		for (let p = 1e-6; p < 0.01; p *= 1.5) ps.push(p, 1 - p);
		for (let p = 0.01; p < 0.995; p += 0.005) ps.push(p);
		for (const p of ps) {
			const expected = jStat.normal.inv(p, 0, 1);
			close(normalQuantile(p), expected, 1e-9 * Math.max(1, Math.abs(expected)));
		}
	});

	it('gives the textbook critical values', () => {
		close(normalQuantile(0.975), 1.959963984540054, 1e-12);
		close(normalQuantile(0.95), 1.6448536269514722, 1e-12);
		close(normalQuantile(0.995), 2.5758293035489004, 1e-12);
		close(zFor(0.9), 1.6448536269514722, 1e-12);
		expect(normalQuantile(0.5)).toBeCloseTo(0, 14);
	});

	it('is the inverse of normalCdf down to 1e-300', () => {
		for (const p of [1e-300, 1e-100, 1e-20, 1e-9, 0.001, 0.3, 0.7, 0.999]) {
			relativelyClose(normalCdf(normalQuantile(p)), p, 1e-8);
		}
		// The upper tail through its complement: 1 − 1e-12 is not exact in binary, so check Φ(−x).
		relativelyClose(normalCdf(-normalQuantile(1 - 1e-12)), 1e-12, 1e-3);
	});

	it('is infinite at 0 and 1 and refuses a p outside [0, 1]', () => {
		expect(normalQuantile(0)).toBe(-Infinity);
		expect(normalQuantile(1)).toBe(Infinity);
		expect(() => normalQuantile(1.5)).toThrow(/p must be a probability/);
		expect(() => normalQuantile(Number.NaN)).toThrow(/p must be a probability/);
	});
});

describe('wilsonInterval', () => {
	it("gives Newcombe's (1998) published intervals", () => {
		// Newcombe, Statistics in Medicine 17:857–872, table I, method 3 (score).
		const cases: Array<[number, number, number, number]> = [
			[81, 263, 0.2553, 0.3662],
			[15, 148, 0.0624, 0.1605],
			[0, 20, 0, 0.1611],
			[1, 29, 0.0061, 0.1718],
			[0, 10, 0, 0.2775],
			[10, 10, 0.7225, 1],
		];
		for (const [x, n, low, high] of cases) {
			const interval = wilsonInterval(x, n);
			close(interval.low, low, 5e-5);
			close(interval.high, high, 5e-5);
			expect(interval.value).toBe(x / n);
			expect(interval.n).toBe(n);
		}
	});

	it("is where the score test at jStat's critical value stops rejecting, at 90, 95 and 99 %", () => {
		for (const level of [0.9, 0.95, 0.99]) {
			const z = jStat.normal.inv(1 - (1 - level) / 2, 0, 1);
			for (const n of [1, 7, 30, 91, 400]) {
				for (let x = 0; x <= n; x += Math.max(1, Math.floor(n / 9))) {
					const { low, high } = wilsonInterval(x, n, level);
					const p = x / n;
					for (const bound of [low, high]) {
						if (bound === 0 || bound === 1) continue;
						const score = Math.abs(p - bound) / Math.sqrt((bound * (1 - bound)) / n);
						close(score, z, 1e-9);
					}
					expect(low).toBeLessThanOrEqual(p);
					expect(high).toBeGreaterThanOrEqual(p);
				}
			}
		}
	});

	it('93.4 % of 91 answered items is about 86–97 %', () => {
		const interval = wilsonInterval(85, 91);
		expect(Math.round(interval.low * 100)).toBe(86);
		expect(Math.round(interval.high * 100)).toBe(97);
	});

	it('with no item: no value, the whole range', () => {
		expect(wilsonInterval(0, 0)).toEqual({
			value: null,
			low: 0,
			high: 1,
			n: 0,
			successes: 0,
			level: 0.95,
		});
	});

	it('is exactly 0 or 1 on the side of 0/n and n/n (no float noise)', () => {
		expect(wilsonInterval(0, 37).low).toBe(0);
		expect(wilsonInterval(37, 37).high).toBe(1);
		expect(wilsonInterval(37, 37).low).toBeGreaterThan(0.9);
	});

	it('refuses nonsense with a message naming the argument', () => {
		expect(() => wilsonInterval(5, 3)).toThrow('successes (5) cannot exceed n (3).');
		expect(() => wilsonInterval(-1, 3)).toThrow(/successes must be a finite number/);
		expect(() => wilsonInterval(1, Number.NaN)).toThrow(/n must be a finite number/);
		expect(() => wilsonInterval(1, 3, 95)).toThrow(/level must be a number between 0 and 1/);
	});
});

describe('twoProportionTest', () => {
	it("matches jStat's z test and the 2×2 chi-square over a grid", () => {
		for (const [n1, n2] of [
			[20, 50],
			[50, 100],
			[200, 1000],
		]) {
			for (let x1 = 1; x1 < n1; x1 += Math.ceil(n1 / 6)) {
				for (let x2 = 1; x2 < n2; x2 += Math.ceil(n2 / 6)) {
					const test = twoProportionTest({ successes: x1, n: n1 }, { successes: x2, n: n2 });
					const z = test.z as number;
					// Pearson's chi-square of the 2×2 table, no continuity correction, = z².
					const table = [
						[x1, n1 - x1],
						[x2, n2 - x2],
					];
					const total = n1 + n2;
					const columns = [x1 + x2, total - x1 - x2];
					let chi2 = 0;
					table.forEach((row, i) =>
						row.forEach((observed, j) => {
							const expected = ((i === 0 ? n1 : n2) * columns[j]) / total;
							chi2 += (observed - expected) ** 2 / expected;
						}),
					);
					relativelyClose(z * z, chi2, 1e-10);
					close(test.pValue as number, jStat.ztest(z, 2), 1e-12);
					close(test.pValue as number, 1 - jStat.chisquare.cdf(chi2, 1), 1e-9);
					expect(test.difference).toBeCloseTo(x1 / n1 - x2 / n2, 12);
				}
			}
		}
	});

	it('90 % of 50 against 80 % of 100: z 1.549, p 0.121', () => {
		const test = twoProportionTest({ successes: 45, n: 50 }, { successes: 80, n: 100 });
		close(test.z as number, 1.5491933, 1e-6);
		close(test.pValue as number, 0.1213353, 1e-6);
		expect(test.recent.value).toBe(0.9);
		expect(test.earlier.n).toBe(100);
	});

	it('both rates 0 (or both 1): no difference, p-value 1, not NaN', () => {
		const none = twoProportionTest({ successes: 0, n: 10 }, { successes: 0, n: 30 });
		expect([none.z, none.pValue, none.difference]).toEqual([0, 1, 0]);
		const all = twoProportionTest({ successes: 10, n: 10 }, { successes: 30, n: 30 });
		expect([all.z, all.pValue]).toEqual([0, 1]);
	});

	it('an empty side: nulls, and the other side still has its interval', () => {
		const test = twoProportionTest({ successes: 0, n: 0 }, { successes: 8, n: 10 });
		expect([test.z, test.pValue, test.difference]).toEqual([null, null, null]);
		expect(test.earlier.low).toBeGreaterThan(0.4);
	});

	it('names the side with bad counts', () => {
		expect(() => twoProportionTest({ successes: 11, n: 10 }, { successes: 1, n: 2 })).toThrow(
			'recent.successes (11) cannot exceed recent.n (10).',
		);
	});
});

describe('binomialCdf and mcnemarExact', () => {
	it('binomialCdf matches exact whole-number sums, jStat and simple-statistics', () => {
		for (let n = 1; n <= 300; n += 13) {
			const table = ss.binomialDistribution(n, 0.5) as number[];
			for (let k = 0; k <= n / 2; k += Math.max(1, Math.floor(n / 11))) {
				const exact = exactHalfBinomialCdf(k, n);
				relativelyClose(binomialCdf(k, n, 0.5), exact, 1e-11);
				close(binomialCdf(k, n, 0.5), jStat.binomial.cdf(k, n, 0.5), 1e-9);
				close(binomialCdf(k, n, 0.5), ss.sum(table.slice(0, k + 1)), 1e-12);
			}
		}
		for (const p of [0.1, 0.37, 0.8]) {
			for (const k of [0, 3, 9, 17])
				close(binomialCdf(k, 40, p), jStat.binomial.cdf(k, 40, p), 1e-9);
		}
	});

	it('keeps tiny tails that 2^−n would underflow (n = 2,000)', () => {
		// ln P(X ≤ 900) for Binomial(2000, ½) is about −20.7: e^−20.7 ≈ 1e-9, not 0.
		const p = binomialCdf(900, 2000, 0.5);
		relativelyClose(p, exactHalfBinomialCdf(900, 2000), 1e-9);
		expect(p).toBeGreaterThan(0);
	});

	it('is 2·P(X ≤ min(b, c)) over a grid, against jStat and exact sums', () => {
		for (let b = 0; b <= 40; b += 3) {
			for (let c = 0; c <= 40; c += 4) {
				const test = mcnemarExact(b, c);
				const n = b + c;
				expect(test.discordant).toBe(n);
				if (n === 0) {
					expect(test.pValue).toBe(1);
					continue;
				}
				const expected = Math.min(1, 2 * exactHalfBinomialCdf(Math.min(b, c), n));
				relativelyClose(test.pValue, expected, 1e-11);
				close(test.pValue, Math.min(1, 2 * jStat.binomial.cdf(Math.min(b, c), n, 0.5)), 1e-9);
			}
		}
	});

	it('3 against 12 discordant pairs: p = 2·576/32768 = 0.0352', () => {
		expect(mcnemarExact(3, 12).pValue).toBeCloseTo(0.03515625, 12);
		expect(mcnemarExact(12, 3).pValue).toBeCloseTo(0.03515625, 12);
	});

	it('caps the p-value at 1 (equal counts would give more)', () => {
		expect(mcnemarExact(5, 5).pValue).toBe(1);
		expect(mcnemarExact(0, 0)).toEqual({ onlyFirst: 0, onlySecond: 0, discordant: 0, pValue: 1 });
	});

	it('refuses counts that are not whole numbers', () => {
		expect(() => mcnemarExact(1.5, 2)).toThrow(
			'onlyFirst must be a whole number at least 0, got 1.5.',
		);
		expect(() => mcnemarExact(1, -2)).toThrow(/onlySecond/);
	});
});

describe('itemsNeeded and itemsNeededToReach', () => {
	it('±5 points at 95 % around ½: 381 items, the first n whose Wilson interval is that narrow', () => {
		const n = itemsNeeded(0.05);
		expect(n).toBe(381);
		const half = (k: number) => (wilsonInterval(k / 2, k).high - wilsonInterval(k / 2, k).low) / 2;
		expect(half(n)).toBeLessThanOrEqual(0.05);
		expect(half(n - 1)).toBeGreaterThan(0.05);
		// Close to the textbook z²/(4h²) with jStat's z.
		expect(Math.abs(n - z975() ** 2 / (4 * 0.05 ** 2))).toBeLessThan(5);
	});

	it('is the first n for other proportions, widths and levels', () => {
		for (const [h, p, level] of [
			[0.03, 0.9, 0.95],
			[0.1, 0.2, 0.9],
			[0.02, 0.5, 0.99],
		]) {
			const n = itemsNeeded(h, p, level);
			const half = (k: number) => {
				const i = wilsonInterval(p * k, k, level);
				return (i.high - i.low) / 2;
			};
			expect(half(n)).toBeLessThanOrEqual(h);
			expect(half(n - 1)).toBeGreaterThan(h);
		}
	});

	it('itemsNeededToReach: the first n whose Wilson lower bound at the observed rate reaches the target', () => {
		const n = itemsNeededToReach(0.9, 0.934) as number;
		expect(wilsonInterval(0.934 * n, n).low).toBeGreaterThanOrEqual(0.9);
		expect(wilsonInterval(0.934 * (n - 1), n - 1).low).toBeLessThan(0.9);
		expect(n).toBeGreaterThan(91);
	});

	it('itemsNeededToReach: never, when the rate does not exceed the target', () => {
		expect(itemsNeededToReach(0.9, 0.9)).toBeNull();
		expect(itemsNeededToReach(0.9, 0.8)).toBeNull();
		expect(itemsNeededToReach(0.9, 1)).toBeGreaterThan(0);
	});

	it('refuses a width outside (0, 1)', () => {
		expect(() => itemsNeeded(0)).toThrow(/halfWidth must be between 0 and 1/);
		expect(() => itemsNeeded(0.05, 1.2)).toThrow(/proportion must be between 0 and 1/);
	});
});

function z975(): number {
	return jStat.normal.inv(0.975, 0, 1);
}

describe('logGamma, betaCdf, betaQuantile (the Clopper–Pearson bounds)', () => {
	it('logGamma matches jStat over 0.01 … 1e6', () => {
		for (let x = 0.01; x < 1e6; x *= 1.37)
			close(logGamma(x), jStat.gammaln(x), 1e-12 * Math.max(1, Math.abs(jStat.gammaln(x))));
	});

	it("betaCdf matches jStat (ibeta) within jStat's own precision over shapes 0.5 to 1,000", () => {
		// jStat's continued fraction stops near 1e-8 (I_0.5(½, ½) = ½ exactly: jStat 0.50000002).
		for (const a of [0.5, 1, 2.5, 10, 97.3, 1000])
			for (const b of [0.5, 1, 3, 20, 400])
				for (const x of [1e-6, 0.001, 0.05, 0.3, 0.5, 0.77, 0.95, 0.999, 0.999999])
					close(betaCdf(x, a, b), jStat.ibeta(x, a, b), 5e-8);
		expect(betaCdf(0, 2, 3)).toBe(0);
		expect(betaCdf(1, 2, 3)).toBe(1);
	});

	it('betaCdf equals the closed forms (1e-12; 1e-10 at shape 50,000)', () => {
		for (const x of [1e-6, 0.01, 0.3, 0.5, 0.77, 0.999]) {
			close(betaCdf(x, 0.5, 0.5), (2 / Math.PI) * Math.asin(Math.sqrt(x)), 1e-12);
			for (const shape of [0.5, 3, 40, 1000]) {
				close(betaCdf(x, 1, shape), 1 - (1 - x) ** shape, 1e-12);
				close(betaCdf(x, shape, 1), x ** shape, 1e-12);
			}
		}
		// ln Γ of large shapes is a difference of large numbers: 1e-10 there.
		for (const shape of [0.5, 7, 500, 50000])
			close(betaCdf(0.5, shape, shape), 0.5, shape > 1000 ? 1e-10 : 1e-12);
	});

	it('betaQuantile inverts betaCdf, and matches jStat within its own precision', () => {
		for (const [a, b] of [
			[1, 40],
			[12, 1],
			[3.5, 0.5],
			[96, 5],
			[990.2, 10.8],
			[20000, 30],
		])
			for (const p of [0.025, 0.1, 0.5, 0.975]) {
				const q = betaQuantile(p, a, b);
				close(betaCdf(q, a, b), p, 1e-9);
				close(q, jStat.beta.inv(p, a, b), 1e-7);
			}
	});
});

describe('clopperPearson', () => {
	it('matches the beta quantiles (jStat) over a grid, fractional counts included', () => {
		for (const n of [1, 5, 12, 40.5, 200, 3000])
			for (const share of [0, 0.1, 0.5, 0.9, 0.97, 1]) {
				const x = n * share;
				const { low, high } = clopperPearson(x, n);
				close(low, x === 0 ? 0 : jStat.beta.inv(0.025, x, n - x + 1), 2e-7);
				close(high, x === n ? 1 : jStat.beta.inv(0.975, x + 1, n - x), 2e-7);
			}
	});

	it('gives the published exact bounds', () => {
		// 12 of 12 at 95 %: 0.025^(1/12) = 0.7354; 0 of 10: 1 − 0.025^(1/10) = 0.3085.
		close(clopperPearson(12, 12).low, 0.025 ** (1 / 12), 1e-10);
		close(clopperPearson(0, 10).high, 1 - 0.025 ** (1 / 10), 1e-10);
		expect(clopperPearson(0, 0)).toMatchObject({ value: null, low: 0, high: 1 });
		// Wider than Wilson's near 100 %, where Wilson holds less than its level with few items.
		expect(clopperPearson(19, 20).low).toBeLessThan(wilsonInterval(19, 20).low);
	});

	it('refuses nonsense', () => {
		expect(() => clopperPearson(3, 2)).toThrow(RangeError);
		expect(() => clopperPearson(1, 2, 1.5)).toThrow(RangeError);
	});
});

describe('weighedRate', () => {
	it('one stratum is Clopper–Pearson exactly', () => {
		const one = weighedRate([{ rows: 40, right: 37, population: 800, share: 0.05 }]);
		const exact = clopperPearson(37, 40);
		expect(one.value).toBeCloseTo(37 / 40, 12);
		close(one.low, exact.low, 1e-12);
		close(one.high, exact.high, 1e-12);
		expect(one.effectiveN).toBeCloseTo(40, 9);
	});

	it('the linearised variance and the effective size, written out by hand', () => {
		// Doubtful: 30 of 50 right, 100 items (π 1). Audited: 95 of 100 right at 10 % (1000 items).
		const strata = [
			{ rows: 50, right: 30, population: 100, share: 1 },
			{ rows: 100, right: 95, population: 1000, share: 0.1 },
		];
		const result = weighedRate(strata);
		const R = (100 * 0.6 + 1000 * 0.95) / 1100;
		const noise = (100 ** 2 * 0.6 * 0.4) / 50 + (1000 ** 2 * 0.95 * 0.05) / 100;
		const sizes = 100 * (0.6 - R) ** 2 + (1000 / 0.1) * (0.95 - R) ** 2;
		const V = (noise + sizes) / 1100 ** 2;
		const kish = 1100 ** 2 / (100 ** 2 / 50 + 1000 ** 2 / 100);
		expect(result.value).toBeCloseTo(R, 12);
		expect(result.variance).toBeCloseTo(V, 15);
		expect(result.effectiveN).toBeCloseTo(Math.min(kish, (R * (1 - R)) / V), 9);
		const exact = clopperPearson(R * result.effectiveN, result.effectiveN);
		expect(result.low).toBe(exact.low);
		expect(result.high).toBe(exact.high);
	});

	it('no miss anywhere: the width of the design size (Kish), not zero', () => {
		const result = weighedRate([
			{ rows: 20, right: 20, population: 20, share: 1 },
			{ rows: 20, right: 20, population: 400, share: 0.05 },
		]);
		expect(result.value).toBe(1);
		expect(result.high).toBe(1);
		const kish = 420 ** 2 / (20 + 400 ** 2 / 20);
		expect(result.effectiveN).toBeCloseTo(kish, 9);
		close(result.low, 0.025 ** (1 / kish), 1e-9);
	});

	it('a stratum with items and no reviewed row: no value', () => {
		expect(
			weighedRate([
				{ rows: 0, right: 0, population: 5, share: 1 },
				{ rows: 10, right: 9, population: 100, share: 0.1 },
			]),
		).toMatchObject({ value: null, low: 0, high: 1 });
		expect(() => weighedRate([{ rows: 1, right: 1, population: 1, share: 0 }])).toThrow(RangeError);
	});
});
