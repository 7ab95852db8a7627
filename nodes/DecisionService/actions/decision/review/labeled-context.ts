/**
 * What a review row records beside the pick (src/answer/labeled-row.ts): what the decision was
 * asked, the version that answered, the workflow. Read once per submit; nothing here throws.
 */
import type { IWebhookFunctions, INodeExecutionData } from 'n8n-workflow';
import type { DecisionClient } from '../../../../../src/client';
import { ownValue } from '../../../../../src/contract';
import { readAnswer } from '../../../../../src/answer/item-answer';
import type { ReviewStratum } from '../../../../../src/answer/labeled-row';
import { askedInputs, decideSourceOf, resultFieldOf } from './asked';

export interface LabeledContext {
	inputs: Array<string | Record<string, unknown> | undefined>;
	liveVersion?: number;
	resultField: string;
	workflowId?: string;
}

/** Read once per submit; a failure leaves the fields out, the review goes on. */
export async function labeledContext(
	n8n: IWebhookFunctions,
	client: DecisionClient,
	items: INodeExecutionData[],
): Promise<LabeledContext> {
	const context: LabeledContext = { inputs: [], resultField: 'decision' };
	try {
		const source = decideSourceOf(n8n);
		context.resultField = resultFieldOf(source);
		context.workflowId = String(n8n.getWorkflow().id ?? '') || undefined;
		const slug = String(n8n.getNodeParameter('decision', '', { extractValue: true }) ?? '').trim();
		const decision = await client.getDecision(slug);
		context.liveVersion = decision.live_version ?? undefined;
		context.inputs = askedInputs(n8n, items, decision, source);
	} catch {
		// The row simply lacks them.
	}
	return context;
}

/** The version a whole run (Decide's Simplify off) names. */
export function versionOf(item: INodeExecutionData, resultField: string): number | undefined {
	const version = ownValue(ownValue(item.json, resultField), 'version');
	return typeof version === 'number' && Number.isInteger(version) ? version : undefined;
}

/**
 * Why a person saw the item, from the answer Decide wrote on it: `audited` when Audit Share picked
 * it (with its share), `doubtful` when Decide sent it to Uncertain or Pending Review (a close call
 * included); neither for an item that did not come from Decide that way (a failed item, Other).
 */
export function strataOf(
	item: INodeExecutionData,
	resultField: string,
): { stratum?: ReviewStratum; auditShare?: number } {
	const answer = readAnswer(ownValue(item.json, resultField));
	if (!answer) return {};
	if (answer.auditShare !== undefined) return { stratum: 'audited', auditShare: answer.auditShare };
	if (answer.status === 'uncertain' || answer.status === 'pending' || answer.closeCall)
		return { stratum: 'doubtful' };
	return {};
}
