/**
 * Evaluate's watch: the figures as one row, the tests behind the alert (recent rows, a version
 * change) and what changed since the previous figures, with the lines the message adds about the
 * stored rows and the doubtful ones (docs/quality-watch.md). The figures are src/evaluate's.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import {
	allTrafficLines,
	driftOf,
	evaluate,
	figuresRow,
	readFiguresRow,
	recentEvidence,
	rightOf,
	versionEvidence,
	type Cost,
	type Drift,
	type Evidence,
	type FiguresRow,
	type Metrics,
	type PairedCount,
	type ScoredItem,
	type Summary,
} from '../../../../../src/evaluate';
import type { Decision } from '../../../../../src/contract';
import type { EvaluationDecision } from '../../../../../src/answer';
import type { EvaluateNodeOptions } from './description';
import type { Scoring, StoredPlan } from './inputs';
import { recentStrata } from './recent-rows';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The tests behind the watch's alert: the rows reviewed within the window against the rows before
 * (on the live version), and on a version change the sampled rows on both versions (paired).
 */
function watchEvidence(
	items: INodeExecutionData[],
	metrics: Metrics,
	plan: StoredPlan,
	decision: EvaluationDecision,
	evaluateOptions: Parameters<typeof evaluate>[2],
	watch: { falseAlarmRate: number; threshold: number; windowDays: number; now: number },
): { evidence: Evidence[] } {
	const strata = recentStrata(items, metrics, watch.now - watch.windowDays * DAY_MS);
	const options = { falseAlarmRate: watch.falseAlarmRate, threshold: watch.threshold };
	const evidence: Evidence[] = [];
	// With no earlier (or no recent) row of a kind there is nothing to test: said as too few rows.
	if (strata.length) evidence.push(recentEvidence(strata, options));
	const pairs = versionPairs(metrics, plan, decision, evaluateOptions);
	if (pairs.n) evidence.push(versionEvidence(pairs, options));
	return { evidence };
}

/**
 * A version change, paired: the rows decided again (the sample, every kind of row: reviewed,
 * audited, loaded) judged on the live version and on the old version's stored answer, by the same
 * rules (a doubtful row by its guess; with none, a tie, not right). Nothing paired when no row was
 * decided again.
 */
export function versionPairs(
	metrics: Metrics,
	plan: Pick<StoredPlan, 'sampled'>,
	decision: EvaluationDecision,
	evaluateOptions: Parameters<typeof evaluate>[2],
): PairedCount {
	const pairs = { n: 0, onlyOld: 0, onlyLive: 0, both: 0 };
	if (!plan.sampled.size) return pairs;
	const live = new Map<number, { right: boolean; expected: ScoredItem['expected'] }>();
	for (const outcome of metrics.items) {
		// A doubtful row with no guess (a tie) is not answered right: a version that leaves more
		// ties is worse, and the pair still counts (the rule accuracy over all traffic keeps).
		live.set(outcome.index, { right: rightOf(outcome) ?? false, expected: outcome.expected });
	}
	const indexes = [...plan.sampled.keys()].filter((index) => live.has(index));
	const old: ScoredItem[] = indexes.map((index) => ({
		expected: live.get(index)!.expected,
		run: plan.sampled.get(index)!,
		charged: 0,
	}));
	const { metrics: oldMetrics } = evaluate(decision, old, evaluateOptions);
	oldMetrics.items.forEach((outcome, at) => {
		const before = rightOf(outcome) ?? false;
		const after = live.get(indexes[at])!.right;
		pairs.n++;
		if (before && after) pairs.both++;
		else if (before) pairs.onlyOld++;
		else if (after) pairs.onlyLive++;
	});
	return pairs;
}

const rows = (count: number) => `${count} ${count === 1 ? 'row' : 'rows'}`;
const units = (count: number) => `${count} ${count === 1 ? 'unit' : 'units'}`;
const answeredBy = ({ oldVersions }: Pick<StoredPlan, 'oldVersions'>) =>
	oldVersions.length ? `version ${oldVersions.join(', ')}` : 'an earlier version';

/**
 * The rows left out of the figures on a version change, and why, in one sentence (the message,
 * the summary and the HTML report say it alike); undefined when none was.
 */
export function leftOutWords(
	plan: Pick<StoredPlan, 'left' | 'sampled' | 'oldVersions' | 'tested'>,
	liveVersion: number | null,
): string | undefined {
	if (!plan.left.size) return undefined;
	const was = answeredBy(plan);
	const live = liveVersion ?? '–';
	if (plan.tested)
		return `${rows(plan.left.size)} answered by ${was} left out of these figures: version ${live} was live at the last run${plan.tested.at ? ` (${plan.tested.at})` : ''}, which tested the change, so they are not decided again (0 units).`;
	return `${rows(plan.left.size)} answered by ${was} left out of these figures: beyond the ${plan.sampled.size} decided again on version ${live}, the most recent of each kind (Version Change Sample).`;
}

/** What the run did with the stored rows and the rows with none, said before the cost. */
function storedLines(
	plan: StoredPlan,
	liveVersion: number | null,
	scoring: Pick<Scoring, 'scored' | 'scoredIndexes'>,
): string[] {
	const lines: string[] = [];
	const live = liveVersion ?? '–';
	let sampled = 0;
	let fresh = 0;
	scoring.scoredIndexes.forEach((index, at) => {
		if (scoring.scored[at].charged !== 1) return;
		if (plan.sampled.has(index)) sampled++;
		else fresh++;
	});
	if (plan.fromStore)
		lines.push(
			`${plan.fromStore} stored rows scored from the answer version ${live} gave them: free.`,
		);
	if (plan.sampled.size) {
		lines.push(
			`The live version changed (rows answered by ${answeredBy(plan)}): ${sampled} rows decided on version ${live}, the most recent of each kind in turn, and paired with their stored answers (${units(sampled)}; store their answers and the next run is free).`,
		);
	}
	if (fresh)
		lines.push(
			`${rows(fresh)} with no stored answer decided on version ${live} (${units(fresh)}; store their answers and the next run scores them free).`,
		);
	const left = leftOutWords(plan, liveVersion);
	if (left) lines.push(left);
	return lines;
}

/** Doubtful rows (the service left them to a person): what their guesses say, not "answered 0". */
function doubtfulLines(metrics: Metrics): string[] {
	const doubtful = metrics.doubtful;
	if (!doubtful || !doubtful.count) return [];
	const guess =
		doubtful.guessAccuracy === null
			? 'no guess to score'
			: `the machine's guess right on ${doubtful.guessRight} of ${doubtful.guessed} (${Math.round(doubtful.guessAccuracy * 1000) / 10}%)`;
	return [
		`• Doubtful: ${doubtful.count} of ${metrics.total} rows were left to a person; ${guess}.`,
	];
}

/** What the watch step reads of the run (execute.ts's steps). */
export interface WatchInputs {
	items: INodeExecutionData[];
	decision: Decision;
	evaluationDecision: EvaluationDecision;
	options: EvaluateNodeOptions;
	plan: StoredPlan;
	scoring: Scoring;
	metrics: Metrics;
	evaluateOptions: Parameters<typeof evaluate>[2];
	summary: Summary;
	cost: Cost;
	charged: { total: number; live: number };
	unscored: { badRows: number; notScored: number };
	said: { badRows: string[]; notScoredBecause: string };
}

/**
 * The figures as one row, and what changed since the previous row (when given: then the watch's
 * tests run too). `watching`: previous figures were given, so the Drift output exists.
 */
export function figuresAndDrift(run: WatchInputs): {
	figures: FiguresRow;
	drift: Drift;
	watching: boolean;
} {
	const { decision, options, metrics, plan, scoring } = run;
	const liveVersion = decision.live_version ?? null;
	const figures = figuresRow(metrics, run.summary, {
		decision: decision.slug,
		liveVersion,
		evaluatedAt: new Date().toISOString(),
		unitsCharged: run.charged.total,
		notScored: run.unscored.notScored,
		leftOut: plan.left.size,
		badRows: run.unscored.badRows,
	});
	const watching = options.previousFigures !== undefined;
	const watch = watching
		? watchEvidence(run.items, metrics, plan, run.evaluationDecision, run.evaluateOptions, {
				falseAlarmRate: (options.falseAlarmRate ?? 1) / 100,
				threshold: options.dropThreshold ?? 5,
				windowDays: options.recentWindowDays ?? 7,
				now: Date.now(),
			})
		: undefined;
	const drift = driftOf(
		watching ? readFiguresRow(options.previousFigures) : undefined,
		figures,
		options.dropThreshold ?? 5,
		decision.name,
		{
			badRows: run.said.badRows,
			notScoredBecause: run.said.notScoredBecause,
			paidUpstream: run.cost.upstream,
			...(watch ? { evidence: watch.evidence } : {}),
			extraLines: storedLines(plan, liveVersion, scoring),
			doubtful: [...doubtfulLines(metrics), ...allTrafficLines(metrics)],
		},
	);
	return { figures, drift, watching };
}
