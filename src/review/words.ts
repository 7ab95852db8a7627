import { escapeHtml } from '../html';
import { kindOf } from '../answer/kinds';
import type { ReviewAnswer, ReviewItem, ReviewPage } from './types';

// The machine's answer in words for a person who never opened n8n: figures as percentages, the
// answers by their output names, dates in UTC. Returns HTML with every string from data escaped.

/** A probability as a whole percentage; "<1%" and ">99%" rather than a misleading 0% or 100%. */
export function percent(value: number): string {
	if (!Number.isFinite(value)) return '–';
	const share = Math.min(1, Math.max(0, value));
	const rounded = Math.round(share * 100);
	if (share > 0 && rounded === 0) return '<1%';
	if (share < 1 && rounded === 100) return '>99%';
	return `${rounded}%`;
}

/** A confidence with two decimals ("0.41"), as the decision's threshold is written. */
export function confidenceText(value: number): string {
	return Number.isFinite(value) ? Math.min(1, Math.max(0, value)).toFixed(2) : '–';
}

/** An ISO date-time as "2026-11-30 14:05 UTC"; the text as given when it is not a date. */
export function utcDateTime(iso: string): string {
	const time = Date.parse(iso);
	if (Number.isNaN(time)) return iso;
	return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * Why the service left an item to a person, in words: the run's status is the service's and the
 * workflow's business, never shown as such ("pending", "In the review queue"). A failure and a
 * close call say their own why (page-data.ts); an answered item has none of its own.
 */
const STATUS_WORDS = new Map([
	['uncertain', 'The service was not sure enough to answer on its own.'],
	['pending', 'The service asks a person to decide this one.'],
]);

/** The status in words, or undefined when the item's note says why it is here. */
export function statusWords(status: string): string | undefined {
	return STATUS_WORDS.get(status);
}

/** The answers by key, the first of a repeated key kept. */
export function answersByKey(page: ReviewPage): Map<string, ReviewAnswer> {
	const byKey = new Map<string, ReviewAnswer>();
	for (const answer of page.answers) if (!byKey.has(answer.key)) byKey.set(answer.key, answer);
	return byKey;
}

/**
 * An answer's name: its output's name. A reviewer never needs the key, so it is shown only beside
 * a name two answers share (the one way to tell them apart), or as the name when there is none.
 */
export function answerName(key: string, answers: ReadonlyMap<string, ReviewAnswer>): string {
	const label = answers.get(key)?.label;
	if (label === undefined || label === '' || label === key) {
		return `<strong>${escapeHtml(key)}</strong>`;
	}
	if (!sharedName(label, answers)) return `<strong>${escapeHtml(label)}</strong>`;
	return `<strong>${escapeHtml(label)}</strong> <span class="key">${escapeHtml(key)}</span>`;
}

/** Whether two answers go by this name. */
export function sharedName(label: string, answers: ReadonlyMap<string, ReviewAnswer>): boolean {
	let seen = 0;
	for (const answer of answers.values()) if ((answer.label || answer.key) === label) seen += 1;
	return seen > 1;
}

/** The item's probabilities by key (the first of a repeated key), finite values only. */
export function probabilitiesOf(item: ReviewItem): Map<string, number> {
	const byKey = new Map<string, number>();
	for (const { key, value } of item.probabilities) {
		if (!byKey.has(key) && typeof value === 'number' && Number.isFinite(value)) {
			byKey.set(key, value);
		}
	}
	return byKey;
}

/**
 * Keys sharing the top probability, when two or more do (the machine then has no guess: the rule
 * is src/answer/kinds.ts `tiedAtTop`; this names them), in the answers' order.
 */
export function keysTiedAtTop(
	item: ReviewItem,
	answers: ReadonlyMap<string, ReviewAnswer>,
): string[] {
	const probabilities = [...probabilitiesOf(item)];
	const top = Math.max(...probabilities.map(([, value]) => value));
	const order = [...answers.keys()];
	const at = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
	const tied = probabilities
		.filter(([, value]) => value === top)
		.map(([key]) => key)
		.sort((a, b) => at(a) - at(b));
	return tied.length > 1 ? tied : [];
}

/** "a, b and c" */
function listed(names: string[]): string {
	return names.length < 2
		? names.join('')
		: `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * "Suggested: billing (41%)", or on an item the service left to a person "Leaning to billing
 * (41%)"; with no guess, why: a tie at the top ("billing, technical, sales and account are equally
 * likely (25% each)") or nothing from the service.
 */
export function machineAnswerWords(
	item: ReviewItem,
	page: ReviewPage,
	answers: ReadonlyMap<string, ReviewAnswer>,
): string {
	const probabilities = probabilitiesOf(item);
	const classify = kindOf(page.decision.type)?.many === true;
	if (item.machineAnswer === undefined) {
		const tied = classify ? [] : keysTiedAtTop(item, answers);
		if (!tied.length) return 'No suggestion from the service.';
		const names = listed(tied.map((key) => answerName(key, answers)));
		const share = escapeHtml(percent(probabilities.get(tied[0])!));
		return `No suggestion: ${names} are equally likely (${share} each).`;
	}
	const named = item.machineAnswer
		.map((key) => {
			const probability = probabilities.get(key);
			return `${answerName(key, answers)}${probability === undefined ? '' : ` (${escapeHtml(percent(probability))})`}`;
		})
		.join(', ');
	const words = named || (classify ? 'no label' : '');
	if (!words) return 'No suggestion from the service.';
	return item.status === 'pending' ? `Leaning to ${words}` : `Suggested: ${words}`;
}

/**
 * "Confidence 0.41, under the decision's threshold 0.60": the threshold named only when the
 * confidence is under it (why an uncertain or pending item is here).
 */
export function confidenceLine(confidence: number, threshold: number | undefined): string {
	const under =
		threshold !== undefined && Number.isFinite(threshold) && confidence < threshold
			? `, under the decision's threshold ${confidenceText(threshold)}`
			: '';
	return `Confidence ${confidenceText(confidence)}${under}`;
}
