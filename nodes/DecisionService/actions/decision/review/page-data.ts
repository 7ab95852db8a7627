/**
 * The review page's data, built where the page is served (context.ts): the decision's answers in the
 * Outputs list's order and names, and for each item what it asked, what the machine answered
 * (from the answer Decide wrote on the item, compact or full) and why it is here. Pure: no n8n
 * context, so every answer shape is unit-tested.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { ownValue, type ContextField, type Decision } from '../../../../../src/contract';
import { readAnswer } from '../../../../../src/answer/item-answer';
import { kindOf, type KeyedDecision } from '../../../../../src/answer/kinds';
import type { ReviewAnswer, ReviewField, ReviewItem, ReviewPage } from '../../../../../src/review';
import { NO_LABEL_KEY, type OutputsListEntry } from '../../../outputs/list';
import type { DecideInput } from '../../../pipeline/input';

/** Longest value shown for one field (a long e-mail body stays readable; the rest is cut). */
const MAX_FIELD_TEXT = 4000;

const asRecord = (value: unknown): IDataObject | undefined =>
	typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as IDataObject)
		: undefined;

const asString = (value: unknown): string | undefined =>
	typeof value === 'string' && value !== '' ? value : undefined;

function displayValue(value: unknown): string {
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return text.length > MAX_FIELD_TEXT ? `${text.slice(0, MAX_FIELD_TEXT)}…` : text;
}

/** The decision's answers as outputs name them: each key in the list's order, with its rename. */
export function reviewAnswers(
	schema: readonly OutputsListEntry[],
	renames: Record<string, unknown> | null | undefined,
	keys: readonly string[],
): ReviewAnswer[] {
	const known = new Set(keys);
	const answers: ReviewAnswer[] = [];
	for (const field of schema) {
		if (field.display === false || field.removed === true || !known.has(field.id)) continue;
		if (field.id === NO_LABEL_KEY) continue; // classify: "none of these labels" is its own choice
		const rename = ownValue(renames ?? {}, field.id);
		const label =
			typeof rename === 'string' && rename.trim() !== ''
				? rename.trim()
				: field.displayName || field.id;
		answers.push({ key: field.id, label });
	}
	return answers;
}

/** The shown fields of an input: declared fields in the decision's order, then any others. */
function fieldsOf(
	input: DecideInput | undefined,
	declared: readonly ContextField[],
): ReviewField[] {
	if (input === undefined) return [];
	if (typeof input === 'string')
		return [{ name: 'Text', value: displayValue(input), personal: false }];
	const personal = new Set(declared.filter((field) => field.pii).map((field) => field.name));
	const order = declared.map((field) => field.name);
	// A field without a value (an expression that found nothing) is not sent: JSON drops it.
	const names = Object.keys(input)
		.filter((name) => ownValue(input, name) !== undefined)
		.sort((a, b) => {
			const at = (name: string) => {
				const index = order.indexOf(name);
				return index === -1 ? order.length : index;
			};
			return at(a) - at(b);
		});
	return names.map((name) => ({
		name,
		value: displayValue(ownValue(input, name)),
		personal: personal.has(name),
	}));
}

/**
 * The machine's answer on an item as Decide wrote it, compact or whole (src/answer/item-answer.ts): the keys
 * it gave, or on a doubtful run its guess (none on a tie at the top); its status, confidence,
 * probabilities and run.
 */
export function machineAnswerOf(
	answer: IDataObject | undefined,
	decision: KeyedDecision,
): Pick<ReviewItem, 'runId' | 'status' | 'machineAnswer' | 'confidence' | 'probabilities'> {
	const keys = kindOf(decision.type)?.keysOf(decision);
	const read = readAnswer(answer, decision.type, keys);
	return {
		runId: read?.runId,
		status: read?.status ?? asString(answer?.status) ?? 'failed',
		// None on a tie at the top or without an answer: the page shows no leaning (src/answer/kinds.ts).
		machineAnswer: read?.guess,
		confidence: read?.confidence,
		probabilities: Object.entries(read?.probabilities ?? {})
			.map(([key, value]) => ({ key, value }))
			.sort((a, b) => b.value - a.value),
	};
}

/**
 * Why an item is on the page, in words, when its status in words (src/review/words.ts) and the
 * machine's answer do not say it already: a failure, a close call, the service's routing note. A
 * pending or an uncertain item gets none: one thing said once.
 */
function noteOf(json: IDataObject, answer: IDataObject | undefined): string | undefined {
	if (!answer) {
		const error = asRecord(json.error);
		const message = asString(error?.message) ?? asString(json.error);
		return message ? `No answer: ${message}` : 'No answer from the service.';
	}
	if (answer.close_call === true) {
		const runnerUp = asString(answer.runner_up);
		return runnerUp
			? `A close call: "${runnerUp}" was almost as likely.`
			: 'A close call between two answers.';
	}
	const routing = asString(answer.routing_note);
	if (routing) return routing;
	if (answer.status === 'pending' || answer.status === 'uncertain') return undefined;
	// Decide's Audit Share: a sure answer, already on its output, copied here for a person to check.
	const share = answer.audit_share;
	if (typeof share === 'number' && share > 0 && share <= 1) {
		const percent = `${Math.round(share * 1000) / 10}%`;
		return `Checked at random (Audit Share ${percent}): the service was sure, and this item already went on with its answer.`;
	}
	return 'Sent for review.';
}

export interface PageInputs {
	items: INodeExecutionData[];
	asked: Array<DecideInput | undefined>;
	decision: Decision;
	answers: ReviewAnswer[];
	resultField: string;
	title?: string;
	instructions?: string;
	showPersonalData: boolean;
	expiresAt?: string;
}

export function reviewPageOf(inputs: PageInputs): ReviewPage {
	const { decision } = inputs;
	return {
		title: inputs.title?.trim() || `Review: ${decision.name || decision.slug}`,
		instructions: inputs.instructions?.trim() || undefined,
		decision: {
			slug: decision.slug,
			name: decision.name,
			type: decision.type,
			threshold: decision.confidence_threshold,
		},
		answers: inputs.answers,
		showPersonalData: inputs.showPersonalData,
		expiresAt: inputs.expiresAt,
		items: inputs.items.map((item, index): ReviewItem => {
			const answer = asRecord(ownValue(item.json, inputs.resultField));
			return {
				index,
				fields: fieldsOf(inputs.asked[index], decision.context.fields),
				...machineAnswerOf(answer, decision),
				note: noteOf(item.json, answer),
			};
		}),
	};
}
