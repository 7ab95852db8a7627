// The shapes of an evaluation: what goes in (scored items, options) and what comes out (the
// figures per kind, the per-item outcomes, the problems). Declarations only. Long because each
// figure's shape carries the comment that says what it means, in the one place the metrics, the
// summary, the report and the node read them from.
import type { ItemAnswer } from '../answer/item-answer';

export interface ScoredItem {
	/**
	 * route: an option key; score: a level label (as the legend's values have it) or a level index
	 * (a number, 0 = lowest, as the legend's keys); classify: a list of label keys.
	 */
	expected: unknown;
	/** The item's answer as src/answer/item-answer.ts reads it (a carried compact or whole run, or a fresh one). */
	run: ItemAnswer;
	/** Units this item cost: 1 for a fresh decide, 0 for an item scored from a run it already carried. */
	charged: number;
	/**
	 * The status of the run a person reviewed, when the item says (a stored review row's
	 * `machine_status`): rows reviewed only from uncertain or pending runs are the hard cases.
	 */
	reviewedFrom?: unknown;
	/**
	 * Why a person saw it, as a stored review row says (`stratum`): `doubtful` or `audited`; none
	 * on a row a team added by hand. Untrusted: anything else leaves the row out of `allTraffic`.
	 */
	stratum?: unknown;
	/** An audited row's inclusion probability (`audit_share`, a number in (0, 1]). Untrusted. */
	auditShare?: unknown;
}

export interface EvaluateOptions {
	/** Confidence thresholds of the coverage table; default 0.00, 0.05 … 0.95. */
	thresholds?: readonly number[];
	/** Gap thresholds of the coverage-by-gap table; default 0.00, 0.05 … 0.95. */
	gaps?: readonly number[];
	/** The accuracy the user wants; the recommendation is the lowest threshold reaching it. Default 0.9. */
	targetAccuracy?: number;
	/** The decision's confidence threshold: the doubtful items' table lists the thresholds below it. */
	confidenceThreshold?: number;
	/**
	 * The items nobody reviewed (rows Review wrote with status `not_reviewed`), by their own
	 * `stratum` and `audit_share` cells: not scored, they are the rest of their stratum's population
	 * in the accuracy over all traffic (all-traffic.ts).
	 */
	notReviewed?: ReadonlyArray<Pick<ScoredItem, 'stratum' | 'auditShare'>>;
}

/**
 * How sure a rate is: its 95 % Wilson score interval (src/evaluate/stats.ts) and the count it is
 * over. Every rate the report prints has one beside it (`accuracy` → `accuracyInterval`); null
 * where the rate is null (nothing to divide by).
 */
export interface RateInterval {
	low: number;
	high: number;
	/** Items the rate is over: its denominator. */
	n: number;
	/** The interval's confidence level: 0.95. */
	level: number;
}

/**
 * A setting that reaches the target on these items' figures but not yet surely (see
 * `recommended`): the setting, the items it keeps, and about how many it would need.
 */
export interface NotYetSupported {
	/** The setting's value: a confidence threshold or a gap. */
	threshold: number;
	/** Answered items kept at that setting. */
	items: number;
	/** The accuracy of those items and its interval. */
	accuracy: number;
	accuracyInterval: RateInterval;
	/**
	 * About how many kept items at that accuracy would make the interval's lower bound reach the
	 * target; null when the accuracy is exactly the target (no number of items is enough).
	 */
	needed: number | null;
}

export type ItemProblemCode = 'unknown_expected_key' | 'invalid_expected';

/** Why an item could not be evaluated: the node puts it on the error output. */
export interface ItemProblem {
	code: ItemProblemCode;
	/** Index of the item in the list given to `evaluate`. */
	index: number;
	/** The expected key that the decision does not know (unknown_expected_key). */
	key?: string;
	/** The decision's keys: options, levels lowest first, or labels. */
	knownKeys: string[];
	message: string;
}

export interface ClassMetrics {
	key: string;
	/** Items expecting this key (answered or not). */
	support: number;
	/** Of those, the answered ones: recall's denominator. */
	answeredSupport: number;
	/** Answered items that predicted this key. */
	predicted: number;
	truePositives: number;
	/** null when the key was never predicted. */
	precision: number | null;
	/** Over `predicted` items. */
	precisionInterval: RateInterval | null;
	/** null when no answered item expected the key. */
	recall: number | null;
	/** Over `answeredSupport` items. */
	recallInterval: RateInterval | null;
	/** null when precision or recall is null; 0 when both are 0. */
	f1: number | null;
}

export interface ConfusionRow {
	expected: string;
	/** One count per key of `Confusion.keys`, same order. */
	predicted: number[];
	uncertain: number;
	pending: number;
	other: number;
	total: number;
}

/** Rows: expected; columns: predicted keys, then the runs that gave no answer. */
export interface Confusion {
	keys: string[];
	rows: ConfusionRow[];
}

export interface CoverageRow {
	threshold: number;
	/** Answered items at or above the threshold. */
	count: number;
	/** count / all evaluated items. */
	coverage: number;
	/** Over all evaluated items; null when there is none. */
	coverageInterval: RateInterval | null;
	/** Correct among them; null when count is 0. */
	accuracy: number | null;
	/** Over `count` items. */
	accuracyInterval: RateInterval | null;
}

export interface NameCount {
	/** null: the run did not say. */
	name: string | null;
	count: number;
}

export interface ItemOutcome {
	index: number;
	status: string;
	answered: boolean;
	/** route/score: exact answer; classify: exact label set. null when not answered. */
	correct: boolean | null;
	expected: string | string[];
	/** The run's answer (route choice, score level, classify labels); undefined when it gave none. */
	predicted?: string | string[];
	/** On a run the service did not answer (uncertain, pending): the machine's guess, when it had one. */
	guess?: string | string[];
	/** Whether that guess was the expected answer; null on answered runs and runs without a guess. */
	guessRight: boolean | null;
	confidence: number | null;
	/** The gap between the two most probable answers (see close-call.ts); null when unknown. */
	gap: number | null;
	charged: number;
}

/** One row of the doubtful items' table: the threshold lowered to `threshold`. */
export interface DoubtfulRow {
	threshold: number;
	/** Doubtful items whose confidence is at or above it: they would have been answered by their guess. */
	routed: number;
	/** Of those, the guesses that were right. */
	right: number;
	/** right / routed; null when routed is 0. */
	accuracy: number | null;
	accuracyInterval: RateInterval | null;
}

/**
 * The runs the service did not answer (uncertain, pending) scored by the machine's guess: how a
 * team learns from its reviews whether the doubtful guesses were right and where to set the
 * threshold. They never count in accuracy or coverage.
 */
export interface DoubtfulMetrics {
	count: number;
	/** Of those, items with a guess (an uncertain route run carries its probabilities). */
	guessed: number;
	guessRight: number;
	/** guessRight / guessed; null when nothing was guessed. */
	guessAccuracy: number | null;
	/** Over `guessed` items. */
	guessAccuracyInterval: RateInterval | null;
	/** For each threshold under the decision's: what lowering it there would have routed, and how many right. */
	byThreshold: DoubtfulRow[];
}

/** The rows of one stratum of the all-traffic estimate (src/evaluate/all-traffic.ts). */
export interface TrafficStratum {
	stratum: 'doubtful' | 'audited';
	/** audited: the share its rows were picked at; null: doubtful (the items are counted). */
	auditShare: number | null;
	/** Reviewed rows in the estimate, and of those the right ones (by answer, or by guess on a doubtful run). */
	rows: number;
	right: number;
	/** Of `rows`, those with no answer and no guess (a tie with no suggestion): counted as not right. */
	noGuess: number;
	/** Items of the stratum nobody reviewed (rows with status `not_reviewed`): in its population, not scored. */
	notReviewed: number;
	/**
	 * The items it stands for, N_h: doubtful, counted (rows + notReviewed); audited, estimated
	 * ((rows + notReviewed) / share). Each reviewed row weighs N_h / rows.
	 */
	standsFor: number;
	/** Its share of the traffic, W_h = N_h / Σ N. */
	weight: number;
}

/**
 * The machine's accuracy over all traffic, estimated from the doubtful and audited rows: each
 * stratum weighed by the items it stands for; interval from stats.ts `weighedRate` (linearised
 * variance, Clopper–Pearson on an effective sample size).
 */
export interface AllTrafficMetrics {
	/** null until the data supports a figure (see `reason`). */
	accuracy: number | null;
	/** Its 95 % interval; `n`: the reviewed rows in the estimate. */
	accuracyInterval: RateInterval | null;
	/**
	 * Why there is no figure: "not enough items yet (3 audited; at least 10 needed for a figure,
	 * about 140 for ± 5 points)", or "… (none of the 12 doubtful items reviewed)".
	 */
	reason: string | null;
	/** Reviewed rows in the estimate per stratum. */
	rows: { doubtful: number; audited: number };
	/** Items nobody reviewed (status `not_reviewed`), per stratum: the reviewed rows stand for them. */
	notReviewed: { doubtful: number; audited: number };
	/** Reviewed rows with no answer and no guess (ties with no suggestion), counted as not right. */
	noGuess: number;
	/** The traffic they stand for (N), per stratum and in all. */
	standsFor: { doubtful: number; audited: number; total: number };
	/** Doubtful first, then one per distinct audit share, largest first. */
	strata: TrafficStratum[];
	/**
	 * Rows left out: `handAdded` (no stratum), `badStratum` (not doubtful or audited), `badShare`
	 * (an audited row whose share is not a number in (0, 1]).
	 */
	leftOut: {
		handAdded: number;
		badStratum: number;
		badShare: number;
		total: number;
	};
}

/**
 * The audited rows: how often an answer that went straight to its output is right (Clopper–Pearson
 * at one Audit Share; after a change of share, the shares weighed as `AllTrafficMetrics`).
 */
export interface ConfidentAccuracy {
	/** right / n at one Audit Share; after a change of share, each share weighed by the answers it stands for. Null below MIN_AUDITED rows (see `reason`). */
	accuracy: number | null;
	accuracyInterval: RateInterval | null;
	right: number;
	n: number;
	reason: string | null;
}

export interface CommonMetrics {
	/** Evaluated items (those with a problem are left out). */
	total: number;
	answered: number;
	/** answered / total; null when total is 0. */
	coverage: number | null;
	/** Over `total` items. */
	coverageInterval: RateInterval | null;
	statuses: { ok: number; uncertain: number; pending: number; other: number };
	uncertainRate: number | null;
	uncertainRateInterval: RateInterval | null;
	pendingRate: number | null;
	pendingRateInterval: RateInterval | null;
	/** Status ok with an answer the decision does not know, or an unknown status. */
	otherRate: number | null;
	otherRateInterval: RateInterval | null;
	/** Correct / answered (route: choice; score: exact level; classify: exact label set). */
	accuracy: number | null;
	/** Over `answered` items: "93.4 % (86–97 %, 91 items)". */
	accuracyInterval: RateInterval | null;
	engines: NameCount[];
	models: NameCount[];
	units: { charged: number; fresh: number; reused: number };
	targetAccuracy: number;
	coverageByConfidence: CoverageRow[];
	coverageByGap: CoverageRow[];
	/**
	 * The lowest threshold the data supports: the 95 % lower bound of its kept items' accuracy
	 * reaches the target (docs/evaluate.md, "How sure the figures are"). null when none does.
	 */
	recommended: {
		confidence: CoverageRow | null;
		gap: CoverageRow | null;
		/**
		 * When none is supported but one reaches the target on its figures alone: that threshold,
		 * its items and about how many it needs ("not enough items yet (12; about 35 needed)").
		 */
		notYet: { confidence: NotYetSupported | null; gap: NotYetSupported | null };
	};
	doubtful: DoubtfulMetrics;
	/** The decision's confidence threshold as given (EvaluateOptions), or null. */
	confidenceThreshold: number | null;
	/**
	 * Items that say which run a person reviewed (`reviewedFrom`), and of those, the ones reviewed
	 * from a doubtful run (uncertain or pending). `doubtfulOnly`: every item says so and every one
	 * was doubtful, and no audited row is in `allTraffic`: the accuracy is that of the hard cases,
	 * not of all traffic.
	 */
	reviewedFrom: { told: number; doubtful: number; doubtfulOnly: boolean };
	/** Accuracy over all traffic, from the rows' strata (null with a reason without audited rows). */
	allTraffic: AllTrafficMetrics;
	/** The audited rows' accuracy: the answers sent straight to their output. */
	confidentAccuracy: ConfidentAccuracy;
	items: ItemOutcome[];
}

export interface RouteMetrics extends CommonMetrics {
	type: 'route';
	classes: ClassMetrics[];
	/** Mean F1 over classes whose F1 is defined; null when none is. */
	macroF1: number | null;
	confusion: Confusion;
}

export interface ScoreMetrics extends CommonMetrics {
	type: 'score';
	/** Same as accuracy: the exact level. */
	exactAccuracy: number | null;
	/** Mean |predicted level − expected level|, in level steps. */
	meanAbsoluteError: number | null;
	/** Share of answered items at most one level off. */
	withinOneAccuracy: number | null;
	withinOneAccuracyInterval: RateInterval | null;
	/** Signed error (predicted − expected, in levels) → answered items, from −(N−1) to N−1. */
	errorHistogram: Array<{ error: number; count: number }>;
	classes: ClassMetrics[];
	macroF1: number | null;
	confusion: Confusion;
}

export interface ClassifyMetrics extends CommonMetrics {
	type: 'classify';
	labels: ClassMetrics[];
	macroF1: number | null;
	/** Same as accuracy: the label set exactly as expected. */
	exactSetMatch: number | null;
	exactSetMatchInterval: RateInterval | null;
	/** Wrong label decisions / (answered items × labels); null when nothing answered. */
	hammingLoss: number | null;
}

export type Metrics = RouteMetrics | ScoreMetrics | ClassifyMetrics;

export interface Evaluation {
	metrics: Metrics;
	/** Items left out, one problem each, in item order. */
	problems: ItemProblem[];
}

/** An item judged: its outcome and its column of the confusion matrix (route, score). */
export interface Judged {
	outcome: ItemOutcome;
	/** The column of the confusion matrix (route/score). */
	column: 'answer' | 'uncertain' | 'pending' | 'other';
}
