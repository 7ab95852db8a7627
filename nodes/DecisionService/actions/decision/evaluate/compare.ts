/**
 * Compare With Version: the scored items decided again on a pinned version (one unit each), and
 * where its answers differ from the live version's.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { DecisionClient } from '../../../../../src/client';
import type { ItemAnswer } from '../../../../../src/answer/item-answer';
import type { RunAnswer } from '../../../../../src/contract';
import {
	comparisonSentence,
	evaluate,
	tallyOf,
	type EvaluateOptions,
	type ItemOutcome,
	type Metrics,
	type ScoredItem,
} from '../../../../../src/evaluate';
import { type EvaluationDecision } from '../../../../../src/answer';
import { decideAll } from '../../../pipeline/decide-all';
import { prepareItems } from '../../../pipeline/prepare';
import type { DecideStats } from '../../../pipeline/receipt';
import { NotAsked, type Scoring } from './inputs';

/** Same answer? Label lists compared as sets. */
function samePrediction(a: ItemOutcome['predicted'], b: ItemOutcome['predicted']): boolean {
	const norm = (value: ItemOutcome['predicted']) =>
		Array.isArray(value) ? JSON.stringify([...value].sort()) : JSON.stringify(value ?? null);
	return norm(a) === norm(b);
}

export async function compareWithVersion(
	context: IExecuteFunctions,
	client: DecisionClient,
	version: number,
	inputs: {
		items: INodeExecutionData[];
		scoring: Scoring;
		live: Metrics;
		decision: EvaluationDecision;
		options: EvaluateOptions;
		stats: DecideStats;
		readRun: (run: RunAnswer) => ItemAnswer;
		maxDecides?: number;
		liveVersion?: number | null;
	},
): Promise<IDataObject> {
	const { scored, scoredIndexes } = inputs.scoring;
	const scoredSet = new Set(scoredIndexes);
	const notAsked = new NotAsked('not asked');
	const prepared = await prepareItems(context, inputs.items, client, false, (itemIndex) =>
		scoredSet.has(itemIndex) ? undefined : notAsked,
	);
	const again = await decideAll(
		context,
		client,
		prepared,
		{ version, maxDecides: inputs.maxDecides },
		inputs.stats,
	);
	const compared: ScoredItem[] = [];
	const comparedIndexes: number[] = [];
	scoredIndexes.forEach((itemIndex, at) => {
		const run = again[itemIndex];
		if (run instanceof Error || run === undefined) return;
		compared.push({ expected: scored[at].expected, run: inputs.readRun(run), charged: 1 });
		comparedIndexes.push(itemIndex);
	});
	const other = evaluate(inputs.decision, compared, inputs.options).metrics;
	const liveByIndex = new Map(inputs.live.items.map((outcome) => [outcome.index, outcome]));
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
	const live = tallyOf(inputs.live, inputs.liveVersion ?? null, new Set(comparedIndexes));
	const pinned = tallyOf(other, version);
	return {
		summary: comparisonSentence(live, pinned, compared.length),
		version,
		live_version: inputs.liveVersion ?? null,
		right: pinned.right,
		wrong: pinned.wrong,
		unanswered: pinned.unanswered,
		live_right: live.right,
		live_wrong: live.wrong,
		live_unanswered: live.unanswered,
		compared: compared.length,
		failed: scoredIndexes.length - compared.length,
		accuracy: other.accuracy,
		coverage: other.coverage,
		disagreements: disagreements.length,
		items: disagreements,
	} as IDataObject;
}
