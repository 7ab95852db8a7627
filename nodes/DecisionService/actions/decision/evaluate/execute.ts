/**
 * Evaluate: labeled items in, a report and the scored items out. Every expected answer is checked
 * against the decision before any decide (a bad one fails its item, nothing charged); items that
 * carry an answer from Decide or Review are scored from it (charged 0, a run counted once), a
 * review stored twice is counted once; the others are decided through the shared pipeline (local
 * validation, rate gate, retries, the answer memo: nothing charged twice). No row stops it: bad
 * rows are named, rows the cap or the service left unscored make the report partial. The figures
 * are src/evaluate's `evaluate` (docs/evaluate.md). `execute` reads as its steps: read (read.ts) →
 * check → plan → decide → score → compare → output (notices.ts, watch.ts, output.ts).
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { ownValue } from '../../../../../src/contract';
import { evaluate, readFiguresRow } from '../../../../../src/evaluate';
import { decideAll } from '../../../pipeline/decide-all';
import { prepareItems } from '../../../pipeline/prepare';
import { newStats } from '../../../pipeline/receipt';
import { compareWithVersion } from './compare';
import {
	NotAsked,
	carriedAnswer,
	checkAll,
	notReviewedCells,
	planStored,
	type Checked,
	repeatsOf,
	reviewIdsOf,
	scoreItems,
	unscoredOf,
} from './inputs';
import { reportItem, scoredItems, sendExpectedAsFeedback } from './output';
import { costOf, summaryNotices } from './notices';
import { readRun, type Run } from './read';
import { figuresAndDrift, leftOutWords } from './watch';

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

/**
 * The memory of version changes: the last full figures (Compare With Previous Figures) were on
 * the live version, so a change to it was met and tested at that run; rows still answered by
 * another version are not paid for again. Undefined when there are no such figures.
 */
function changeTested(run: Run): { at: string | null } | undefined {
	if (run.options.previousFigures === undefined || run.liveVersion === null) return undefined;
	const previous = readFiguresRow(run.options.previousFigures);
	if (!previous || previous.live_version !== run.liveVersion) return undefined;
	const at = previous.evaluated_at;
	return { at: at ? `${at.slice(0, 16).replace('T', ' ')} UTC` : null };
}

/**
 * Step 3, plan: answers the items carry are scored for free (a run once); stored review rows keep
 * the answer of the version that made it: free while it is live; on a version change only the most
 * recent rows are decided again (a bounded cost). The rest is decided.
 */
export function planRows(items: INodeExecutionData[], checked: Checked, run: Run) {
	const itemCarried = items.map((item, itemIndex) =>
		checked.errors[itemIndex]
			? undefined
			: carriedAnswer(item.json, run.resultField, run.evaluationDecision),
	);
	const plan = planStored(
		items,
		checked,
		itemCarried,
		run.evaluationDecision,
		run.liveVersion,
		run.options.versionChangeSample ?? 200,
		changeTested(run),
	);
	const repeats = repeatsOf(plan.carried, reviewIdsOf(items, checked));
	return { plan, carried: plan.carried, repeats };
}
type Planned = ReturnType<typeof planRows>;

/**
 * Step 4, decide: the rows left, through the shared pipeline (local validation, rate gate,
 * retries, the answer memo: nothing charged twice); a row that fails, fails alone.
 */
async function decideRest(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	run: Run,
	checked: Checked,
	{ plan, carried, repeats }: Planned,
) {
	const notAsked = new NotAsked('not asked');
	const stats = newStats();
	const pipeline = goingOn(context);
	const prepared = await prepareItems(
		pipeline,
		items,
		run.client,
		run.options.validateInput !== false,
		(itemIndex) =>
			checked.errors[itemIndex] ??
			(carried[itemIndex] || repeats.has(itemIndex) || plan.left.has(itemIndex)
				? notAsked
				: undefined),
	);
	const maxDecides = run.options.maxDecides ?? 0;
	const results = await decideAll(pipeline, run.client, prepared, { maxDecides }, stats);
	return { notAsked, stats, pipeline, prepared, maxDecides, results, liveCharged: stats.charged };
}
type Decided = Awaited<ReturnType<typeof decideRest>>;

/** Step 5, score: the figures over the scored items; outcomes name the input item. */
export function scoreRows(
	items: INodeExecutionData[],
	run: Run,
	checked: Checked,
	planned: Planned,
	decided: Decided,
) {
	const { carried, repeats, plan } = planned;
	const scoring = scoreItems(
		items.length,
		checked,
		carried,
		repeats,
		decided.results,
		run.readRun,
		plan.left,
	);
	// The run a person reviewed, as a stored row says: rows only from doubtful runs are the hard
	// cases. Why a person saw it (`stratum`, `audit_share`: the row's own cells, untrusted) weighs
	// the row in the accuracy over all traffic.
	scoring.scored.forEach((scored, at) => {
		const json = items[scoring.scoredIndexes[at]].json;
		scored.reviewedFrom = json.machine_status;
		scored.stratum = ownValue(json, 'stratum');
		scored.auditShare = ownValue(json, 'audit_share');
	});
	const evaluateOptions = {
		targetAccuracy: run.targetAccuracy,
		confidenceThreshold: run.decision.confidence_threshold,
		notReviewed: notReviewedCells(items, checked, scoring),
	};
	const { metrics } = evaluate(run.evaluationDecision, scoring.scored, evaluateOptions);
	for (const outcome of metrics.items) outcome.index = scoring.scoredIndexes[outcome.index];
	// Why the rest was not scored: bad rows (named, to fix), rows left unscored (a partial run).
	const unscored = unscoredOf(items, scoring.failures, checked, decided.prepared, decided.notAsked);
	return { scoring, evaluateOptions, metrics, unscored };
}
type Scored = ReturnType<typeof scoreRows>;

/** Step 6, compare: Compare With Version and Send Expected Answers as Feedback, when asked. */
async function compareAndSend(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	run: Run,
	decided: Decided,
	{ scoring, metrics, evaluateOptions }: Scored,
) {
	const { options } = run;
	const comparison =
		options.compareVersion && options.compareVersion > 0
			? await compareWithVersion(decided.pipeline, run.client, options.compareVersion, {
					items,
					scoring,
					live: metrics,
					decision: run.evaluationDecision,
					options: evaluateOptions,
					stats: decided.stats,
					readRun: run.readRun,
					maxDecides: decided.maxDecides,
					liveVersion: run.liveVersion,
				})
			: undefined;
	const feedback = options.sendFeedback
		? await sendExpectedAsFeedback(context, run.client, run.kind, scoring)
		: undefined;
	return { comparison, feedback };
}

/**
 * Step 7, output: the summary as notices, the figures and their drift, the report item, the
 * scored items and (when previous figures are given) the Drift output.
 */
async function outputsOf(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	run: Run,
	{ plan, carried, repeats }: Planned,
	decided: Decided,
	{ scoring, metrics, unscored, evaluateOptions }: Scored,
	{ comparison, feedback }: Awaited<ReturnType<typeof compareAndSend>>,
): Promise<INodeExecutionData[][]> {
	const compared = comparison ? run.options.compareVersion : undefined;
	const cost = costOf(metrics, decided.stats, decided.liveCharged, compared);
	const { summary, said } = summaryNotices(context, metrics, unscored, cost, [
		leftOutWords(plan, run.liveVersion),
	]);
	const { figures, drift, watching } = figuresAndDrift({
		items,
		decision: run.decision,
		evaluationDecision: run.evaluationDecision,
		options: run.options,
		plan,
		scoring,
		metrics,
		evaluateOptions,
		summary,
		cost,
		charged: { total: decided.stats.charged, live: decided.liveCharged },
		unscored: { badRows: unscored.badRows.length, notScored: unscored.notScored.length },
		said,
	});
	const outcome = {
		decision: run.decision,
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
	const usesErrorOutput = context.getNode().onError === 'continueErrorOutput';
	const report = await reportItem(context, outcome);
	const outputs = [
		[report],
		scoredItems(items, outcome, decided.results, carried, run.resultField, usesErrorOutput),
	];
	// The Drift output exists when previous figures are given (outputs/plan.ts).
	if (watching) outputs.push(drift.dropped ? [report] : []);
	return outputs;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const run = await readRun(this);
	// Step 2, check: expected answers first; a bad one fails its item before anything is spent.
	const checked = checkAll(this, items, run.evaluationDecision, run.slug);
	const planned = planRows(items, checked, run);
	const decided = await decideRest(this, items, run, checked, planned);
	const scored = scoreRows(items, run, checked, planned, decided);
	const compared = await compareAndSend(this, items, run, decided, scored);
	return await outputsOf(this, items, run, planned, decided, scored, compared);
}
