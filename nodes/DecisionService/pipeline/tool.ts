/**
 * Decide as an AI-agent tool. n8n hands the agent only the items of output 0 (n8n-core's
 * get-input-connection-data.ts, `mapResult`; the agent's engine-request path reads `ai_tool[0]`
 * too), so a tool call answers on one output whatever the Output setting: the compact answer for
 * each item, or a short text saying what went wrong and what to do. Failures are answers, not
 * thrown errors, so every kind of agent reads them the same way.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { RunAnswer } from '../../../src/contract';
import { answerOf } from './item-json';

/** Longest error text handed to an agent: enough for the message and the hint, short enough for a prompt. */
const MAX_ERROR_TEXT = 600;

/**
 * Whether this execution is a tool call: n8n-core says so when it calls the node through an
 * agent's tool (`isToolExecution`, absent before n8n 1.9x); the node's type is the tool variant
 * (`…decisionServiceTool`) on every path, including an agent's engine requests.
 */
export function runsAsTool(n8n: IExecuteFunctions): boolean {
	const asks = (n8n as Partial<Pick<IExecuteFunctions, 'isToolExecution'>>).isToolExecution;
	if (typeof asks === 'function' && asks.call(n8n) === true) return true;
	return n8n.getNode().type.endsWith('Tool');
}

/** What an agent reads after a call: the answer, and a plain note when it is not a final one. */
export function toolAnswer(run: RunAnswer): IDataObject {
	const answer = answerOf(run, true);
	if (run.status === 'pending') {
		answer.note =
			'Sent to human review: the answer is not known yet. Tell the user it is being reviewed (review_url).';
	} else if (run.status === 'uncertain') {
		answer.note =
			"The service is not confident enough (confidence below the decision's threshold): treat the answer as a guess or ask for more detail.";
	}
	return answer;
}

/** An error as one line an agent can act on: what happened, then what to do (the node's hint). */
export function toolErrorText(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	const description = (error as { description?: unknown }).description;
	const hint = typeof description === 'string' ? description.trim() : '';
	// Item numbers mean nothing to an agent: a tool call is one input.
	const text = [message.replace(/^Item \d+: /, '').trim(), hint]
		.filter((part) => part !== '')
		.join(' ');
	return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT - 1)}…` : text;
}

/**
 * The tool's one output: an answer or an error text per item, paired with its input. When the
 * decide fails as a whole (no continue-on-fail: n8n stops at the first failure), every item of
 * the call reads that failure; a tool call carries one item.
 */
export async function answerToolCall(
	items: INodeExecutionData[],
	decideEach: () => Promise<Array<RunAnswer | Error>>,
): Promise<INodeExecutionData[][]> {
	let results: Array<RunAnswer | Error>;
	try {
		results = await decideEach();
	} catch (error) {
		const text = toolErrorText(error);
		return [
			items.map((_item, itemIndex) => ({ json: { error: text }, pairedItem: { item: itemIndex } })),
		];
	}
	return [
		results.map((result, itemIndex) => ({
			json: result instanceof Error ? { error: toolErrorText(result) } : toolAnswer(result),
			pairedItem: { item: itemIndex },
		})),
	];
}
