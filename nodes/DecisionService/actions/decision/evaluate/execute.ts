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
import { ownValue, type RunAnswer } from '../../../../../src/contract';
import { readAnswer, type ItemAnswer } from '../../../../../src/answer';
import { feedbackText, kindOf, type Kind } from '../../../../../src/kinds';
import {
	checkExpected,
	DEFAULT_TARGET_ACCURACY,
	evaluate,
	evaluationDecisionOf,
	forMachines,
	renderReport,
	summaryOf,
	type EvaluationDecision,
	type ItemOutcome,
	type ScoredItem,
} from '../../../../../src/evaluate';
import { toNodeError } from '../../../errors';
import { createDecisionClient } from '../../../transport';
import { decideAll, prepareItems } from '../decide/execute';
import { failedItemJson } from '../../../pipeline/item-json';
import { slugOf } from '../../../pipeline/input';
import { addHints, newStats } from '../../../pipeline/receipt';
import { answerOf } from '../../../outputs/targets';
import type { EvaluateNodeOptions } from './description';

/** Marks an item that needs no decide (it failed already, or carries its run). */
class NotAsked extends Error {}

/** The answer an earlier Decide (or Review) left on the item, compact or whole (src/answer.ts). */
export function carriedAnswer(
	json: IDataObject,
	field: string,
	decision: EvaluationDecision,
): ItemAnswer | undefined {
	return readAnswer(ownValue(json, field), decision.type, decision.keys);
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
				`This item evaluates "${itemSlug}", the first item "${slug}"; one evaluation measures one decision`,
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
	kind: Kind,
	targets: Array<{ itemIndex: number; runId: string; expected: string[]; machine?: string[] }>,
): Promise<Map<number, boolean>> {
	const sent = new Map<number, boolean>();
	const signal = context.getExecutionCancelSignal();
	await forEachBounded(targets.length, client.maxConcurrency, async (at) => {
		const target = targets[at];
		try {
			await client.sendFeedback(
				target.runId,
				{ feedback: feedbackText(kind, target.expected, target.machine) },
				signal,
			);
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
	const targetAccuracy = this.getNodeParameter(
		'targetAccuracy',
		0,
		DEFAULT_TARGET_ACCURACY,
	) as number;
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
	const kind = kindOf(decision.type);
	if (!kind) {
		throw new NodeOperationError(
			this.getNode(),
			`Decision "${slug}" has a type this node does not know`,
			{
				description: 'Update the package to evaluate it.',
			},
		);
	}
	const readRun = (run: RunAnswer) =>
		readAnswer(run, decision.type, evaluationDecision.keys) as ItemAnswer;

	// 1. Expected answers first: a bad one fails its item before anything is spent.
	const checked = checkAll(this, items, evaluationDecision, slug);
	// 2. Answers the items already carry are scored for free; the others are decided. A run that
	// reached here on several items (a classify item on two outputs, merged) is counted once.
	const carried = items.map((item, itemIndex) =>
		checked.errors[itemIndex]
			? undefined
			: carriedAnswer(item.json, resultField, evaluationDecision),
	);
	const firstWithRun = new Map<string, number>();
	const duplicateOf = new Map<number, number>();
	carried.forEach((answer, itemIndex) => {
		if (!answer) return;
		const first = firstWithRun.get(answer.runId);
		if (first === undefined) firstWithRun.set(answer.runId, itemIndex);
		else duplicateOf.set(itemIndex, first);
	});
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

	// 3. Scored items: the carried answer or the fresh run; failures and repeats stay apart.
	const scored: ScoredItem[] = [];
	const scoredIndexes: number[] = [];
	const failures = new Map<number, Error>();
	items.forEach((_, itemIndex) => {
		const error = checked.errors[itemIndex];
		const result = results[itemIndex];
		if (error) failures.set(itemIndex, error);
		else if (duplicateOf.has(itemIndex)) return;
		else if (carried[itemIndex]) {
			scored.push({ expected: checked.expected[itemIndex], run: carried[itemIndex], charged: 0 });
			scoredIndexes.push(itemIndex);
		} else if (result instanceof Error) failures.set(itemIndex, result);
		else {
			scored.push({ expected: checked.expected[itemIndex], run: readRun(result), charged: 1 });
			scoredIndexes.push(itemIndex);
		}
	});
	const evaluateOptions = {
		targetAccuracy,
		confidenceThreshold: decision.confidence_threshold,
	};
	const { metrics } = evaluate(evaluationDecision, scored, evaluateOptions);
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
			compared.push({ expected: scored[at].expected, run: readRun(run), charged: 1 });
			comparedIndexes.push(itemIndex);
		});
		const other = evaluate(evaluationDecision, compared, evaluateOptions).metrics;
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

	// 5. Send Expected Answers as Feedback: the one encoding (src/kinds.ts feedbackText).
	let feedback: Map<number, boolean> | undefined;
	if (options.sendFeedback) {
		feedback = await sendFeedback(
			this,
			client,
			kind,
			scored.map((item, at) => {
				const expected = item.expected as string | string[];
				return {
					itemIndex: scoredIndexes[at],
					runId: item.run.runId,
					expected: Array.isArray(expected) ? expected : [expected],
					machine: item.run.guess,
				};
			}),
		);
	}

	// 6. The report item (the summary in words, the figures for machines, the HTML page) and the
	// scored items.
	const summary = summaryOf(metrics);
	const html = renderReport(metrics, {
		title: `Evaluation of ${decision.name}`,
		decision: slug,
		generatedAt: new Date().toISOString(),
	});
	const reportJson = {
		summary: [summary.headline, ...summary.sentences].join(' '),
		decision: slug,
		live_version: decision.live_version,
		...(forMachines(metrics) as IDataObject),
		recommended_settings: forMachines({
			minimumConfidence: summary.confidence,
			closeCallGap: summary.closeCallGap,
		}),
		failed_items: [...failures.keys()],
		repeated_runs: [...duplicateOf.keys()],
		...(comparison ? { comparison: forMachines(comparison) } : {}),
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
		const repeatOf = duplicateOf.get(itemIndex);
		const outcome = outcomeByIndex.get(repeatOf ?? itemIndex)!;
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
			...(outcome.guess === undefined
				? {}
				: { guess: outcome.guess, guess_right: outcome.guessRight }),
			confidence: outcome.confidence,
			status: outcome.status,
			charged: repeatOf === undefined ? outcome.charged : 0,
			...(repeatOf === undefined ? {} : { counted_on_item: repeatOf }),
		};
		if (feedback?.has(itemIndex)) json.feedback_sent = feedback.get(itemIndex);
		return { json, pairedItem };
	});

	addHints(this, [
		{ message: summary.headline, type: 'info', location: 'outputPane' },
		...summary.sentences.map((message) => ({
			message,
			type: 'info' as const,
			location: 'outputPane' as const,
		})),
	]);
	return [[report], scoredItems];
}
