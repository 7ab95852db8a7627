/**
 * Evaluate's first step: the node's options and the decision evaluated, read fresh (a report is
 * about the decision as it is now), with what the later steps need of it.
 */
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import type { DecisionClient } from '../../../../../src/client';
import type { RunAnswer } from '../../../../../src/contract';
import { readAnswer, type ItemAnswer } from '../../../../../src/answer/item-answer';
import { kindOf } from '../../../../../src/answer/kinds';
import { DEFAULT_TARGET_ACCURACY } from '../../../../../src/evaluate';
import { evaluationDecisionOf } from '../../../../../src/answer';
import { toNodeError } from '../../../errors';
import { createDecisionClient } from '../../../transport';
import { slugOf } from '../../../pipeline/input';
import type { EvaluateNodeOptions } from './description';

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

/** Step 1, read: the node's options and the decision evaluated (read fresh). */
export async function readRun(context: IExecuteFunctions) {
	const options = context.getNodeParameter('evaluateOptions', 0, {}) as EvaluateNodeOptions;
	const targetAccuracy = context.getNodeParameter(
		'targetAccuracy',
		0,
		DEFAULT_TARGET_ACCURACY,
	) as number;
	const resultField = options.resultField?.trim() || 'decision';
	const client = await createDecisionClient(context, {
		timeoutMs: (options.timeout ?? 15) * 1000,
	});
	const read = await decisionToEvaluate(context, client);
	const readRun = (run: RunAnswer) =>
		readAnswer(run, read.decision.type, read.evaluationDecision.keys) as ItemAnswer;
	const liveVersion = read.decision.live_version ?? null;
	return { ...read, options, targetAccuracy, resultField, client, readRun, liveVersion };
}
export type Run = Awaited<ReturnType<typeof readRun>>;
