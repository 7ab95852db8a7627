// The evidence behind the watch's alert: a drop's 95 % interval and one-sided p-value, tested at the
// false-alarm rate the user sets (recent rows against earlier ones; the same rows on two versions).
// Pure; the formulas are stats.ts's. Long because both tests share one rule for the alert and its
// words (evidenceOf), and the recent test also says which kinds of rows it compared and left out.
import {
	binomialCdf,
	cochranMantelHaenszel,
	itemsNeeded,
	normalCdf,
	normalQuantile,
	stratifiedDifference,
	wilsonInterval,
	type ProportionCount,
	type ProportionInterval,
} from './stats';
import { ownValue } from '../contract/own';

/** A change in points with its sign: "+1.5", "−2.0", "±0.0" (drift.ts says points the same way). */

export const signed = (value: number): string =>
	value > 0 ? `+${value.toFixed(1)}` : value < 0 ? `−${Math.abs(value).toFixed(1)}` : '±0.0';

/**
 * The evidence behind an alert: a change with its 95 % interval and a one-sided p-value for a
 * drop, tested at the false-alarm rate the user sets. `recent`: rows reviewed within the window
 * against the rows before (two-proportion test, different rows); `version`: the same rows on the
 * old and the live version (paired, McNemar's mid-p test).
 */
export interface Evidence {
	kind: 'recent' | 'version';
	/** Accuracy before (earlier rows, or the old version) and now (recent rows, or the live version). */
	before: ProportionInterval;
	after: ProportionInterval;
	/** after − before in points, with its 95 % interval; null when a side has no row. */
	points: number | null;
	low: number | null;
	high: number | null;
	/** One-sided: the chance of a drop at least this large with no real change; null: not testable. */
	p_value: number | null;
	false_alarm_rate: number;
	/** Points the drop must also reach (the Drop Alert Threshold). */
	threshold: number;
	/** Rows the test stands on (recent rows; the paired rows). */
	rows: number;
	/** About how many rows a drop of the threshold needs to be told (at that rate, 4 times in 5). */
	needed: number;
	too_few: boolean;
	/** The test passed at the false-alarm rate AND the drop reaches the threshold. */
	alert: boolean;
	/** The evidence in words, one line. */
	words: string;
	/**
	 * Recent rows only: the strata compared (rows on both sides), each with its counts and its
	 * weight (its share of the recent rows), and the rows of strata with one side only, left out.
	 */
	strata?: Array<RecentStratum & { weight: number }>;
	left_out?: Array<{ stratum: string; recent: number; earlier: number }>;
}

/** The rows of one kind (doubtful, audited, loaded), recent and earlier: right of n on each side. */
export interface RecentStratum {
	stratum: string;
	recent: ProportionCount;
	earlier: ProportionCount;
}

export interface EvidenceOptions {
	/** The false-alarm rate of one run, 0.01 for 1 %. */
	falseAlarmRate: number;
	/** Points a drop must also reach (0: the test alone). */
	threshold: number;
}

/** Power the "about M needed" aims at: a drop of the threshold told 4 times in 5. */
const POWER = 0.8;

const pct = (value: number) => `${(Math.round(value * 1000) / 10).toFixed(1)}%`;
const pointsText = (value: number) => signed(Math.round(value * 10) / 10);

/** A drop in points as the words show it (one decimal); 0 when accuracy rose. */
export const shownDrop = (points: number): number => Math.max(0, Math.round(-points * 10) / 10);

/** A change said with its direction, so a rise never reads like a drop: "down 15.3 points". */
export function directionWords(points: number): string {
	const shown = Math.round(Math.abs(points) * 10) / 10;
	if (shown === 0) return 'accuracy unchanged';
	return `accuracy ${points < 0 ? 'down' : 'up'} ${shown.toFixed(1)} points`;
}

/** A one-sided p-value in words a team reads: how often chance alone would show this. */
export function pValueWords(pValue: number): string {
	if (pValue >= 0.2) return `chance alone shows a drop this large often (p = ${pValue.toFixed(2)})`;
	const times = Math.round(1 / pValue);
	const shown =
		times >= 10_000 ? 'fewer than 1 in 10,000' : `about 1 in ${times.toLocaleString('en-US')}`;
	const exact = pValue < 0.0001 ? '< 0.0001' : `= ${pValue.toPrecision(2)}`;
	return `chance alone shows a drop this large in ${shown} quiet runs (p ${exact})`;
}

/** Rows (per side) a drop of `threshold` points from accuracy `base` needs to be told. */
function rowsNeeded(base: number | null, threshold: number, falseAlarmRate: number): number {
	const drop = Math.max(threshold, 1) / 100;
	const z = normalQuantile(1 - falseAlarmRate) + normalQuantile(POWER);
	// itemsNeeded at the level whose two-sided critical value is z: half-width = the drop.
	const proportion = Math.min(0.99, Math.max(0.01, base ?? 0.5));
	return itemsNeeded(Math.min(drop, 0.99), proportion, 2 * normalCdf(z) - 1);
}

function checkRate(falseAlarmRate: number): void {
	if (!(falseAlarmRate > 0 && falseAlarmRate < 0.5))
		throw new RangeError(
			`The false-alarm rate must be above 0 and below 50 % (1 for 1 %), got ${falseAlarmRate * 100} %.`,
		);
}

function evidenceOf(
	kind: Evidence['kind'],
	before: ProportionInterval,
	after: ProportionInterval,
	change: { points: number; low: number; high: number } | null,
	pValue: number | null,
	rows: number,
	options: EvidenceOptions,
	said?: string,
): Evidence {
	const needed = rowsNeeded(before.value, options.threshold, options.falseAlarmRate);
	const tested = pValue !== null && pValue < options.falseAlarmRate;
	// The threshold is held against the drop the words show (one decimal), the one number a team reads.
	const alert = tested && change !== null && shownDrop(change.points) >= options.threshold;
	// Too few: no alert, and the interval still holds a drop of the threshold (it cannot be ruled out).
	const tooFew =
		!alert && rows < needed && (change === null || change.low <= -Math.max(options.threshold, 1));
	const what =
		kind === 'recent'
			? `Recent rows: accuracy ${after.value === null ? '–' : pct(after.value)} on ${count(after.n)} against ${before.value === null ? '–' : pct(before.value)} on ${count(before.n)} before`
			: `Same ${rows} rows on the live version: accuracy ${after.value === null ? '–' : pct(after.value)} against ${before.value === null ? '–' : pct(before.value)} on the old one`;
	const parts = [said ?? what];
	if (change)
		parts.push(
			`${directionWords(change.points)} (95 % interval ${pointsText(change.low)} to ${pointsText(change.high)})`,
		);
	if (pValue !== null && change && change.points < 0) parts.push(pValueWords(pValue));
	let verdict: string;
	if (alert)
		verdict = `Alert: a drop beyond chance at the ${options.falseAlarmRate * 100} % false-alarm rate${options.threshold > 0 ? ` and at least ${options.threshold} points` : ''}.`;
	else if (tooFew)
		verdict = `Too few rows to tell (${rows} ${kind === 'recent' ? 'recent' : 'paired'}; about ${needed} needed).`;
	else if (tested)
		verdict = `A drop beyond chance, but under the ${options.threshold}-point threshold: no alert.`;
	else verdict = 'No drop beyond chance.';
	return {
		kind,
		before,
		after,
		points: change ? change.points : null,
		low: change ? change.low : null,
		high: change ? change.high : null,
		p_value: pValue,
		false_alarm_rate: options.falseAlarmRate,
		threshold: options.threshold,
		rows,
		needed,
		too_few: tooFew,
		alert,
		words: `${parts.join(': ')}. ${verdict}`,
	};
}

const count = (value: number) => value.toLocaleString('en-US');

const toPoints = (value: number) => Math.round(value * 10000) / 100;

const plural = (value: number, one: string) => `${count(value)} ${one}${value === 1 ? '' : 's'}`;

/** Which kinds were compared, and the rows left out (no row of their kind on the other side). */
function recentWhat(
	compared: readonly RecentStratum[],
	leftOut: NonNullable<Evidence['left_out']>,
	after: ProportionInterval,
	before: ProportionInterval,
): string {
	const out = leftOut.flatMap((each) => [
		...(each.recent ? [`${count(each.recent)} recent ${each.stratum}`] : []),
		...(each.earlier ? [`${count(each.earlier)} earlier ${each.stratum}`] : []),
	]);
	const outWords = out.length
		? `left out, with no row of their kind on the other side: ${out.join(', ')}`
		: '';
	if (!compared.length)
		return `Recent rows: none to compare like with like (${outWords || 'no row'})`;
	const kinds =
		compared.length > 1
			? `${compared.map((each) => each.stratum).join(', ')} rows, each kind against its own earlier rows, weighed to the recent mix`
			: out.length || compared[0].stratum !== LOADED
				? `${compared[0].stratum} rows only`
				: '';
	const notes = [kinds, outWords].filter(Boolean).join('; ');
	return `Recent rows: accuracy ${pct(after.value!)} on ${count(after.n)} against ${pct(before.value!)} on ${plural(before.n, 'row')} before${notes ? ` (${notes})` : ''}`;
}

/** The stratum of rows a team loaded (no `stratum`): compared with loaded rows only. */
export const LOADED = 'loaded';

/** The kinds of labeled rows, in the order the watch lists and samples them. */
export const STRATA = ['doubtful', 'audited', LOADED] as const;

/** A labeled row's kind: its `stratum` as Review wrote it, else a row a team loaded. */
export function stratumOf(row: Record<string, unknown>): (typeof STRATA)[number] {
	const stratum = ownValue(row, 'stratum');
	return stratum === 'doubtful' || stratum === 'audited' ? stratum : LOADED;
}

/**
 * Recent rows against the rows before them (different rows), like with like: each stratum
 * (doubtful, audited, loaded) against its own earlier rows, so a change in the mix alone is no
 * evidence. The test is the one-sided Cochran–Mantel–Haenszel test (exact, conditional on each
 * stratum's margins: stats.ts `cochranMantelHaenszel`); the change (the one number the words, the
 * report and the threshold use) is the recent rows' accuracy against the earlier rows' weighed to
 * the recent mix, with its 95 % interval (`stratifiedDifference`: MOVER on Wilson intervals;
 * with one stratum, Newcombe's hybrid score interval). A stratum with rows on one side only is
 * left out, and said.
 */
export function recentEvidence(
	strata: readonly RecentStratum[],
	options: EvidenceOptions,
): Evidence {
	checkRate(options.falseAlarmRate);
	const compared = strata.filter((each) => each.recent.n > 0 && each.earlier.n > 0);
	const leftOut = strata
		.filter((each) => !compared.includes(each) && each.recent.n + each.earlier.n > 0)
		.map((each) => ({ stratum: each.stratum, recent: each.recent.n, earlier: each.earlier.n }));
	const recentRows = compared.reduce((sum, each) => sum + each.recent.n, 0);
	const earlierRows = compared.reduce((sum, each) => sum + each.earlier.n, 0);
	const earlierRight = compared.reduce((sum, each) => sum + each.earlier.successes, 0);
	let after = wilsonInterval(
		compared.reduce((sum, each) => sum + each.recent.successes, 0),
		recentRows,
	);
	let before = wilsonInterval(earlierRight, earlierRows);
	let change: { points: number; low: number; high: number } | null = null;
	let pValue: number | null = null;
	let weights: number[] = [];
	if (compared.length) {
		const difference = stratifiedDifference(compared);
		weights = difference.weights;
		after = { ...after, ...difference.recent };
		before = { ...before, ...difference.earlier };
		change = {
			points: toPoints(difference.value),
			low: toPoints(difference.low),
			high: toPoints(difference.high),
		};
		pValue = cochranMantelHaenszel(compared).pLower;
	}
	const what = recentWhat(compared, leftOut, after, before);
	return {
		...evidenceOf('recent', before, after, change, pValue, recentRows, options, what),
		strata: compared.map((each, at) => ({ ...each, weight: weights[at] })),
		left_out: leftOut,
	};
}

/** The same rows on two versions: how many each got right. */
export interface PairedCount {
	/** Rows both versions answered (or guessed). */
	n: number;
	/** Right on the old version only. */
	onlyOld: number;
	/** Right on the live version only. */
	onlyLive: number;
	/** Right on both. */
	both: number;
}

/**
 * The same rows on the old and the live version: McNemar's mid-p test, one-sided for a drop
 * (P(X < onlyLive) + P(X = onlyLive)/2, X ~ Binomial(discordant, ½)); the change's 95 % interval from the Wilson
 * intervals of the rows only one version got right.
 */
export function versionEvidence(pairs: PairedCount, options: EvidenceOptions): Evidence {
	checkRate(options.falseAlarmRate);
	const { n, onlyOld, onlyLive, both } = pairs;
	const before = wilsonInterval(both + onlyOld, n);
	const after = wilsonInterval(both + onlyLive, n);
	const discordant = onlyOld + onlyLive;
	let change: { points: number; low: number; high: number } | null = null;
	let pValue: number | null = null;
	if (n > 0) {
		// The rows only the live version got right, less those only the old one did: each share
		// with its Wilson interval, combined as Newcombe's hybrid score interval does.
		const gained = wilsonInterval(onlyLive, n);
		const lost = wilsonInterval(onlyOld, n);
		const d = (onlyLive - onlyOld) / n;
		const [g, l] = [onlyLive / n, onlyOld / n];
		change = {
			points: toPoints(d),
			low: toPoints(d - Math.hypot(g - gained.low, lost.high - l)),
			high: toPoints(d + Math.hypot(gained.high - g, l - lost.low)),
		};
		// Mid-p (Fagerland, Lydersen & Laake 2013): half the weight of the observed count. The exact
		// conditional test holds its rate far under the one set at small counts; on the same
		// simulated changes mid-p found a version 10 points worse on its first run more often (94.7 %
		// of 300 against 90 %, bench/quality-year.ts before the sample took each kind in turn), its
		// rate with no change at most 1.11 % at 1 % over every outcome
		// (test/unit/evaluate-version-change.test.ts).
		pValue =
			discordant === 0
				? 1
				: binomialCdf(onlyLive - 1, discordant, 0.5) +
					0.5 *
						(binomialCdf(onlyLive, discordant, 0.5) - binomialCdf(onlyLive - 1, discordant, 0.5));
	}
	return evidenceOf('version', before, after, change, pValue, n, options);
}
