/**
 * Evaluate: labeled items in, a report and the scored items out. Every expected answer is checked
 * against the decision before any decide (a bad one fails its item, nothing charged); items that
 * carry an answer from Decide or Review are scored from it (charged 0, a run counted once), a
 * review stored twice is counted once; the others are decided through the shared pipeline (local
 * validation, rate gate, retries, the answer memo: nothing charged twice). No row stops it: bad
 * rows are named, rows the cap or the service left unscored make the report partial. The figures
 * are src/evaluate's `evaluate` (docs/evaluate.md).
 */
import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import type { DecisionClient } from '../../../../../src/client';
import { ownValue, type RunAnswer } from '../../../../../src/contract';
import { readAnswer, type ItemAnswer } from '../../../../../src/answer/item-answer';
import { kindOf } from '../../../../../src/answer/kinds';
import {
	DEFAULT_TARGET_ACCURACY,
	costOfMetrics,
	driftOf,
	evaluate,
	figuresRow,
	readFiguresRow,
	recentEvidence,
	rightOf,
	summaryOf,
	versionEvidence,
	type Evidence,
	type Metrics,
	type ScoredItem,
} from '../../../../../src/evaluate';
import { evaluationDecisionOf, type EvaluationDecision } from '../../../../../src/answer';
import { toNodeError } from '../../../errors';
import { createDecisionClient } from '../../../transport';
import { decideAll } from '../../../pipeline/decide-all';
import { slugOf } from '../../../pipeline/input';
import { prepareItems } from '../../../pipeline/prepare';
import { addHints, newStats } from '../../../pipeline/receipt';
import type { EvaluateNodeOptions } from './description';
import { compareWithVersion } from './compare';
import {
	NotAsked,
	badRowText,
	carriedAnswer,
	checkAll,
	planStored,
	reviewedAtOf,
	type StoredPlan,
	repeatsOf,
	reviewIdsOf,
	scoreItems,
	unscoredOf,
} from './inputs';
import { reportItem, scoredItems, sendExpectedAsFeedback } from './output';

/** The decision evaluated: read fresh (a report is about it as it is now) and kept for the checks. */
async function decisionToEvaluate(context: IExecuteFunctions, client: DecisionClient) {
	const slug = slugOf(context, 0);
	if (!slug) throw new NodeOperationError(context.getNode(), 'No decision selected');
	let decision;
	try {
		decision = await client.recentDecision(slug, true).decision;
	} catch (error) {
		throw toNodeError(context.getNode(), error, 0);
	}
	const kind = kindOf(decision.type);
	if (!kind) {
		throw new NodeOperationError(
			context.getNode(),
			`Decision "${slug}" has a type this node does not know`,
			{ description: 'Update the package to evaluate it.' },
		);
	}
	return { slug, decision, kind, evaluationDecision: evaluationDecisionOf(decision) };
}

/**
 * The context the pipeline runs in: continue-on-fail whatever the node's setting, so a row that
 * fails (its input, the cap, the service) fails alone and the report names it.
 */
function goingOn(context: IExecuteFunctions): IExecuteFunctions {
	return new Proxy(context, {
		get(target, property) {
			if (property === 'continueOnFail') return () => true;
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
		},
	});
}

const unique = (values: string[]) => [...new Set(values)];

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
	const since = watch.now - watch.windowDays * DAY_MS;
	const recent = { successes: 0, n: 0 };
	const earlier = { successes: 0, n: 0 };
	const live = new Map<number, boolean>();
	for (const outcome of metrics.items) {
		const right = rightOf(outcome);
		if (right === null) continue;
		live.set(outcome.index, right);
		const at = reviewedAtOf(items[outcome.index].json);
		const side = at !== null && at >= since ? recent : earlier;
		side.n++;
		if (right) side.successes++;
	}
	const options = { falseAlarmRate: watch.falseAlarmRate, threshold: watch.threshold };
	const evidence: Evidence[] = [];
	// With no earlier (or no recent) row there is nothing to test: said as too few rows.
	if (recent.n > 0 || earlier.n > 0) evidence.push(recentEvidence(recent, earlier, options));
	if (plan.sampled.size) {
		// The old version's answers scored as the live ones are: the same rules, the same rows.
		const indexes = [...plan.sampled.keys()].filter((index) => live.has(index));
		const old: ScoredItem[] = indexes.map((index) => ({
			expected: metrics.items.find((each) => each.index === index)!.expected,
			run: plan.sampled.get(index)!,
			charged: 0,
		}));
		const { metrics: oldMetrics } = evaluate(decision, old, evaluateOptions);
		const pairs = { n: 0, onlyOld: 0, onlyLive: 0, both: 0 };
		oldMetrics.items.forEach((outcome, at) => {
			const before = rightOf(outcome);
			const after = live.get(indexes[at]);
			if (before === null || after === undefined) return;
			pairs.n++;
			if (before && after) pairs.both++;
			else if (before) pairs.onlyOld++;
			else if (after) pairs.onlyLive++;
		});
		if (pairs.n) evidence.push(versionEvidence(pairs, options));
	}
	return { evidence };
}

/** What the run did with the stored rows, said before the cost. */
function storedLines(
	plan: StoredPlan,
	liveVersion: number | null,
	scoring: { scoredIndexes: number[] },
	liveCharged: number,
): string[] {
	const lines: string[] = [];
	const scored = new Set(scoring.scoredIndexes);
	const sampled = [...plan.sampled.keys()].filter((index) => scored.has(index)).length;
	if (plan.fromStore)
		lines.push(
			`${plan.fromStore} stored rows scored from the answer version ${liveVersion ?? '–'} gave them: free.`,
		);
	if (plan.sampled.size || plan.left.size) {
		const was = plan.oldVersions.length
			? `version ${plan.oldVersions.join(', ')}`
			: 'an earlier version';
		lines.push(
			`The live version changed (rows answered by ${was}): the ${sampled} most recent rows decided on version ${liveVersion ?? '–'} (${liveCharged} units; store their answers and the next run is free)${plan.left.size ? `, ${plan.left.size} older rows left out of these figures` : ''}.`,
		);
	}
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

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('evaluateOptions', 0, {}) as EvaluateNodeOptions;
	const targetAccuracy = this.getNodeParameter(
		'targetAccuracy',
		0,
		DEFAULT_TARGET_ACCURACY,
	) as number;
	const resultField = options.resultField?.trim() || 'decision';
	const client = await createDecisionClient(this, { timeoutMs: (options.timeout ?? 15) * 1000 });
	const { slug, decision, kind, evaluationDecision } = await decisionToEvaluate(this, client);
	const readRun = (run: RunAnswer) =>
		readAnswer(run, decision.type, evaluationDecision.keys) as ItemAnswer;

	// 1. Expected answers first: a bad one fails its item before anything is spent.
	const checked = checkAll(this, items, evaluationDecision, slug);
	// 2. Answers the items carry are scored for free (a run once); the others are decided.
	const itemCarried = items.map((item, itemIndex) =>
		checked.errors[itemIndex]
			? undefined
			: carriedAnswer(item.json, resultField, evaluationDecision),
	);
	// Stored review rows keep the answer of the version that made it: free while it is live; on a
	// version change only the most recent rows are decided again (a bounded cost).
	const liveVersion = decision.live_version ?? null;
	const plan = planStored(
		items,
		checked,
		itemCarried,
		evaluationDecision,
		liveVersion,
		options.versionChangeSample ?? 200,
	);
	const carried = plan.carried;
	const repeats = repeatsOf(carried, reviewIdsOf(items, checked));
	const notAsked = new NotAsked('not asked');
	const stats = newStats();
	const pipeline = goingOn(this);
	const prepared = await prepareItems(
		pipeline,
		items,
		client,
		options.validateInput !== false,
		(itemIndex) =>
			checked.errors[itemIndex] ??
			(carried[itemIndex] || repeats.has(itemIndex) || plan.left.has(itemIndex)
				? notAsked
				: undefined),
	);
	const maxDecides = options.maxDecides ?? 0;
	const results = await decideAll(pipeline, client, prepared, { maxDecides }, stats);
	const liveCharged = stats.charged;

	// 3. The figures, over the scored items; outcomes name the input item.
	const scoring = scoreItems(items.length, checked, carried, repeats, results, readRun, plan.left);
	// The run a person reviewed, as a stored row says: rows only from doubtful runs are the hard
	// cases. Why a person saw it (`stratum`, `audit_share`: the row's own cells, untrusted) weighs
	// the row in the accuracy over all traffic.
	scoring.scored.forEach((scored, at) => {
		const json = items[scoring.scoredIndexes[at]].json;
		scored.reviewedFrom = json.machine_status;
		scored.stratum = ownValue(json, 'stratum');
		scored.auditShare = ownValue(json, 'audit_share');
	});
	const evaluateOptions = { targetAccuracy, confidenceThreshold: decision.confidence_threshold };
	const { metrics } = evaluate(evaluationDecision, scoring.scored, evaluateOptions);
	for (const outcome of metrics.items) outcome.index = scoring.scoredIndexes[outcome.index];
	// Why the rest was not scored: bad rows (named, to fix), rows left unscored (a partial run).
	const unscored = unscoredOf(items, scoring.failures, checked, prepared, notAsked);

	// 4. Compare With Version, 5. Send Expected Answers as Feedback: when asked.
	const comparison =
		options.compareVersion && options.compareVersion > 0
			? await compareWithVersion(pipeline, client, options.compareVersion, {
					items,
					scoring,
					live: metrics,
					decision: evaluationDecision,
					options: evaluateOptions,
					stats,
					readRun,
					maxDecides,
					liveVersion: decision.live_version ?? null,
				})
			: undefined;
	const feedback = options.sendFeedback
		? await sendExpectedAsFeedback(this, client, kind, scoring)
		: undefined;

	// 6. The summary as notices, the report item and the scored items. The cost: what this node
	// charged (live and compared decides), beside what the carried runs were paid upstream.
	const cost = {
		...costOfMetrics(metrics),
		charged: stats.charged,
		live: liveCharged,
		mayHaveBeenCharged: stats.mayHaveBeenCharged,
		...(comparison
			? {
					compared: {
						version: options.compareVersion!,
						charged: stats.charged - liveCharged,
					},
				}
			: {}),
	};
	const summary = summaryOf(metrics, cost);
	const badRows = unscored.badRows.map(badRowText);
	const notScoredBecause = unique(unscored.notScored.map((each) => each.reason)).join('; ');
	if (unscored.notScored.length)
		summary.sentences.push(
			`Partial: ${unscored.notScored.length} rows not scored (${notScoredBecause}); these figures are not compared with earlier ones, nor a baseline.`,
		);
	if (badRows.length)
		summary.sentences.push(`${badRows.length} rows not scored, to fix: ${badRows.join(' ')}`);
	addHints(
		this,
		[summary.headline, ...summary.sentences].map((message) => ({
			message,
			type: 'info' as const,
			location: 'outputPane' as const,
		})),
	);
	// 7. The figures as one row, and what changed since the previous row (when given).
	const figures = figuresRow(metrics, summary, {
		decision: decision.slug,
		liveVersion: decision.live_version ?? null,
		evaluatedAt: new Date().toISOString(),
		unitsCharged: stats.charged,
		notScored: unscored.notScored.length,
		badRows: unscored.badRows.length,
	});
	const watching = options.previousFigures !== undefined;
	const watch = watching
		? watchEvidence(items, metrics, plan, evaluationDecision, evaluateOptions, {
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
			badRows,
			notScoredBecause,
			paidUpstream: cost.upstream,
			...(watch ? { evidence: watch.evidence } : {}),
			extraLines: [...storedLines(plan, liveVersion, scoring, liveCharged)],
			doubtful: doubtfulLines(metrics),
		},
	);
	const outcome = {
		decision,
		metrics,
		summary,
		scoring,
		repeats,
		comparison,
		feedback,
		figures,
		drift,
		unscored,
		cost,
		left: plan.left,
	};
	const usesErrorOutput = this.getNode().onError === 'continueErrorOutput';
	const report = await reportItem(this, outcome);
	const outputs = [
		[report],
		scoredItems(items, outcome, results, carried, resultField, usesErrorOutput),
	];
	// The Drift output exists when previous figures are given (outputs/configured.ts).
	if (watching) outputs.push(drift.dropped ? [report] : []);
	return outputs;
}
