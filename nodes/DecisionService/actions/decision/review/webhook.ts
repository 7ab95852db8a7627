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
} from 'n8n-workflow';
import {
	feedbackFor,
	parseReviewSubmission,
	renderReviewClosed,
	renderReviewDone,
	renderReviewPage,
	type ReviewPick,
} from '../../../../../src/review';
import { BoundedCache } from '../../../../../src/client';
import { reviewLayout } from '../../../outputs/layout';
import { itemPerTarget, pickTargets } from '../../../outputs/targets';
import { readWaitingContext, type WaitingContext } from './context';
import { REVIEW_FIELD } from './execute';
import { labeledRowOf, notReviewedRowOf, type SubmitStamp } from './labeled-context';
import { routeOnResume } from './resume';

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

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** The service unreachable, the decision gone: the execution keeps waiting; say so. */
function cannotShowHtml(error: unknown): string {
	return renderReviewClosed(
		`The review cannot be shown right now (${messageOf(error)}). Try the link again later.`,
	);
}

export async function webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	try {
		return await answer(this, res);
	} catch (error) {
		return sendHtml(res, 503, cannotShowHtml(error));
	}
}

/** GET shows the page; POST: guard → parse → feedback → rows → route → resume. */
async function answer(n8n: IWebhookFunctions, res: Response): Promise<IWebhookResponseData> {
	const method = n8n.getRequestObject().method;
	const executionId = n8n.getExecutionId();
	if (submitted.has(executionId)) {
		return sendHtml(res, 410, renderReviewClosed('This review was already submitted.'));
	}
	if (method !== 'POST') {
		return sendHtml(res, 200, renderReviewPage((await readWaitingContext(n8n)).page));
	}
	// Claimed before the first await: of two posts at once (a double tap), one goes on, the other
	// is told it was submitted; released again if this one is refused.
	markSubmitted(executionId);
	const submission = await readSubmission(n8n, n8n.getBodyData());
	if ('refused' in submission) {
		submitted.delete(executionId);
		return sendHtml(res, submission.refused.status, submission.refused.html);
	}
	const { context, picks } = submission;
	const feedback = await sendFeedback(context, picks);
	const stamp: SubmitStamp = { reviewedAt: new Date().toISOString(), executionId };
	const reviews = reviewsOf(context, picks, feedback, stamp);
	const outputs = routed(context, reviews, picks);
	const reviewed = picks.length;
	const unreviewed = context.items.length - reviewed;
	sendHtml(res, 200, renderReviewDone({ reviewed, unreviewed, title: context.page.title }));
	// Each item paired with its own input item after n8n resumes (execute.ts, routeOnResume).
	return { noWebhookResponse: true, workflowData: routeOnResume(n8n, outputs) };
}

type Submission =
	| { context: WaitingContext; picks: ReviewPick[] }
	| { refused: { status: number; html: string } };

/** The picks read against the page; a refusal is the page to show instead. */
async function readSubmission(n8n: IWebhookFunctions, body: IDataObject): Promise<Submission> {
	let context: WaitingContext;
	let parsed: ReturnType<typeof parseReviewSubmission>;
	try {
		context = await readWaitingContext(n8n);
		parsed = parseReviewSubmission(body, context.page);
	} catch (error) {
		return { refused: { status: 503, html: cannotShowHtml(error) } };
	}
	if ('error' in parsed) {
		// Shown again with what the person picked, so one mistake does not lose the rest.
		const html = renderReviewPage(context.page, { error: parsed.error, submitted: body });
		return { refused: { status: 400, html } };
	}
	return { context, picks: parsed.picks };
}

/** Each reviewed run's feedback, sent; what became of it by item. Never throws. */
async function sendFeedback(
	{ client, page }: WaitingContext,
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

/**
 * What became of each item: its labeled row, or the row of an item left for later (status
 * `not_reviewed`, left at the submit), so that every doubtful item can be stored and counted.
 */
function reviewsOf(
	context: WaitingContext,
	picks: ReviewPick[],
	feedback: Map<number, IDataObject>,
	stamp: SubmitStamp,
): IDataObject[] {
	const left = { leftAt: stamp.reviewedAt, executionId: stamp.executionId };
	const reviews = context.items.map((_, index) => notReviewedRowOf(context, index, left));
	for (const pick of picks) {
		reviews[pick.index] = labeledRowOf(context, pick, feedback.get(pick.index), stamp);
	}
	return reviews;
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

/** Each item on the outputs its pick names; an item nobody picked on Not Reviewed. */
function routed(
	context: WaitingContext,
	reviews: IDataObject[],
	picks: ReviewPick[],
): INodeExecutionData[][] {
	const layout = reviewLayout(context.routes.schema ?? []);
	const outputs: INodeExecutionData[][] = Array.from({ length: layout.count }, () => []);
	const picked = new Map(picks.map((pick) => [pick.index, pick.keys]));
	context.items.forEach((item, index) => {
		const targets = pickTargets(picked.get(index), layout);
		for (const [target, each] of itemPerTarget(itemWith(item, index, reviews[index]), targets)) {
			outputs[target].push(each);
		}
	});
	return outputs;
}
