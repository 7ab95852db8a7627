/**
 * Review, first half: check what can be checked before anyone is asked (a secret link, the
 * decision), then put the execution to wait on n8n's own machinery (as its Wait node does), until
 * a person submits the page (webhook.ts) or the time limit passes: n8n then hands the items to the
 * first output, Not Reviewed, without running the node again. While it waits, every output is
 * empty (no wire claims items that have not gone anywhere yet); n8n keeps the input with the
 * execution, and the page is built from it when it is opened, in whichever process serves the link.
 *
 * On a submit, n8n runs this node once more (resume.ts): it puts each item on its output, paired
 * with its own input item, which n8n's pass-through of a resumed node does not.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type ResourceMapperValue,
} from 'n8n-workflow';
import type { Decision } from '../../../../../src/contract';
import { askedOf } from './asked';
import { notReviewedRowOf } from './labeled-context';
import { resumedOutputs } from './resume';
import { toNodeError } from '../../../errors';
import { OUTPUTS_LIST_PARAMETER } from '../../../outputs/list';
import { reviewLayout } from '../../../outputs/layout';
import { createDecisionClient } from '../../../transport';
import { slugOf } from '../../../pipeline/input';
import { runsAsTool } from '../../../pipeline/tool';
import { timeLimitMs, type LinkFormat, type ReviewNodeOptions } from './description';

/** Most items on one page: two form fields each, and n8n reads at most 1000 fields of a form. */
export const MAX_REVIEW_ITEMS = 300;

/** The field each item's review state is written to. */
export const REVIEW_FIELD = 'review';

/** The execution's custom data key that keeps when unreviewed items move on (shown on the page). */
export const REVIEW_UNTIL = 'reviewUntil';

/** n8n 2 adds the execution's secret to its resume URL (`?signature=`); n8n 1 has none. */
function hasSecretLink(resumeUrl: string): boolean {
	try {
		return new URL(resumeUrl).searchParams.has('signature');
	} catch {
		return false;
	}
}

/** "2026-11-30 14:05 UTC" */
function utcMinute(date: Date): string {
	return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What Review posts to Send Link To: `{ text }` for a chat webhook, with details for n8n. */
export function linkMessage(
	format: LinkFormat,
	message: { link: string; items: number; title: string; until: Date; execution: string },
): IDataObject {
	const count = `${message.items} ${message.items === 1 ? 'item needs' : 'items need'}`;
	const text = `${message.title}: ${count} a person’s answer, until ${utcMinute(message.until)}. ${message.link}`;
	if (format !== 'details') return { text };
	return {
		text,
		link: message.link,
		items: message.items,
		title: message.title,
		until: message.until.toISOString(),
		execution: message.execution,
	};
}

/**
 * Posts the review link to the Send Link To webhook, before the execution waits: a link that went
 * nowhere would leave the items waiting for nobody, so a failure fails the node instead. The URL
 * (a Slack webhook's holds its secret) is never written into a message: only its host.
 */
async function sendLink(n8n: IExecuteFunctions, to: string, body: IDataObject): Promise<void> {
	const node = n8n.getNode();
	let url: URL;
	try {
		url = new URL(to);
	} catch {
		url = new URL('invalid:');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw new NodeOperationError(node, 'Send Link To is not a web address', {
			description:
				'Give the webhook URL that should receive the review link, starting with https://.',
		});
	}
	const where = url.host;
	let status: number;
	try {
		const response = (await n8n.helpers.httpRequest({
			method: 'POST',
			url: url.href,
			body,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// The link is the review's secret: never re-posted to wherever a redirect points.
			disableFollowRedirect: true,
			timeout: 15_000,
		})) as { statusCode?: number };
		status = Number(response.statusCode ?? 0);
	} catch (error) {
		throw new NodeOperationError(node, `The review link could not be sent to ${where}`, {
			description: `${error instanceof Error ? error.message.replace(url.href, where) : 'No answer'}. Nothing waits: check Send Link To and run again.`,
		});
	}
	if (status < 200 || status >= 300) {
		throw new NodeOperationError(node, `The review link could not be sent to ${where}`, {
			description: `It answered ${status}. Nothing waits: check Send Link To and run again.`,
		});
	}
}

/**
 * Each waiting item gets, as its `review`, the row of an item nobody reviewed, left at the time
 * limit (labeled-context.ts, notReviewedRowOf): when the limit passes, n8n hands the waiting
 * node's input on to its first output without running the node again (n8n-core 2.41.1
 * workflow-execute.js: handleWaitingState disables the entry it resumes, handleDisabledNode
 * forwards `data.main[0]`), so the input kept with the execution is what Not Reviewed gets. The
 * entry's input is replaced by copies (the items Decide output stay as they were); a submit
 * replaces every item's `review` (webhook.ts), and the page reads past this one (context.ts).
 */
function leftWhenTimeIsUp(
	n8n: IExecuteFunctions,
	items: INodeExecutionData[],
	decision: Decision,
	leftAt: string,
): void {
	const input = typeof n8n.getExecuteData === 'function' ? n8n.getExecuteData().data : undefined;
	if (!input?.main?.length || input.main[0] !== items) return;
	const { asked, resultField } = askedOf(n8n, items, decision);
	const source = { items, decision, asked, resultField, workflowId: workflowIdOf(n8n) };
	const stamp = { leftAt, executionId: n8n.getExecutionId() };
	input.main[0] = items.map((item, index) => ({
		...item,
		json: { ...item.json, [REVIEW_FIELD]: notReviewedRowOf(source, index, stamp) },
	}));
}

/** The workflow a row names; without it the row simply lacks it. */
function workflowIdOf(n8n: IExecuteFunctions): string | undefined {
	try {
		return String(n8n.getWorkflow().id ?? '') || undefined;
	} catch {
		return undefined;
	}
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	if (runsAsTool(this)) {
		throw new NodeOperationError(node, 'Review cannot run as an AI tool', {
			description: 'A review waits for a person; use Decide as the tool.',
		});
	}
	const routes = this.getNodeParameter(OUTPUTS_LIST_PARAMETER, 0) as ResourceMapperValue;
	const layout = reviewLayout(routes.schema ?? []);
	const resumed = resumedOutputs(this, items, layout.count);
	if (resumed) return resumed;
	const outputs: INodeExecutionData[][] = Array.from({ length: layout.count }, () => []);
	if (!items.length) return outputs;

	if (items.length > MAX_REVIEW_ITEMS) {
		throw new NodeOperationError(node, `Review takes at most ${MAX_REVIEW_ITEMS} items at once`, {
			description: `${items.length} items arrived. A page with more is hard to review, and n8n reads at most 1000 form fields. Split them with Loop Over Items (batch size ${MAX_REVIEW_ITEMS} or less) before this node.`,
		});
	}
	const resumeUrl = String(this.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	if (!hasSecretLink(resumeUrl)) {
		throw new NodeOperationError(node, 'Review needs n8n 2.0 or later', {
			description:
				'Its page is served on the execution’s resume link. From n8n 2.0 that link carries a secret; before, it is the execution’s number, which anyone could guess. Update n8n, or handle the Uncertain output with your own steps.',
		});
	}
	const slug = slugOf(this, 0);
	if (!slug) throw new NodeOperationError(node, 'No decision selected');
	let decision: Decision;
	try {
		// The page needs the decision; a wrong slug or key fails now, not when a reviewer opens it.
		decision = await (await createDecisionClient(this)).getDecision(slug);
	} catch (error) {
		throw toNodeError(node, error);
	}
	const decisionName = decision.name || decision.slug;
	const amount = this.getNodeParameter('timeLimit', 0, 24) as number;
	const unit = this.getNodeParameter('timeLimitUnit', 0, 'hours') as string;
	const waitTill = new Date(Date.now() + timeLimitMs(amount, unit));
	const sendTo = String(this.getNodeParameter('sendLinkTo', 0, '') ?? '').trim();
	if (sendTo) {
		// Review hands the link out itself, as n8n's send-and-wait nodes send their message: no
		// other node has to run before this one, wherever it sits on the canvas.
		const options = this.getNodeParameter('options', 0, {}) as ReviewNodeOptions;
		const format = this.getNodeParameter('linkFormat', 0, 'text') as LinkFormat;
		await sendLink(
			this,
			sendTo,
			linkMessage(format, {
				link: resumeUrl,
				items: items.length,
				title: options.title?.trim() || `Review: ${decisionName}`,
				until: waitTill,
				execution: this.getExecutionId(),
			}),
		);
	}
	this.customData.set(REVIEW_UNTIL, waitTill.toISOString());
	leftWhenTimeIsUp(this, items, decision, waitTill.toISOString());
	await this.putExecutionToWait(waitTill);
	// Waiting: no item is on any output yet. n8n draws this run's items on the canvas's wires while
	// the execution waits, and items shown on Not Reviewed said they had gone there; n8n drops this
	// run when it resumes (n8n-core workflow-execute.js `handleWaitingState`), so nothing is lost.
	return outputs;
}
