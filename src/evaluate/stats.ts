// How sure a figure is: the statistics behind every rate the evaluation prints, written once.
// Long because the formulas share their argument checks and the normal distribution's functions,
// and the tests compare them, one module, with the reference libraries.
// Pure, no dependency, no I/O. The tests compare each formula with jStat and simple-statistics.
//
// - wilsonInterval: the Wilson score interval of a proportion (any level, 95 % by default).
// - normalQuantile / normalCdf: the standard normal's inverse and distribution function.
// - twoProportionTest: recent rows against earlier rows (pooled z, two-sided p-value).
// - mcnemarExact: two versions on the same rows (exact binomial test on the discordant pairs).
// - logGamma / betaCdf / betaQuantile / clopperPearson: the exact (Clopper–Pearson) interval.
// - weighedRate: a rate over sampled strata (the accuracy over all traffic): linearised variance,
//   Clopper–Pearson on an effective sample size (Korn & Graubard).
// - itemsNeeded / itemsNeededToReach: how many items a figure needs to be this sure.
//
// Bad input (a negative count, more successes than items, a level outside (0, 1)) throws a
// RangeError naming the argument: a figure computed from nonsense would look as sure as any other.

/** A proportion with its confidence interval. */
export interface ProportionInterval {
	/** successes / n; null when n is 0 (nothing to divide by). */
	value: number | null;
	/** Lower bound of the interval (0 when n is 0: nothing is known). */
	low: number;
	/** Upper bound of the interval (1 when n is 0). */
	high: number;
	/** Items the proportion is over. */
	n: number;
	successes: number;
	/** The interval's confidence level, e.g. 0.95. */
	level: number;
}

export const DEFAULT_LEVEL = 0.95;

function checkLevel(level: number): void {
	if (!(typeof level === 'number' && level > 0 && level < 1)) {
		throw new RangeError(`level must be a number between 0 and 1 (0.95 for 95 %), got ${level}.`);
	}
}

function checkCount(name: string, value: number): void {
	if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
		throw new RangeError(`${name} must be a finite number at least 0, got ${value}.`);
	}
}

function checkCounts(successes: number, n: number, what = ''): void {
	checkCount(`${what}successes`, successes);
	checkCount(`${what}n`, n);
	if (successes > n) {
		throw new RangeError(`${what}successes (${successes}) cannot exceed ${what}n (${n}).`);
	}
}

/** The two-sided critical value of a level: 1.959964… for 0.95. */
export function zFor(level: number = DEFAULT_LEVEL): number {
	checkLevel(level);
	return normalQuantile(1 - (1 - level) / 2);
}

/**
 * The standard normal distribution function Φ(x), by W. J. Cody's rational approximations of
 * erfc as Hart (1968) and West (2005, "Better approximations to cumulative normal functions")
 * give them: about 1e-15 absolute, and within 1e-8 relative in the far tails (Φ(−30) ≈ 4.9e-198),
 * where 1 + erf(x) would give 0: a p-value of a large difference stays a number.
 */
export function normalCdf(x: number): number {
	if (Number.isNaN(x)) return NaN;
	const a = Math.abs(x);
	// Past |x| ≈ 38.6 the exponential underflows to 0, and so does the tail: no cut-off needed.
	const e = Math.exp((-a * a) / 2);
	let tail: number;
	if (a < 7.07106781186547) {
		let num = 3.52624965998911e-2 * a + 0.700383064443688;
		num = num * a + 6.37396220353165;
		num = num * a + 33.912866078383;
		num = num * a + 112.079291497871;
		num = num * a + 221.213596169931;
		num = num * a + 220.206867912376;
		let den = 8.83883476483184e-2 * a + 1.75566716318264;
		den = den * a + 16.064177579207;
		den = den * a + 86.7807322029461;
		den = den * a + 296.564248779674;
		den = den * a + 637.333633378831;
		den = den * a + 793.826512519948;
		den = den * a + 440.413735824752;
		tail = (e * num) / den;
	} else {
		let c = a + 0.65;
		c = a + 4 / c;
		c = a + 3 / c;
		c = a + 2 / c;
		c = a + 1 / c;
		tail = e / c / 2.506628274631;
	}
	return x > 0 ? 1 - tail : tail;
}

// Acklam's rational approximation of the normal quantile (relative error below 1.15e-9), then one
// Halley step on Φ above, which brings it to the precision of Φ.
const A = [
	-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
	-3.066479806614716e1, 2.506628277459239,
];
const B = [
	-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
	-1.328068155288572e1,
];
const C = [
	-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
	4.374664141464968, 2.938163982698783,
];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

/**
 * The standard normal quantile Φ⁻¹(p): the x with Φ(x) = p. −Infinity at 0, Infinity at 1; a p
 * outside [0, 1] throws.
 */
export function normalQuantile(p: number): number {
	if (!(typeof p === 'number' && p >= 0 && p <= 1)) {
		throw new RangeError(`p must be a probability between 0 and 1, got ${p}.`);
	}
	if (p === 0) return -Infinity;
	if (p === 1) return Infinity;
	let x: number;
	if (p < P_LOW) {
		const q = Math.sqrt(-2 * Math.log(p));
		x =
			(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
			((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
	} else if (p <= 1 - P_LOW) {
		const q = p - 0.5;
		const r = q * q;
		x =
			((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) /
			(((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1);
	} else {
		const q = Math.sqrt(-2 * Math.log(1 - p));
		x =
			-(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
			((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
	}
	// Halley refinement. In the upper tail, work on the lower tail's error (1 − p loses digits).
	const error = p > 0.5 ? 1 - p - normalCdf(-x) : normalCdf(x) - p;
	const u = error * Math.sqrt(2 * Math.PI) * Math.exp((x * x) / 2);
	const refined = x - u / (1 + (x * u) / 2);
	return Number.isFinite(refined) ? refined : x;
}

/** The Wilson interval's bounds for possibly non-integer counts (the planning functions need that). */
function wilsonBounds(successes: number, n: number, z: number): { low: number; high: number } {
	if (n === 0) return { low: 0, high: 1 };
	const p = successes / n;
	const z2 = z * z;
	const denominator = 1 + z2 / n;
	const centre = (p + z2 / (2 * n)) / denominator;
	const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
	// At 0 or n successes the bound on that side is exactly 0 or 1 (float noise would leave 1e-17).
	return {
		low: successes === 0 ? 0 : Math.max(0, centre - half),
		high: successes === n ? 1 : Math.min(1, centre + half),
	};
}

/**
 * The Wilson score interval of `successes` out of `n` at `level` (default 95 %): the proportions
 * a score test at that level would not reject. Unlike p ± z·√(p(1−p)/n) it stays inside [0, 1],
 * is not zero-wide at 0/n or n/n (0/10 gives 0–27.8 %) and keeps close to its level with few
 * items. n = 0 gives value null and the whole range 0–1.
 */
export function wilsonInterval(
	successes: number,
	n: number,
	level: number = DEFAULT_LEVEL,
): ProportionInterval {
	checkCounts(successes, n);
	const { low, high } = wilsonBounds(successes, n, zFor(level));
	return { value: n > 0 ? successes / n : null, low, high, n, successes, level };
}

/** A count of successes out of n, as the tests below take them. */
export interface ProportionCount {
	successes: number;
	n: number;
}

export interface TwoProportionTest {
	recent: ProportionInterval;
	earlier: ProportionInterval;
	/** recent − earlier; null when either has no item. */
	difference: number | null;
	/** (p_recent − p_earlier) / √(p̄(1−p̄)(1/n_recent + 1/n_earlier)), p̄ pooled; null when either has no item. */
	z: number | null;
	/** Two-sided: the chance of a difference at least this large were both rates the same; null when either has no item. */
	pValue: number | null;
}

/**
 * Two rates from different items (a recent window against the earlier rows): the pooled
 * two-proportion z test, two-sided. Equivalent to Pearson's chi-square on the 2×2 table without
 * continuity correction (z² is that statistic). When both rates are 0 or both 1 the pooled
 * variance is 0 and there is no difference: z 0, p-value 1. An empty side gives nulls.
 */
export function twoProportionTest(
	recent: ProportionCount,
	earlier: ProportionCount,
	level: number = DEFAULT_LEVEL,
): TwoProportionTest {
	checkCounts(recent.successes, recent.n, 'recent.');
	checkCounts(earlier.successes, earlier.n, 'earlier.');
	const out: TwoProportionTest = {
		recent: wilsonInterval(recent.successes, recent.n, level),
		earlier: wilsonInterval(earlier.successes, earlier.n, level),
		difference: null,
		z: null,
		pValue: null,
	};
	if (recent.n === 0 || earlier.n === 0) return out;
	const p1 = recent.successes / recent.n;
	const p2 = earlier.successes / earlier.n;
	const pooled = (recent.successes + earlier.successes) / (recent.n + earlier.n);
	const se = Math.sqrt(pooled * (1 - pooled) * (1 / recent.n + 1 / earlier.n));
	out.difference = p1 - p2;
	if (se === 0) {
		out.z = 0;
		out.pValue = 1;
		return out;
	}
	const z = (p1 - p2) / se;
	out.z = z;
	out.pValue = Math.min(1, 2 * normalCdf(-Math.abs(z)));
	return out;
}

export interface McNemarTest {
	/** Pairs where only the first version was right. */
	onlyFirst: number;
	/** Pairs where only the second version was right. */
	onlySecond: number;
	/** Discordant pairs: onlyFirst + onlySecond. */
	discordant: number;
	/** Two-sided exact p-value: 2 · P(X ≤ min) for X ~ Binomial(discordant, 1/2), at most 1; 1 with no discordant pair. */
	pValue: number;
}

/**
 * P(X ≤ k) for X ~ Binomial(n, p), summed in log space so that n in the thousands neither
 * overflows nor underflows. Integers n ≥ 0, 0 ≤ p ≤ 1.
 */
export function binomialCdf(k: number, n: number, p: number): number {
	if (!Number.isInteger(n) || n < 0)
		throw new RangeError(`n must be a whole number at least 0, got ${n}.`);
	if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be between 0 and 1, got ${p}.`);
	if (k < 0) return 0;
	if (k >= n) return 1;
	const top = Math.floor(k);
	if (p === 0) return 1;
	if (p === 1) return 0;
	const logP = Math.log(p);
	const logQ = Math.log1p(-p);
	const terms: number[] = [];
	let logC = 0;
	for (let i = 0; i <= top; i += 1) {
		if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
		terms.push(logC + i * logP + (n - i) * logQ);
	}
	const max = Math.max(...terms);
	const sum = terms.reduce((acc, t) => acc + Math.exp(t - max), 0);
	return Math.min(1, Math.exp(max) * sum);
}

/**
 * McNemar's exact test for paired outcomes (two versions answering the same rows): only the
 * discordant pairs tell the versions apart; under "no difference" each is equally likely to favour
 * either version, so the smaller count is Binomial(b + c, 1/2). Two-sided p-value = 2·P(X ≤ min(b, c)),
 * capped at 1. Counts must be whole numbers.
 */
export function mcnemarExact(onlyFirst: number, onlySecond: number): McNemarTest {
	for (const [name, value] of [
		['onlyFirst', onlyFirst],
		['onlySecond', onlySecond],
	] as const) {
		if (!Number.isInteger(value) || value < 0) {
			throw new RangeError(`${name} must be a whole number at least 0, got ${value}.`);
		}
	}
	const discordant = onlyFirst + onlySecond;
	const pValue =
		discordant === 0
			? 1
			: Math.min(1, 2 * binomialCdf(Math.min(onlyFirst, onlySecond), discordant, 0.5));
	return { onlyFirst, onlySecond, discordant, pValue };
}

/** The Wilson interval's half-width (high − low)/2 at a proportion p over n items (n may be fractional). */
function wilsonHalfWidth(p: number, n: number, z: number): number {
	const { low, high } = wilsonBounds(p * n, n, z);
	return (high - low) / 2;
}

function checkProportion(name: string, value: number): void {
	if (!(typeof value === 'number' && value >= 0 && value <= 1)) {
		throw new RangeError(`${name} must be between 0 and 1, got ${value}.`);
	}
}

/**
 * Items needed for a Wilson interval no wider than ± `halfWidth` around `proportion` (default ½,
 * the widest case) at `level`: the smallest whole n. ±5 points at 95 % around ½ needs 381 (the
 * textbook z²/(4h²) gives 385: Wilson pulls the interval in a little).
 */
export function itemsNeeded(
	halfWidth: number,
	proportion = 0.5,
	level: number = DEFAULT_LEVEL,
): number {
	if (!(typeof halfWidth === 'number' && halfWidth > 0 && halfWidth < 1)) {
		throw new RangeError(
			`halfWidth must be between 0 and 1 (0.05 for ±5 points), got ${halfWidth}.`,
		);
	}
	checkProportion('proportion', proportion);
	const z = zFor(level);
	// Half-width falls as n grows: double to bracket, then bisect on whole numbers.
	let high = 1;
	while (wilsonHalfWidth(proportion, high, z) > halfWidth) high *= 2;
	let low = Math.floor(high / 2);
	while (high - low > 1) {
		const mid = Math.floor((low + high) / 2);
		if (wilsonHalfWidth(proportion, mid, z) > halfWidth) low = mid;
		else high = mid;
	}
	return high;
}

/**
 * Items needed before a rate observed at `proportion` has a Wilson lower bound at or above
 * `target` (at `level`): the smallest whole n, or null when it never can (proportion at or
 * below the target). How "about M needed" is worked out for a recommended setting.
 */
export function itemsNeededToReach(
	target: number,
	proportion: number,
	level: number = DEFAULT_LEVEL,
): number | null {
	checkProportion('target', target);
	checkProportion('proportion', proportion);
	if (proportion <= target) return null;
	const z = zFor(level);
	const reaches = (n: number) => wilsonBounds(proportion * n, n, z).low >= target;
	let high = 1;
	while (!reaches(high)) high *= 2;
	let low = Math.floor(high / 2);
	while (high - low > 1) {
		const mid = Math.floor((low + high) / 2);
		if (reaches(mid)) high = mid;
		else low = mid;
	}
	return high;
}

/** One stratum's 2×2 table: the recent rows and the earlier rows, each `successes` right of `n`. */
export interface StratumTable {
	recent: ProportionCount;
	earlier: ProportionCount;
}

export interface StratifiedTest {
	/** Σ recent successes over the strata, and its mean and variance given every table's margins. */
	observed: number;
	expected: number;
	variance: number;
	/**
	 * The Cochran–Mantel–Haenszel statistic with continuity correction, (|S − E| − ½)² / V, as
	 * R's mantelhaen.test(correct = TRUE) gives it; null when V is 0 (no stratum can tell).
	 */
	chiSquare: number | null;
	/** One-sided for a drop: P(S ≤ observed) with no change in any stratum; 1 when V is 0. */
	pLower: number;
	/** Whether pLower is exact (the margins' hypergeometric laws convolved), else normal. */
	exact: boolean;
}

/** Convolutions past this many products use the normal approximation (then very close). */
const EXACT_WORK = 4_000_000;

/**
 * The law of a stratum's recent successes given its margins (hypergeometric): the first value
 * it takes and the probability of each, from the ratio of successive terms (no factorial).
 */
function hypergeometricLaw(table: StratumTable): { from: number; probabilities: number[] } {
	const n1 = table.recent.n;
	const right = table.recent.successes + table.earlier.successes;
	const wrong = n1 + table.earlier.n - right;
	const from = Math.max(0, n1 - wrong);
	const to = Math.min(n1, right);
	const logs = [0];
	for (let a = from; a < to; a++)
		logs.push(
			logs[logs.length - 1] + Math.log(((n1 - a) * (right - a)) / ((a + 1) * (wrong - n1 + a + 1))),
		);
	// A loop, not Math.max(...logs): a law over many thousand values would overflow the call stack.
	const top = logs.reduce((most, value) => Math.max(most, value), -Infinity);
	const weights = logs.map((value) => Math.exp(value - top));
	const sum = weights.reduce((total, value) => total + value, 0);
	return { from, probabilities: weights.map((value) => value / sum) };
}

/** P(Σ ≤ observed) of independent laws, convolved; null when that is more work than EXACT_WORK. */
function convolvedLower(
	laws: ReadonlyArray<{ from: number; probabilities: number[] }>,
	observed: number,
): number | null {
	let work = 0;
	let length = 1;
	for (const law of laws) {
		work += length * law.probabilities.length;
		length += law.probabilities.length - 1;
	}
	if (work > EXACT_WORK) return null;
	let from = 0;
	let total = [1];
	for (const law of laws) {
		const next = new Array<number>(total.length + law.probabilities.length - 1).fill(0);
		total.forEach((p, i) => law.probabilities.forEach((q, j) => (next[i + j] += p * q)));
		total = next;
		from += law.from;
	}
	let lower = 0;
	for (let at = 0; at < total.length && from + at <= observed + 1e-9; at++) lower += total[at];
	return Math.min(1, lower);
}

/**
 * Recent rows against earlier ones, stratum by stratum (doubtful with doubtful, audited with
 * audited …), so a change in the mix of strata alone is no evidence: the Cochran–Mantel–Haenszel
 * test of no change in any stratum. S = Σ recent successes; given each table's margins, each
 * stratum's part is hypergeometric with mean n₁m₁/N and variance n₁n₂m₁m₂/(N²(N−1)). The one-sided
 * p-value for a drop is exact (the conditional test: those laws convolved; with one stratum,
 * Fisher's exact test) up to a few million products, else Φ((S − E + ½)/√V). Whole counts.
 */
export function cochranMantelHaenszel(tables: readonly StratumTable[]): StratifiedTest {
	let observed = 0;
	let expected = 0;
	let variance = 0;
	const laws: Array<{ from: number; probabilities: number[] }> = [];
	tables.forEach((table, i) => {
		checkCounts(table.recent.successes, table.recent.n, `tables[${i}].recent.`);
		checkCounts(table.earlier.successes, table.earlier.n, `tables[${i}].earlier.`);
		const n1 = table.recent.n;
		const all = n1 + table.earlier.n;
		const right = table.recent.successes + table.earlier.successes;
		observed += table.recent.successes;
		expected += all > 0 ? (n1 * right) / all : 0;
		if (all < 2) return;
		variance += (n1 * table.earlier.n * right * (all - right)) / (all * all * (all - 1));
		laws.push(hypergeometricLaw(table));
	});
	const delta = observed - expected;
	if (!(variance > 0))
		return { observed, expected, variance, chiSquare: null, pLower: 1, exact: true };
	const correction = Math.abs(delta) >= 0.5 ? 0.5 : 0;
	const chiSquare = (Math.abs(delta) - correction) ** 2 / variance;
	const exact = convolvedLower(laws, observed);
	const pLower = exact ?? Math.min(1, normalCdf((delta + 0.5) / Math.sqrt(variance)));
	return { observed, expected, variance, chiSquare, pLower, exact: exact !== null };
}

export interface StratifiedDifference {
	/** The recent rows' rate (every stratum compared, as counted). */
	recent: { value: number; low: number; high: number };
	/** The earlier rows' rate weighed to the recent rows' mix: Σ w_h p_h(earlier). */
	earlier: { value: number; low: number; high: number };
	/** recent − earlier, with its interval. */
	value: number;
	low: number;
	high: number;
	/** Each stratum's weight: its share of the recent rows. */
	weights: number[];
}

/**
 * Recent rows against earlier ones on the same mix: the earlier rows' rate of each stratum weighed
 * by the stratum's share of the recent rows (direct standardisation), so D = p_recent − Σ w_h p_h.
 * Its interval is MOVER (Zou & Donner 2008) on Wilson intervals: the recent rate's Wilson bounds,
 * the weighted sum's bounds Σ w_h p_h ∓ √Σ w_h²(p_h − bound_h)², combined as Newcombe's hybrid
 * score interval combines two (with one stratum it is that interval). Every table needs rows on
 * both sides; at least one table.
 */
export function stratifiedDifference(
	tables: readonly StratumTable[],
	level: number = DEFAULT_LEVEL,
): StratifiedDifference {
	if (!tables.length || tables.some((table) => !table.recent.n || !table.earlier.n))
		throw new RangeError('every stratum needs recent and earlier rows, and one stratum at least.');
	const recentN = tables.reduce((sum, table) => sum + table.recent.n, 0);
	const recentRight = tables.reduce((sum, table) => sum + table.recent.successes, 0);
	const recent = wilsonInterval(recentRight, recentN, level);
	const weights = tables.map((table) => table.recent.n / recentN);
	let value = 0;
	let below = 0;
	let above = 0;
	tables.forEach((table, h) => {
		const rate = wilsonInterval(table.earlier.successes, table.earlier.n, level);
		value += weights[h] * rate.value!;
		below += (weights[h] * (rate.value! - rate.low)) ** 2;
		above += (weights[h] * (rate.high - rate.value!)) ** 2;
	});
	const earlier = { value, low: value - Math.sqrt(below), high: value + Math.sqrt(above) };
	const r = recent.value!;
	const d = r - value;
	return {
		recent: { value: r, low: recent.low, high: recent.high },
		earlier,
		value: d,
		low: d - Math.hypot(r - recent.low, earlier.high - value),
		high: d + Math.hypot(recent.high - r, value - earlier.low),
		weights,
	};
}

/** Lanczos' coefficients for g = 671/128, 14 terms (Numerical Recipes, 3rd ed., §6.1). */
const GAMMA_TERMS = [
	57.15623566586292, -59.59796035547549, 14.136097974741746, -0.4919138160976202,
	3.399464998481189e-5, 4.652362892704858e-5, -9.837447530487956e-5, 1.580887032249125e-4,
	-2.1026444172410488e-4, 2.1743961811521265e-4, -1.643181065367639e-4, 8.441822398385275e-5,
	-2.6190838401581408e-5, 3.6899182659531625e-6,
];

/** ln Γ(x) for x > 0, by Lanczos' approximation: about 1e-15 relative. */
export function logGamma(x: number): number {
	if (!(x > 0)) throw new RangeError(`x must be above 0, got ${x}.`);
	let y = x;
	const t = x + 5.2421875;
	let series = 0.9999999999999971;
	for (const term of GAMMA_TERMS) series += term / ++y;
	return (x + 0.5) * Math.log(t) - t + Math.log((2.5066282746310007 * series) / x);
}

/** The continued fraction of the incomplete beta function (modified Lentz), for x < (a+1)/(a+b+2). */
function betaFraction(x: number, a: number, b: number): number {
	const tiny = 1e-300;
	let c = 1;
	let d = 1 - ((a + b) * x) / (a + 1);
	d = Math.abs(d) < tiny ? 1 / tiny : 1 / d;
	let h = d;
	for (let m = 1; m <= 100000; m++) {
		const m2 = 2 * m;
		for (const term of [
			(m * (b - m) * x) / ((a + m2 - 1) * (a + m2)),
			(-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1)),
		]) {
			d = 1 + term * d;
			d = Math.abs(d) < tiny ? 1 / tiny : 1 / d;
			c = 1 + term / c;
			c = Math.abs(c) < tiny ? tiny : c;
			h *= d * c;
		}
		if (Math.abs(d * c - 1) < 1e-15) break;
	}
	return h;
}

/**
 * The regularised incomplete beta function I_x(a, b) = P(X ≤ x) for X ~ Beta(a, b), a, b > 0:
 * the continued fraction of Numerical Recipes (§6.4), on the side where it converges fast.
 */
export function betaCdf(x: number, a: number, b: number): number {
	if (!(a > 0 && b > 0)) throw new RangeError(`a and b must be above 0, got ${a} and ${b}.`);
	if (!(x > 0)) return 0;
	if (x >= 1) return 1;
	const front = Math.exp(
		logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x),
	);
	return x < (a + 1) / (a + b + 2)
		? (front * betaFraction(x, a, b)) / a
		: 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** The p-quantile of Beta(a, b): bisection on betaCdf to 1e-12 (the calls are few). */
export function betaQuantile(p: number, a: number, b: number): number {
	checkProportion('p', p);
	if (p === 0) return 0;
	if (p === 1) return 1;
	let low = 0;
	let high = 1;
	for (let step = 0; step < 200 && high - low > 1e-13; step++) {
		const mid = (low + high) / 2;
		if (betaCdf(mid, a, b) < p) low = mid;
		else high = mid;
	}
	return (low + high) / 2;
}

/**
 * The Clopper–Pearson ("exact") interval of `successes` out of `n`: the Beta(x, n − x + 1) and
 * Beta(x + 1, n − x) quantiles at (1 − level)/2 and (1 + level)/2; 0 and 1 at the ends. It holds
 * its level for every n and every true rate (at the price of some width), where Wilson's dips
 * under it near 0 and 1 with few items. Counts may be fractional (an effective sample size).
 */
export function clopperPearson(
	successes: number,
	n: number,
	level: number = DEFAULT_LEVEL,
): ProportionInterval {
	checkCounts(successes, n);
	checkLevel(level);
	const value = n > 0 ? successes / n : null;
	if (n === 0) return { value, low: 0, high: 1, n, successes, level };
	const tail = (1 - level) / 2;
	const low = successes <= 0 ? 0 : betaQuantile(tail, successes, n - successes + 1);
	const high = successes >= n ? 1 : betaQuantile(1 - tail, successes + 1, n - successes);
	return { value, low, high, n, successes, level };
}

/** One stratum of a weighed sample: its reviewed rows, the right ones, the items it stands for. */
export interface SampledStratum {
	/** Rows reviewed (the sample) and right among them. */
	rows: number;
	right: number;
	/** The items the stratum stands for, N_h (known, or estimated from a share). */
	population: number;
	/**
	 * The chance an item of the traffic is counted in `population`: 1 when N_h is a count (the
	 * doubtful items), the Audit Share when it is estimated (rows picked / share).
	 */
	share: number;
}

/** A weighed rate with its variance and the interval of the design-effect method below. */
export interface WeighedRate {
	/** Σ N_h p_h / Σ N_h; null when a stratum with items has no reviewed row. */
	value: number | null;
	low: number;
	high: number;
	/** The linearised variance of the value. */
	variance: number;
	/** The effective sample size the interval is taken on. */
	effectiveN: number;
	/** Rows over all strata. */
	n: number;
	level: number;
}

/**
 * A rate over strata weighed by the items each stands for, R = Σ N_h p_h / Σ N_h, and its interval:
 * Korn & Graubard's (1998) Clopper–Pearson on an effective sample size.
 *
 * Variance (Taylor linearisation of the ratio Σ w y / Σ w, each item of the traffic sampled
 * independently: a confident item picked at the share π_h, a doubtful item reviewed at n_h / N_h):
 *   V = [ Σ_h N_h² p_h(1 − p_h)/n_h  +  Σ_h (N_h / π_h)(p_h − R)² ] / (Σ N_h)²
 * the first sum the rows' own noise, the second the strata's sizes (N_h / π_h: a size estimated
 * from a share varies as its picks do; a doubtful count is known, π = 1, but varies between
 * periods). Effective n = R(1 − R)/V, capped at Kish's n = (Σ N_h)² / Σ (N_h²/n_h) (the design's
 * own size: a stratum with no miss says nothing of the noise it did not show), and the interval is
 * Clopper–Pearson at R·n_eff successes of n_eff. One stratum gives Clopper–Pearson exactly.
 */
export function weighedRate(
	strata: readonly SampledStratum[],
	level: number = DEFAULT_LEVEL,
): WeighedRate {
	checkLevel(level);
	strata.forEach((s, i) => {
		checkCounts(s.right, s.rows, `strata[${i}].`);
		checkCount(`strata[${i}].population`, s.population);
		if (!(s.share > 0 && s.share <= 1))
			throw new RangeError(`strata[${i}].share must be above 0 and at most 1, got ${s.share}.`);
	});
	const n = strata.reduce((sum, s) => sum + s.rows, 0);
	const used = strata.filter((s) => s.population > 0);
	const total = used.reduce((sum, s) => sum + s.population, 0);
	const none = { value: null, low: 0, high: 1, variance: NaN, effectiveN: 0, n, level };
	if (!(total > 0) || used.some((s) => s.rows === 0)) return none;
	const value = used.reduce((sum, s) => sum + s.population * (s.right / s.rows), 0) / total;
	let noise = 0;
	let sizes = 0;
	let kish = 0;
	for (const s of used) {
		const p = s.right / s.rows;
		noise += (s.population ** 2 * p * (1 - p)) / s.rows;
		sizes += (s.population / s.share) * (p - value) ** 2;
		kish += s.population ** 2 / s.rows;
	}
	const variance = (noise + sizes) / total ** 2;
	const kishN = total ** 2 / kish;
	const spread = value * (1 - value);
	const effectiveN = variance > 0 && spread > 0 ? Math.min(kishN, spread / variance) : kishN;
	const interval = clopperPearson(value * effectiveN, effectiveN, level);
	return { value, low: interval.low, high: interval.high, variance, effectiveN, n, level };
}
