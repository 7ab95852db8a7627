// Accuracy over all traffic, from the reviewed rows that say why a person saw them (issue 37):
// `doubtful` rows (Decide sent every such item to review: each stands for itself) and `audited`
// rows (a confident answer picked at Decide's Audit Share: each stands for 1/share items).
// Horvitz–Thompson, post-stratified by stratum and distinct share: W_h = N̂_h / Σ N̂, the value and
// its 95 % interval from stats.ts `stratifiedProportion`. Pure. docs/evaluate.md says it in words.
//
// Rules (test/unit/evaluate-all-traffic.test.ts checks each one):
// - A row is right by its answer, or on a doubtful run by the machine's guess (`rightOf`, the rule
//   the doubtful items' table and the quality watch use); a row with neither is left out.
// - A row with no stratum (empty, missing) was added by hand: not a sample of traffic, left out.
// - The stratum and the share are untrusted cells: a stratum other than the two, or an audited
//   row whose share is not a number in (0, 1], is left out and counted, never a crash.
// - No audited row in the estimate: no figure (null) and the reason, in the words the
//   recommendations use ("not enough items yet (0 audited; about 140 needed …)").
import type {
	AllTrafficMetrics,
	ConfidentAccuracy,
	ItemOutcome,
	ScoredItem,
	TrafficStratum,
} from './metrics-types';
import { itemsNeeded, stratifiedProportion } from './stats';
import { REPORT_LEVEL, rateInterval, ratio } from './tables';

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

type Placed =
	| { in: true; key: string; stratum: 'doubtful' | 'audited'; share: number | null }
	| { in: false; why: 'handAdded' | 'badStratum' | 'badShare' };

/** Where a row goes: its stratum (and share), or why it is left out. */
function placeOf(item: ScoredItem): Placed {
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

/**
 * The audited rows' accuracy: a plain rate (Wilson) when every row was picked at one share; after a
 * change of Audit Share, each share's rows weighed by the answers they stand for, so a period
 * audited at 20 % does not outweigh a longer one at 5 %.
 */
function confidentOf(
	audited: readonly TrafficStratum[],
): Pick<ConfidentAccuracy, 'accuracy' | 'accuracyInterval'> {
	const rows = audited.reduce((sum, s) => sum + s.rows, 0);
	const right = audited.reduce((sum, s) => sum + s.right, 0);
	if (audited.length <= 1)
		return { accuracy: ratio(right, rows), accuracyInterval: rateInterval(right, rows) };
	return weighedRate(audited);
}

/** A rate over strata, each weighed by the answers it stands for, with its 95 % interval. */
function weighedRate(
	strata: readonly TrafficStratum[],
): Pick<AllTrafficMetrics, 'accuracy' | 'accuracyInterval'> {
	const estimate = stratifiedProportion(
		strata.map((s) => ({ successes: s.right, n: s.rows, weight: s.standsFor })),
		REPORT_LEVEL,
	);
	return {
		accuracy: estimate.value,
		accuracyInterval: {
			low: estimate.low,
			high: estimate.high,
			n: estimate.n,
			level: estimate.level,
		},
	};
}

type LeftOut = Omit<AllTrafficMetrics['leftOut'], 'total'>;

/**
 * The judged rows grouped by why a person saw them (doubtful, or audited at one share), each
 * weighed by the answers it stands for; rows that cannot be placed, counted by why.
 */
function strataOf(
	items: readonly ScoredItem[],
	outcomes: readonly ItemOutcome[],
): { list: TrafficStratum[]; leftOut: LeftOut; total: number } {
	const leftOut = { handAdded: 0, badStratum: 0, badShare: 0, notJudged: 0 };
	const strata = new Map<string, TrafficStratum>();
	items.forEach((item, at) => {
		const placed = placeOf(item);
		if (!placed.in) {
			leftOut[placed.why] += 1;
			return;
		}
		const right = rightOf(outcomes[at]);
		if (right === null) {
			leftOut.notJudged += 1;
			return;
		}
		let stratum = strata.get(placed.key);
		if (!stratum) {
			stratum = {
				stratum: placed.stratum,
				auditShare: placed.share,
				rows: 0,
				right: 0,
				standsFor: 0,
				weight: 0,
			};
			strata.set(placed.key, stratum);
		}
		stratum.rows += 1;
		if (right) stratum.right += 1;
	});
	// Doubtful first, then the audited strata by share, largest first.
	const list = [...strata.values()].sort((a, b) => (b.auditShare ?? 2) - (a.auditShare ?? 2));
	for (const stratum of list)
		stratum.standsFor =
			stratum.auditShare === null ? stratum.rows : stratum.rows / stratum.auditShare;
	const total = list.reduce((sum, s) => sum + s.standsFor, 0);
	for (const stratum of list) stratum.weight = total > 0 ? stratum.standsFor / total : 0;
	return { list, leftOut, total };
}

/** The accuracy over all traffic (strata weighed), only once a row was audited. */
function weighedAccuracy(
	list: readonly TrafficStratum[],
	auditedRows: number,
): Pick<AllTrafficMetrics, 'accuracy' | 'accuracyInterval'> {
	if (!auditedRows) return { accuracy: null, accuracyInterval: null };
	return weighedRate(list);
}

/**
 * The estimate over all traffic and the confident answers' accuracy. `outcomes[i]` judges
 * `items[i]`; `target`: the accuracy a figure is about (for how many audited rows are needed).
 */
export function allTrafficOf(
	items: readonly ScoredItem[],
	outcomes: readonly ItemOutcome[],
	target: number,
): { allTraffic: AllTrafficMetrics; confidentAccuracy: ConfidentAccuracy } {
	const { list, leftOut, total } = strataOf(items, outcomes);
	const of = (name: 'doubtful' | 'audited', pick: (s: TrafficStratum) => number) =>
		list.filter((s) => s.stratum === name).reduce((sum, s) => sum + pick(s), 0);
	const audited = { rows: of('audited', (s) => s.rows), right: of('audited', (s) => s.right) };
	// The target is the caller's: a nonsense one (1.01, NaN) must not stop the evaluation.
	const around = Number.isFinite(target) ? Math.min(1, Math.max(0, target)) : 0.5;
	const reason = audited.rows
		? null
		: `${NOT_YET} (0 audited; about ${roughly(itemsNeeded(ALL_TRAFFIC_HALF_WIDTH, around, REPORT_LEVEL))} needed for ± 5 points)`;
	return {
		allTraffic: {
			...weighedAccuracy(list, audited.rows),
			reason,
			rows: { doubtful: of('doubtful', (s) => s.rows), audited: audited.rows },
			standsFor: {
				doubtful: of('doubtful', (s) => s.standsFor),
				audited: of('audited', (s) => s.standsFor),
				total,
			},
			strata: list,
			leftOut: {
				...leftOut,
				total: leftOut.handAdded + leftOut.badStratum + leftOut.badShare + leftOut.notJudged,
			},
		},
		confidentAccuracy: {
			...confidentOf(list.filter((s) => s.stratum === 'audited')),
			right: audited.right,
			n: audited.rows,
			reason,
		},
	};
}
