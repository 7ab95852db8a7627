// Accuracy over all traffic, from the reviewed rows that say why a person saw them (issues 37, 43):
// `doubtful` rows (Decide sent the item to Uncertain or Pending Review) and `audited` rows (a
// confident answer picked at Decide's Audit Share). Each stratum stands for a population: the
// doubtful items, counted (reviewed rows + the rows Review wrote `not_reviewed`), and the confident
// answers, estimated (picked rows / share). A reviewed row weighs its population over its reviewed
// rows: the unreviewed items are taken to be like the reviewed ones. The value and its 95 % interval
// are stats.ts `weighedRate` (linearised variance, Clopper–Pearson on an effective sample size).
// Pure. docs/evaluate.md says it in words; bench/audit-coverage.ts measures the interval's promise.
//
// Rules (test/unit/evaluate-all-traffic.test.ts checks each one):
// - A row is right by its answer, or on a doubtful run by the machine's guess (`rightOf`, the rule
//   the doubtful items' table and the quality watch use). A row with neither (a tie with no
//   suggestion) is counted as not answered right, and counted apart (`noGuess`).
// - A row with no stratum (empty, missing) was added by hand: not a sample of traffic, left out.
// - The stratum and the share are untrusted cells: a stratum other than the two, or an audited
//   row whose share is not a number in (0, 1], is left out and counted, never a crash.
// - Fewer than MIN_AUDITED audited rows, or doubtful items with none reviewed: no figure (null)
//   and the reason, in the words the recommendations use ("not enough items yet (3 audited; …)").
import type {
	AllTrafficMetrics,
	ConfidentAccuracy,
	ItemOutcome,
	RateInterval,
	ScoredItem,
	TrafficStratum,
} from './metrics-types';
import { itemsNeeded, weighedRate } from './stats';
import { REPORT_LEVEL } from './tables';

/** Right by its answer, or (a doubtful item) by the machine's guess; null: neither to judge. */
export const rightOf = (outcome: ItemOutcome): boolean | null =>
	outcome.correct ?? outcome.guessRight ?? null;

/** What a figure the data does not support yet says: "not enough items yet (12; about 35 needed)". */
export const NOT_YET = 'not enough items yet';

/** A count as "about" says it: exact below 100, else two significant digits (26856 → 27000). */
export function roughly(count: number): number {
	if (count < 100) return count;
	const step = 10 ** (Math.floor(Math.log10(count)) - 1);
	return Math.round(count / step) * step;
}

/** The half-width the "about M needed" of an all-traffic figure is for: ± 5 points. */
export const ALL_TRAFFIC_HALF_WIDTH = 0.05;

/**
 * Audited rows a figure needs: below, its interval spans tens of points (10 of 10 right: 69–100 %)
 * and the report says "not enough items yet" instead (bench/audit-coverage.ts: coverage per cell).
 */
export const MIN_AUDITED = 10;

/** Where a row is placed, by its own cells: the stratum a reviewed or not-reviewed row counts in. */
export type StratumCells = Pick<ScoredItem, 'stratum' | 'auditShare'>;

type Placed =
	| { in: true; key: string; stratum: 'doubtful' | 'audited'; share: number | null }
	| { in: false; why: 'handAdded' | 'badStratum' | 'badShare' };

/** Where a row goes: its stratum (and share), or why it is left out. */
function placeOf(item: StratumCells): Placed {
	const stratum = item.stratum;
	if (stratum === undefined || stratum === null || stratum === '')
		return { in: false, why: 'handAdded' };
	if (stratum === 'doubtful') return { in: true, key: 'doubtful', stratum, share: null };
	if (stratum !== 'audited') return { in: false, why: 'badStratum' };
	const share = item.auditShare;
	if (typeof share !== 'number' || !Number.isFinite(share) || share <= 0 || share > 1)
		return { in: false, why: 'badShare' };
	return { in: true, key: `audited:${share}`, stratum, share };
}

type LeftOut = Omit<AllTrafficMetrics['leftOut'], 'total'>;

/** The stratum of a placed row, made on first use. */
function stratumFor(
	strata: Map<string, TrafficStratum>,
	placed: Extract<Placed, { in: true }>,
): TrafficStratum {
	let stratum = strata.get(placed.key);
	if (!stratum) {
		stratum = {
			stratum: placed.stratum,
			auditShare: placed.share,
			rows: 0,
			right: 0,
			noGuess: 0,
			notReviewed: 0,
			standsFor: 0,
			weight: 0,
		};
		strata.set(placed.key, stratum);
	}
	return stratum;
}

/**
 * The reviewed rows grouped by why a person saw them (doubtful, or audited at one share), with the
 * items of each nobody reviewed; each stratum's population (standsFor) and weight. Rows that cannot
 * be placed, counted by why.
 */
function strataOf(
	items: readonly ScoredItem[],
	outcomes: readonly ItemOutcome[],
	notReviewed: readonly StratumCells[],
): { list: TrafficStratum[]; leftOut: LeftOut; total: number } {
	const leftOut = { handAdded: 0, badStratum: 0, badShare: 0 };
	const strata = new Map<string, TrafficStratum>();
	items.forEach((item, at) => {
		const placed = placeOf(item);
		if (!placed.in) return void (leftOut[placed.why] += 1);
		const stratum = stratumFor(strata, placed);
		const right = rightOf(outcomes[at]);
		stratum.rows += 1;
		if (right) stratum.right += 1;
		if (right === null) stratum.noGuess += 1;
	});
	for (const row of notReviewed) {
		const placed = placeOf(row);
		if (placed.in) stratumFor(strata, placed).notReviewed += 1;
	}
	// Doubtful first, then the audited strata by share, largest first.
	const list = [...strata.values()].sort((a, b) => (b.auditShare ?? 2) - (a.auditShare ?? 2));
	for (const s of list) s.standsFor = (s.rows + s.notReviewed) / (s.auditShare ?? 1);
	const total = list.reduce((sum, s) => sum + s.standsFor, 0);
	for (const s of list) s.weight = total > 0 ? s.standsFor / total : 0;
	return { list, leftOut, total };
}

/** The weighed rate of some strata and its interval, or nulls when a stratum has no row. */
function rateOf(strata: readonly TrafficStratum[]): {
	accuracy: number | null;
	accuracyInterval: RateInterval | null;
} {
	if (!strata.length) return { accuracy: null, accuracyInterval: null };
	const estimate = weighedRate(
		strata.map((s) => ({
			rows: s.rows,
			right: s.right,
			population: s.standsFor,
			share: s.auditShare ?? 1,
		})),
		REPORT_LEVEL,
	);
	if (estimate.value === null) return { accuracy: null, accuracyInterval: null };
	const { low, high, n, level } = estimate;
	return { accuracy: estimate.value, accuracyInterval: { low, high, n, level } };
}

/** Why there is no figure yet, or null: too few audited rows, or a stratum with none reviewed. */
function reasonOf(list: readonly TrafficStratum[], target: number): string | null {
	const audited = list.filter((s) => s.stratum === 'audited').reduce((sum, s) => sum + s.rows, 0);
	if (audited < MIN_AUDITED) {
		// The target is the caller's: a nonsense one (1.01, NaN) must not stop the evaluation.
		const around = Number.isFinite(target) ? Math.min(1, Math.max(0, target)) : 0.5;
		const plusMinus5 = roughly(itemsNeeded(ALL_TRAFFIC_HALF_WIDTH, around, REPORT_LEVEL));
		return `${NOT_YET} (${audited} audited; at least ${MIN_AUDITED} needed for a figure, about ${plusMinus5} for ± 5 points)`;
	}
	const unseen = list.find((s) => s.rows === 0);
	if (!unseen) return null;
	const which =
		unseen.auditShare === null
			? 'doubtful'
			: `audited (at ${Math.round(unseen.auditShare * 1000) / 10} %)`;
	return `${NOT_YET} (none of the ${unseen.notReviewed} ${which} items reviewed)`;
}

/**
 * The estimate over all traffic and the confident answers' accuracy. `outcomes[i]` judges
 * `items[i]`; `target`: the accuracy a figure is about (for how many audited rows are needed);
 * `notReviewed`: the rows of items nobody reviewed (status `not_reviewed`), by their stratum.
 */
export function allTrafficOf(
	items: readonly ScoredItem[],
	outcomes: readonly ItemOutcome[],
	target: number,
	notReviewed: readonly StratumCells[] = [],
): { allTraffic: AllTrafficMetrics; confidentAccuracy: ConfidentAccuracy } {
	const { list, leftOut, total } = strataOf(items, outcomes, notReviewed);
	const of = (name: 'doubtful' | 'audited', pick: (s: TrafficStratum) => number) =>
		list.filter((s) => s.stratum === name).reduce((sum, s) => sum + pick(s), 0);
	const audited = list.filter((s) => s.stratum === 'audited');
	const reason = reasonOf(list, target);
	// The audited answers alone: the same rules, on their strata only.
	const confidentReason = reasonOf(audited, target);
	const none = { accuracy: null, accuracyInterval: null };
	return {
		allTraffic: {
			...(reason ? none : rateOf(list)),
			reason,
			rows: { doubtful: of('doubtful', (s) => s.rows), audited: of('audited', (s) => s.rows) },
			notReviewed: {
				doubtful: of('doubtful', (s) => s.notReviewed),
				audited: of('audited', (s) => s.notReviewed),
			},
			noGuess: of('doubtful', (s) => s.noGuess) + of('audited', (s) => s.noGuess),
			standsFor: {
				doubtful: of('doubtful', (s) => s.standsFor),
				audited: of('audited', (s) => s.standsFor),
				total,
			},
			strata: list,
			leftOut: { ...leftOut, total: leftOut.handAdded + leftOut.badStratum + leftOut.badShare },
		},
		confidentAccuracy: {
			...(confidentReason ? none : rateOf(audited)),
			right: of('audited', (s) => s.right),
			n: of('audited', (s) => s.rows),
			reason: confidentReason,
		},
	};
}
