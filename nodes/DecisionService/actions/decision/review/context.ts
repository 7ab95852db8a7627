/**
 * The waiting review's context, read once per request (webhook.ts): the items n8n kept with the
 * execution, the node's saved parameters, what each item asked (the Decide node it came from,
 * asked.ts), the decision fetched once, and the page built from them (page-data.ts). The GET shows
 * `page`; the POST parses against it and writes its rows from the rest.
 */
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	ResourceMapperValue,
} from 'n8n-workflow';
import type { DecisionClient } from '../../../../../src/client';
import { ownObject, ownValue, type Decision } from '../../../../../src/contract';
import type { ReviewPage } from '../../../../../src/review';
import { decisionKeys, OUTPUTS_LIST_PARAMETER } from '../../../outputs/list';
import type { DecideInput } from '../../../pipeline/input';
import { createDecisionClient } from '../../../transport';
import { askedOf } from './asked';
import type { ReviewNodeOptions } from './description';
import { REVIEW_FIELD, REVIEW_UNTIL } from './execute';
import { isOwnLeftRow } from './labeled-context';
import { reviewAnswers, reviewPageOf } from './page-data';

export interface WaitingContext {
	/** One client per request: the decision, then (on a submit) the feedback. */
	client: DecisionClient;
	items: INodeExecutionData[];
	decision: Decision;
	/** The saved Outputs list: the page's answers in its order, the outputs the items go to. */
	routes: ResourceMapperValue;
	/** What each item asked, as Decide was mapped (asked.ts). */
	asked: Array<DecideInput | undefined>;
	/** The field Decide wrote its answer to on each item. */
	resultField: string;
	workflowId?: string;
	page: ReviewPage;
}

/**
 * The items waiting here: n8n keeps the waiting node's input with the execution and hands it to
 * the webhook's expressions as `$input`.
 */
function waitingItems(n8n: IWebhookFunctions): INodeExecutionData[] {
	const items = n8n.evaluateExpression('{{ $input.all() }}', 0);
	if (!Array.isArray(items)) return [];
	const executionId = n8n.getExecutionId();
	return (items as INodeExecutionData[]).map((item) => ({
		json: withoutOwnLeftRow(item.json, executionId),
		binary: item.binary,
	}));
}

/**
 * The item as it came to Review: the row Review put on it before waiting (execute.ts) is not
 * part of what the decision was asked, so the page and the rows never show it.
 */
function withoutOwnLeftRow(json: IDataObject, executionId: string): IDataObject {
	if (!isOwnLeftRow(ownValue(json, REVIEW_FIELD), executionId)) return json;
	return ownObject(Object.entries(json).filter(([key]) => key !== REVIEW_FIELD));
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

/** The workflow a review row names; without it the row simply lacks it. */
function workflowIdOf(n8n: IWebhookFunctions): string | undefined {
	try {
		return String(n8n.getWorkflow().id ?? '') || undefined;
	} catch {
		return undefined;
	}
}

/** Everything a request needs, read once; throws when the decision cannot be fetched. */
export async function readWaitingContext(n8n: IWebhookFunctions): Promise<WaitingContext> {
	const items = waitingItems(n8n);
	const client = await createDecisionClient(n8n);
	const slug = String(n8n.getNodeParameter('decision', '', { extractValue: true }) ?? '').trim();
	const decision = await client.getDecision(slug);
	const routes = n8n.getNodeParameter(OUTPUTS_LIST_PARAMETER) as ResourceMapperValue;
	const options = n8n.getNodeParameter('options', {}) as ReviewNodeOptions;
	const { asked, resultField } = askedOf(n8n, items, decision);
	const page = reviewPageOf({
		items,
		asked,
		decision,
		answers: reviewAnswers(routes.schema ?? [], routes.value, decisionKeys(decision)),
		resultField,
		title: options.title,
		instructions: options.instructions,
		showPersonalData: options.showPersonalData === true,
		expiresAt: reviewUntil(n8n),
	});
	return {
		client,
		items,
		decision,
		routes,
		asked,
		resultField,
		workflowId: workflowIdOf(n8n),
		page,
	};
}
