/**
 * What an evaluation puts out: the expected answers sent as feedback (when asked), the report item
 * (the summary in words, the figures for machines, the HTML page) and the scored items.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { forEachBounded, type DecisionClient } from '../../../../../src/client';
import type { Decision, RunAnswer } from '../../../../../src/contract';
import { feedbackText, type Kind } from '../../../../../src/answer/kinds';
import {
	forMachines,
	renderReport,
	type Drift,
	type FiguresRow,
	type Cost,
	type Metrics,
	type Summary,
} from '../../../../../src/evaluate';
import { rowAnswerText } from '../../../../../src/answer';
import { answerOf, failedItemJson } from '../../../pipeline/item-json';
import type { BadRow, NotScored, Scoring } from './inputs';
import { ownValue } from '../../../../../src/contract';

/**
 * A row decided here (a row with no stored answer, or one decided again on a version change): the
 * new answer in the row's own columns (src/answer/labeled-row.ts), with the row's Data Table `id`
 * and its `review_id` when it has them, for a Data Table Update (by `id`) or Upsert (by
 * `review_id`) to keep on the row: the next run scores it free, and the next version change pairs
 * it with this answer. Undefined for an item with neither (nothing to key the row on).
 */
function storedRowUpdate(
	item: INodeExecutionData,
	run: RunAnswer,
	scored: {
		status: string;
		predicted?: string | string[];
		guess?: string | string[];
		confidence: number | null;
	},
	version: number | null | undefined,
): IDataObject | undefined {
	const reviewId = ownValue(item.json, 'review_id');
	const id = ownValue(item.json, 'id');
	const hasReviewId = typeof reviewId === 'string' && reviewId !== '';
	const hasId = typeof id === 'number' || (typeof id === 'string' && id !== '');
	if (!hasReviewId && !hasId) return undefined;
	const said = scored.predicted ?? scored.guess;
	return {
		...(hasId ? { id } : {}),
		...(hasReviewId ? { review_id: reviewId } : {}),
		run_id: run.run_id,
		machine_status: scored.status,
		machine_answer:
			said === undefined
				? ''
				: rowAnswerText(Array.isArray(said) ? said : [said], Array.isArray(said)),
		...(scored.confidence === null ? {} : { confidence: scored.confidence }),
		...(version === null || version === undefined ? {} : { version }),
	};
}

/** Sends each scored item's expected answer as feedback on its run (the one encoding of src/answer/kinds.ts). */
export async function sendExpectedAsFeedback(
	context: IExecuteFunctions,
	client: DecisionClient,
	kind: Kind,
	scoring: Scoring,
): Promise<Map<number, boolean>> {
	const sent = new Map<number, boolean>();
	const signal = context.getExecutionCancelSignal();
	await forEachBounded(scoring.scored.length, client.maxConcurrency, async (at) => {
		const item = scoring.scored[at];
		const expected = item.expected as string | string[];
		const feedback = feedbackText(
			kind,
			Array.isArray(expected) ? expected : [expected],
			item.run.guess,
		);
		const itemIndex = scoring.scoredIndexes[at];
		try {
			await client.sendFeedback(item.run.runId, { feedback }, signal);
			sent.set(itemIndex, true);
		} catch {
			sent.set(itemIndex, false);
		}
	});
	return sent;
}

export interface EvaluationOutcome {
	decision: Decision;
	metrics: Metrics;
	summary: Summary;
	scoring: Scoring;
	repeats: ReadonlyMap<number, number>;
	comparison?: IDataObject;
	feedback?: ReadonlyMap<number, boolean>;
	figures: FiguresRow;
	drift: Drift;
	unscored: { badRows: BadRow[]; notScored: NotScored[] };
	cost: Cost;
	/** Rows answered by an earlier version beyond the version-change sample: why not scored. */
	left?: ReadonlyMap<number, string>;
}

/** The report item: the summary, the figures for machines, and the HTML report as binary. */
export async function reportItem(
	context: IExecuteFunctions,
	outcome: EvaluationOutcome,
): Promise<INodeExecutionData> {
	const { decision, metrics, summary, scoring, feedback, comparison, figures, drift, cost } =
		outcome;
	const html = renderReport(metrics, {
		title: `Evaluation of ${decision.name}`,
		decision: decision.slug,
		generatedAt: new Date().toISOString(),
		summary,
		drift,
	});
	const sent = feedback ? [...feedback.values()] : [];
	const json = {
		summary: [summary.headline, ...summary.sentences].join(' '),
		// The change since the previous figures (or the baseline), to send as it is.
		message: drift.message,
		decision: decision.slug,
		live_version: decision.live_version,
		...(forMachines(metrics) as IDataObject),
		recommended_settings: forMachines({
			minimumConfidence: summary.confidence,
			closeCallGap: summary.closeCallGap,
		}),
		// What to do next: each setting, where it is set, its value today, what a change would do.
		advice: forMachines(summary.advice),
		// What this node charged (live and compared decides); `reused`: runs paid upstream.
		units: {
			charged: cost.charged,
			fresh: cost.live,
			reused: cost.upstream,
			...(cost.compared ? { compared: cost.compared.charged } : {}),
			...(cost.mayHaveBeenCharged ? { may_have_been_charged: cost.mayHaveBeenCharged } : {}),
		},
		failed_items: [...scoring.failures.keys()],
		repeated_runs: [...outcome.repeats.keys()],
		// Rows not scored: bad ones, named with what to fix; the others make the run partial.
		bad_rows: outcome.unscored.badRows,
		partial: figures.partial,
		not_scored: outcome.unscored.notScored,
		...(comparison ? { comparison: forMachines(comparison) } : {}),
		// One flat row: what a Data Table stores to compare the next run with.
		figures,
		...(drift.compared || drift.evidence.length
			? { drift: forMachines(driftForMachines(drift)) }
			: {}),
		...(feedback
			? { feedback: { sent: sent.filter(Boolean).length, failed: sent.filter((ok) => !ok).length } }
			: {}),
	} as IDataObject;
	return {
		json,
		binary: {
			data: await context.helpers.prepareBinaryData(
				Buffer.from(html, 'utf8'),
				'evaluation-report.html',
				'text/html',
			),
		},
		pairedItem: scoring.scoredIndexes.map((item) => ({ item })),
	};
}

/** The drift without its message (the report carries it once, as `message`). */
function driftForMachines(drift: Drift): Omit<Drift, 'message' | 'compared'> {
	const copy: Partial<Drift> = { ...drift };
	delete copy.message;
	delete copy.compared;
	return copy as Omit<Drift, 'message' | 'compared'>;
}

/** Every input item with how it was scored, or its error. */
export function scoredItems(
	items: INodeExecutionData[],
	outcome: EvaluationOutcome,
	fresh: ReadonlyArray<RunAnswer | Error>,
	carried: ReadonlyArray<unknown>,
	resultField: string,
	usesErrorOutput: boolean,
): INodeExecutionData[] {
	const byIndex = new Map(outcome.metrics.items.map((each) => [each.index, each]));
	return items.map((item, itemIndex) => {
		const pairedItem = { item: itemIndex };
		const failure = outcome.scoring.failures.get(itemIndex);
		if (failure) return { json: failedItemJson(item, failure, usesErrorOutput), pairedItem };
		const left = outcome.left?.get(itemIndex) ?? outcome.scoring.notReviewed?.get(itemIndex);
		if (left !== undefined)
			return { json: { ...item.json, scored: false, not_scored: left, charged: 0 }, pairedItem };
		const repeatOf = outcome.repeats.get(itemIndex);
		const scored = byIndex.get(repeatOf ?? itemIndex)!;
		// A repeat shows the answer of the item it is counted on (decided once).
		const run = fresh[repeatOf ?? itemIndex];
		const json: IDataObject = {
			...item.json,
			...(carried[itemIndex] || run instanceof Error || run === undefined
				? {}
				: { [resultField]: answerOf(run, false) }),
			right: scored.correct === true,
			answered: scored.answered,
			expected: scored.expected,
			predicted: scored.predicted ?? null,
			...(scored.guess === undefined
				? {}
				: { guess: scored.guess, guess_right: scored.guessRight }),
			confidence: scored.confidence,
			status: scored.status,
			charged: repeatOf === undefined ? scored.charged : 0,
			...(repeatOf === undefined ? {} : { counted_on_item: repeatOf }),
		};
		const update =
			repeatOf === undefined && !carried[itemIndex] && run && !(run instanceof Error)
				? storedRowUpdate(item, run, scored, outcome.decision.live_version)
				: undefined;
		if (update) json.stored_row = update;
		if (outcome.feedback?.has(itemIndex)) json.feedback_sent = outcome.feedback.get(itemIndex);
		return { json, pairedItem };
	});
}
