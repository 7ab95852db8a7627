/**
 * Evaluate: labeled items in, a report and the scored items out. Every expected answer is checked
 * against the decision before any decide (a bad one fails its item, nothing charged); items that
 * carry a run from an earlier Decide are scored from it (charged 0); the others are decided through
 * Decide's own path (local validation, rate gate, retries, the answer memo: nothing charged twice).
 * The figures are src/evaluate's `evaluate`; the page is its `renderReport` (docs/evaluate.md).
 * Over 200 lines: the operation's steps in order, each short; the helpers below keep them apart.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { forEachBounded, type DecisionClient } from '../../../../../src/client';
import { jsonCopy, ownValue, type RunAnswer } from '../../../../../src/contract';
import {
	checkExpected,
	evaluate,
	evaluationDecisionOf,
	renderReport,
	type EvaluationDecision,
	type ItemOutcome,
	type ScoredItem,
} from '../../../../../src/evaluate';
import { toNodeError } from '../../../errors';
import { createDecisionClient } from '../../../transport';
import { decideAll, prepareItems } from '../decide/execute';
import { failedItemJson } from '../decide/failed-item';
import { slugOf } from '../decide/input';
import { addHints, newStats } from '../decide/receipt';
import { answerOf } from '../decide/routing';
import type { EvaluateNodeOptions } from './description';

/** Marks an item that needs no decide (it failed already, or carries its run). */
class NotAsked extends Error {}

/** A run an earlier Decide left on the item (its result field, with a run ID and a status). */
export function carriedRun(json: IDataObject, field: string): RunAnswer | undefined {
	const value = ownValue(json, field);
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
	const runId = ownValue(value, 'run_id');
	const status = ownValue(value, 'status');
	if (typeof runId !== 'string' || runId === '' || typeof status !== 'string') return undefined;
	return value as unknown as RunAnswer;
}

/** An expected answer as feedback text: the key, the level label, or the labels joined. */
function feedbackText(expected: string | string[]): string {
	return Array.isArray(expected) ? expected.join(', ') || 'no label' : expected;
}

/** Same answer? Label lists compared as sets. */
function samePrediction(a: ItemOutcome['predicted'], b: ItemOutcome['predicted']): boolean {
	const norm = (value: ItemOutcome['predicted']) =>
		Array.isArray(value) ? JSON.stringify([...value].sort()) : JSON.stringify(value ?? null);
	return norm(a) === norm(b);
}

interface Checked {
	expected: Array<string | string[] | undefined>;
	errors: Array<Error | undefined>;
}

/** Every item's expected answer checked before any decide; one evaluation measures one decision. */
function checkAll(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	decision: EvaluationDecision,
	slug: string,
): Checked {
	const continueOnFail = context.continueOnFail();
	const checked: Checked = { expected: [], errors: [] };
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		let error: NodeOperationError | undefined;
		const itemSlug = slugOf(context, itemIndex);
		if (itemSlug !== slug) {
			error = new NodeOperationError(
				context.getNode(),
				`Item ${itemIndex}: evaluates "${itemSlug}", the first item "${slug}"; one evaluation measures one decision`,
				{ itemIndex, description: 'Nothing was sent for this item, so nothing was charged.' },
			);
		} else {
			const raw = context.getNodeParameter('expected', itemIndex, undefined) as unknown;
			const result = checkExpected(decision, raw, itemIndex);
			if (result.ok) checked.expected[itemIndex] = result.value;
			else
				error = new NodeOperationError(context.getNode(), result.problem.message, {
					itemIndex,
					description:
						'Set Expected Answer to the key the item should get. Nothing was sent for this item, so nothing was charged.',
				});
		}
		if (error && !continueOnFail) throw error;
		checked.errors[itemIndex] = error;
	}
	return checked;
}

/** Sends each expected answer as feedback on its run; returns whether each was accepted. */
async function sendFeedback(
	context: IExecuteFunctions,
	client: DecisionClient,
	targets: Array<{ itemIndex: number; runId: string; expected: string | string[] }>,
): Promise<Map<number, boolean>> {
	const sent = new Map<number, boolean>();
	const signal = context.getExecutionCancelSignal();
	await forEachBounded(targets.length, client.maxConcurrency, async (at) => {
		const target = targets[at];
		try {
			await client.sendFeedback(target.runId, { feedback: feedbackText(target.expected) }, signal);
			sent.set(target.itemIndex, true);
		} catch {
			sent.set(target.itemIndex, false);
		}
	});
	return sent;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('evaluateOptions', 0, {}) as EvaluateNodeOptions;
	const targetAccuracy = this.getNodeParameter('targetAccuracy', 0, 0.9) as number;
	const resultField = options.resultField?.trim() || 'decision';
	const usesErrorOutput = this.getNode().onError === 'continueErrorOutput';
	const client = await createDecisionClient(this, { timeoutMs: (options.timeout ?? 15) * 1000 });
	const slug = slugOf(this, 0);
	if (!slug) throw new NodeOperationError(this.getNode(), 'No decision selected');
	let decision;
	try {
		// Fresh (a report is about the decision as it is now), and kept for the input checks below,
		// so the execution reads it once.
		decision = await client.recentDecision(slug, true).decision;
	} catch (error) {
		throw toNodeError(this.getNode(), error, 0);
	}
	const evaluationDecision = evaluationDecisionOf(decision);

	// 1. Expected answers first: a bad one fails its item before anything is spent.
	const checked = checkAll(this, items, evaluationDecision, slug);
	// 2. Runs the items already carry are scored for free; the others are decided.
	const carried = items.map((item, itemIndex) =>
		checked.errors[itemIndex] ? undefined : carriedRun(item.json, resultField),
	);
	const notAsked = new NotAsked('not asked');
	const stats = newStats();
	const prepared = await prepareItems(
		this,
		items,
		client,
		options.validateInput !== false,
		(itemIndex) => checked.errors[itemIndex] ?? (carried[itemIndex] ? notAsked : undefined),
	);
	const results = await decideAll(this, client, prepared, {}, stats);

	// 3. Scored items: the carried run or the fresh one; failures stay apart.
	const scored: ScoredItem[] = [];
	const scoredIndexes: number[] = [];
	const scoredRuns: RunAnswer[] = [];
	const failures = new Map<number, Error>();
	items.forEach((_, itemIndex) => {
		const error = checked.errors[itemIndex];
		const result = carried[itemIndex] ?? results[itemIndex];
		if (error) failures.set(itemIndex, error);
		else if (result instanceof Error) failures.set(itemIndex, result);
		else {
			scored.push({
				expected: checked.expected[itemIndex],
				run: result,
				charged: carried[itemIndex] ? 0 : 1,
			});
			scoredIndexes.push(itemIndex);
			scoredRuns.push(result);
		}
	});
	const { metrics } = evaluate(evaluationDecision, scored, { targetAccuracy });
	// Outcomes name the input item, not the position among scored items.
	for (const outcome of metrics.items) outcome.index = scoredIndexes[outcome.index];

	// 4. Compare With Version: the same items on a pinned version, and where the answers differ.
	let comparison: IDataObject | undefined;
	if (options.compareVersion && options.compareVersion > 0) {
		const version = options.compareVersion;
		const scoredSet = new Set(scoredIndexes);
		const againPrepared = await prepareItems(this, items, client, false, (itemIndex) =>
			scoredSet.has(itemIndex) ? undefined : notAsked,
		);
		const again = await decideAll(this, client, againPrepared, { version }, stats);
		const compared: ScoredItem[] = [];
		const comparedIndexes: number[] = [];
		scoredIndexes.forEach((itemIndex, at) => {
			const run = again[itemIndex];
			if (run instanceof Error || run === undefined) return;
			compared.push({ expected: scored[at].expected, run, charged: 1 });
			comparedIndexes.push(itemIndex);
		});
		const other = evaluate(evaluationDecision, compared, { targetAccuracy }).metrics;
		const liveByIndex = new Map(metrics.items.map((outcome) => [outcome.index, outcome]));
		const disagreements = other.items.flatMap((outcome, at) => {
			const itemIndex = comparedIndexes[at];
			const live = liveByIndex.get(itemIndex);
			if (!live || samePrediction(live.predicted, outcome.predicted)) return [];
			return [
				{
					item: itemIndex,
					expected: outcome.expected,
					live: live.predicted ?? live.status,
					[`version_${version}`]: outcome.predicted ?? outcome.status,
				},
			];
		});
		comparison = {
			version,
			compared: compared.length,
			failed: scoredIndexes.length - compared.length,
			accuracy: other.accuracy,
			coverage: other.coverage,
			disagreements: disagreements.length,
			items: disagreements,
		} as IDataObject;
	}

	// 5. Send Expected Answers as Feedback.
	let feedback: Map<number, boolean> | undefined;
	if (options.sendFeedback) {
		feedback = await sendFeedback(
			this,
			client,
			scored.flatMap((item, at) =>
				typeof scoredRuns[at].run_id === 'string'
					? [
							{
								itemIndex: scoredIndexes[at],
								runId: scoredRuns[at].run_id,
								expected: item.expected as string | string[],
							},
						]
					: [],
			),
		);
	}

	// 6. The report item (metrics and the HTML page) and the scored items.
	const html = renderReport(metrics, {
		title: `Evaluation of ${decision.name}`,
		decision: slug,
		generatedAt: new Date().toISOString(),
	});
	const reportJson = {
		decision: slug,
		live_version: decision.live_version,
		...jsonCopy(metrics as unknown as IDataObject),
		failed_items: [...failures.keys()],
		...(comparison ? { comparison } : {}),
		...(feedback
			? {
					feedback: {
						sent: [...feedback.values()].filter(Boolean).length,
						failed: [...feedback.values()].filter((ok) => !ok).length,
					},
				}
			: {}),
	} as IDataObject;
	const report: INodeExecutionData = {
		json: reportJson,
		binary: {
			data: await this.helpers.prepareBinaryData(
				Buffer.from(html, 'utf8'),
				'evaluation-report.html',
				'text/html',
			),
		},
		pairedItem: scoredIndexes.map((item) => ({ item })),
	};
	const outcomeByIndex = new Map(metrics.items.map((outcome) => [outcome.index, outcome]));
	const scoredItems: INodeExecutionData[] = items.map((item, itemIndex) => {
		const pairedItem = { item: itemIndex };
		const failure = failures.get(itemIndex);
		if (failure) return { json: failedItemJson(item, failure, usesErrorOutput), pairedItem };
		const outcome = outcomeByIndex.get(itemIndex)!;
		const fresh = results[itemIndex];
		const json: IDataObject = {
			...item.json,
			...(carried[itemIndex] || fresh instanceof Error || fresh === undefined
				? {}
				: { [resultField]: answerOf(fresh, false) }),
			right: outcome.correct === true,
			answered: outcome.answered,
			expected: outcome.expected,
			predicted: outcome.predicted ?? null,
			confidence: outcome.confidence,
			status: outcome.status,
			charged: outcome.charged,
		};
		if (feedback?.has(itemIndex)) json.feedback_sent = feedback.get(itemIndex);
		return { json, pairedItem };
	});

	const reused = scored.filter((item) => item.charged === 0).length;
	addHints(this, [
		{
			message: `Evaluated ${scored.length} items: charged ${stats.charged} units (${scored.length - reused} decided, ${reused} scored from runs they carried, free)${failures.size ? `; ${failures.size} failed` : ''}.`,
			type: 'info',
			location: 'outputPane',
		},
	]);
	return [[report], scoredItems];
}
