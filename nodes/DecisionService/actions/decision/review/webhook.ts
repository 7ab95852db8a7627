/**
 * Review, second half: the page on the execution's resume link. n8n checks the link's secret before
 * this runs (n8n 2: `?signature=`; execute.ts refuses to wait without one). GET shows the page;
 * POST takes the picks, sends each reviewed run's feedback to the service, answers with a thank-you
 * page and hands n8n the items on their outputs, which resumes the execution there.
 *
 * Nothing here may throw: n8n marks the whole execution failed when a waiting node's webhook does.
 * A refused submission shows the page again with the reason, and the execution keeps waiting.
 */
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
	ResourceMapperValue,
} from 'n8n-workflow';
import {
	agreedWith,
	feedbackFor,
	parseReviewSubmission,
	renderReviewClosed,
	renderReviewDone,
	renderReviewPage,
	type ReviewPage,
	type ReviewPick,
} from '../../../../../src/review';
import { decisionKeys, OUTPUTS_LIST_PARAMETER } from '../../../outputs/list';
import { reviewLayout } from '../../../outputs/layout';
import { BoundedCache, type DecisionClient } from '../../../../../src/client';
import { createDecisionClient } from '../../../transport';
import { reviewRow } from '../../../../../src/answer/labeled-row';
import { itemPerTarget, pickTargets } from '../../../outputs/targets';
import { askedInputs, decideSourceOf, resultFieldOf } from './asked';
import { labeledContext, strataOf, versionOf } from './labeled-context';
import type { ReviewNodeOptions } from './description';
import { REVIEW_FIELD, REVIEW_UNTIL } from './execute';
import { routeOnResume } from './resume';
import { reviewAnswers, reviewPageOf } from './page-data';

/** Most executions remembered; n8n's own refusal covers older ones (they resumed long ago). */
const SUBMITTED_KEPT = 10_000;

/**
 * Executions whose review was submitted in this process. n8n refuses a link once its execution
 * resumed; this closes the moment between a submit and that (two taps on Submit).
 */
const submitted = new BoundedCache<string, true>({ maxEntries: SUBMITTED_KEPT, ttlMs: Infinity });

function markSubmitted(executionId: string): void {
	submitted.set(executionId, true);
}

type Response = ReturnType<IWebhookFunctions['getResponseObject']>;

function sendHtml(res: Response, status: number, html: string): IWebhookResponseData {
	res.status(status);
	res.setHeader('Content-Type', 'text/html; charset=utf-8');
	// The page holds item data: never cached, never framed, the link never sent on as a referrer.
	res.setHeader('Cache-Control', 'no-store');
	res.setHeader('X-Frame-Options', 'DENY');
	res.setHeader('Referrer-Policy', 'no-referrer');
	res.setHeader(
		'Content-Security-Policy',
		"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	);
	res.end(html);
	return { noWebhookResponse: true };
}

/**
 * The items waiting here: n8n keeps the waiting node's input with the execution and hands it to
 * the webhook's expressions as `$input`.
 */
function waitingItems(n8n: IWebhookFunctions): INodeExecutionData[] {
	const items = n8n.evaluateExpression('{{ $input.all() }}', 0);
	if (!Array.isArray(items)) return [];
	return (items as INodeExecutionData[]).map((item) => ({ json: item.json, binary: item.binary }));
}

/**
 * When the items left for later move on (execute.ts keeps it in the execution's custom data), read
 * from the context: n8n 2 evaluates expressions in an isolate, where `$execution.customData.get()`
 * answers undefined, so the page said nothing of the time limit.
 */
export function reviewUntil(n8n: IWebhookFunctions): string | undefined {
	try {
		const until: unknown = n8n.customData?.get(REVIEW_UNTIL);
		return typeof until === 'string' && until ? until : undefined;
	} catch {
		// No execution data in this context: the page simply does not name the time.
		return undefined;
	}
}

/** The page, built from the items and the node's saved parameters (see review/asked.ts). */
async function pageFor(
	n8n: IWebhookFunctions,
	client: DecisionClient,
	items: INodeExecutionData[],
): Promise<ReviewPage> {
	const slug = String(n8n.getNodeParameter('decision', '', { extractValue: true }) ?? '').trim();
	const decision = await client.getDecision(slug);
	const routes = n8n.getNodeParameter(OUTPUTS_LIST_PARAMETER) as ResourceMapperValue;
	const options = n8n.getNodeParameter('options', {}) as ReviewNodeOptions;
	const source = decideSourceOf(n8n);
	return reviewPageOf({
		items,
		asked: askedInputs(n8n, items, decision, source),
		decision,
		answers: reviewAnswers(routes.schema ?? [], routes.value, decisionKeys(decision)),
		resultField: resultFieldOf(source),
		title: options.title,
		instructions: options.instructions,
		showPersonalData: options.showPersonalData === true,
		expiresAt: reviewUntil(n8n),
	});
}

/** An item as it came in, with `review` saying what became of it. */
function itemWith(
	item: INodeExecutionData,
	index: number,
	review: IDataObject,
): INodeExecutionData {
	return {
		json: { ...item.json, [REVIEW_FIELD]: review },
		binary: item.binary,
		pairedItem: { item: index },
	};
}

async function sendFeedback(
	client: DecisionClient,
	page: ReviewPage,
	picks: ReviewPick[],
): Promise<Map<number, IDataObject>> {
	const results = new Map<number, IDataObject>();
	const withRun = picks.filter((pick) => page.items[pick.index]?.runId);
	for (const pick of withRun) {
		const item = page.items[pick.index];
		const feedback = feedbackFor(item, pick, page.decision.type);
		try {
			await client.sendFeedback(item.runId!, feedback);
			results.set(pick.index, { sent: true, value: feedback.feedback });
		} catch (error) {
			results.set(pick.index, { sent: false, value: feedback.feedback, error: messageOf(error) });
		}
	}
	return results;
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** The service unreachable, the decision gone: the execution keeps waiting; say so. */
function cannotShow(res: Response, error: unknown): IWebhookResponseData {
	return sendHtml(
		res,
		503,
		renderReviewClosed(
			`The review cannot be shown right now (${messageOf(error)}). Try the link again later.`,
		),
	);
}

export async function webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	try {
		return await answer(this, res);
	} catch (error) {
		return cannotShow(res, error);
	}
}

async function answer(n8n: IWebhookFunctions, res: Response): Promise<IWebhookResponseData> {
	const method = n8n.getRequestObject().method;
	const executionId = n8n.getExecutionId();
	if (submitted.has(executionId)) {
		return sendHtml(res, 410, renderReviewClosed('This review was already submitted.'));
	}
	const items = waitingItems(n8n);
	if (method !== 'POST') {
		const client = await createDecisionClient(n8n);
		return sendHtml(res, 200, renderReviewPage(await pageFor(n8n, client, items)));
	}

	// Claimed before the first await: of two posts at once (a double tap), one goes on, the other
	// is told it was submitted; released again if this one is refused.
	markSubmitted(executionId);
	let client: DecisionClient;
	let page: ReviewPage;
	let parsed: ReturnType<typeof parseReviewSubmission>;
	const body = n8n.getBodyData();
	try {
		// One client for the submit: the page's decision, then the feedback.
		client = await createDecisionClient(n8n);
		page = await pageFor(n8n, client, items);
		parsed = parseReviewSubmission(body, page);
	} catch (error) {
		submitted.delete(executionId);
		return cannotShow(res, error);
	}
	if ('error' in parsed) {
		submitted.delete(executionId);
		// Shown again with what the person picked, so one mistake does not lose the rest.
		return sendHtml(res, 400, renderReviewPage(page, { error: parsed.error, submitted: body }));
	}

	const routes = n8n.getNodeParameter(OUTPUTS_LIST_PARAMETER) as ResourceMapperValue;
	const layout = reviewLayout(routes.schema ?? []);
	const outputs: INodeExecutionData[][] = Array.from({ length: layout.count }, () => []);
	const picks = new Map(parsed.picks.map((pick) => [pick.index, pick]));
	const feedback = await sendFeedback(client, page, parsed.picks);
	const labeled = await labeledContext(n8n, client, items);
	const reviewedAt = new Date().toISOString();
	items.forEach((item, index) => {
		const pick = picks.get(index);
		if (!pick) {
			for (const target of pickTargets(undefined, layout))
				outputs[target].push(itemWith(item, index, { status: 'not_reviewed' }));
			return;
		}
		const shown = page.items[index];
		const machine = shown?.machineAnswer ?? [];
		const sent = feedback.get(index);
		// One flat row (src/answer/labeled-row.ts): n8n's Data Table node stores it as it is.
		const review: IDataObject = reviewRow({
			picked: pick.keys,
			labels: page.decision.type === 'classify',
			agreed: agreedWith(shown, pick),
			note: pick.note,
			feedback: sent,
			decision: page.decision.slug,
			version: versionOf(item, labeled.resultField) ?? labeled.liveVersion,
			runId: shown?.runId,
			machineStatus: shown?.status,
			machineAnswer: machine,
			confidence: shown?.confidence,
			...strataOf(item, labeled.resultField),
			input: labeled.inputs[index],
			reviewedAt,
			executionId,
			workflowId: labeled.workflowId,
		});
		const targets = pickTargets(pick.keys, layout);
		for (const [target, each] of itemPerTarget(itemWith(item, index, review), targets)) {
			outputs[target].push(each);
		}
	});
	const reviewed = parsed.picks.length;
	sendHtml(
		res,
		200,
		renderReviewDone({ reviewed, unreviewed: items.length - reviewed, title: page.title }),
	);
	// Each item paired with its own input item after n8n resumes (execute.ts, routeOnResume).
	return { noWebhookResponse: true, workflowData: routeOnResume(n8n, outputs) };
}
