import { escapeHtml } from '../html';
import { kindOf } from '../kinds';
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

const STATUS_WORDS = new Map([
	['ok', { text: 'Answered', tone: 'ok' }],
	['uncertain', { text: 'Uncertain', tone: 'uncertain' }],
	['pending', { text: 'In the review queue', tone: 'pending' }],
]);

/** The status as a chip: known statuses in words, any other (a failure marker) as given. */
export function statusChip(status: string): string {
	const known = STATUS_WORDS.get(status);
	return known
		? `<span class="chip ${known.tone}">${known.text}</span>`
		: `<span class="chip failed">${escapeHtml(status || 'No answer')}</span>`;
}

/** The answers by key, the first of a repeated key kept. */
export function answersByKey(page: ReviewPage): Map<string, ReviewAnswer> {
	const byKey = new Map<string, ReviewAnswer>();
	for (const answer of page.answers) if (!byKey.has(answer.key)) byKey.set(answer.key, answer);
	return byKey;
}

/** An answer's name: its output's name, with the key beside it when the two differ. */
export function answerName(key: string, answers: ReadonlyMap<string, ReviewAnswer>): string {
	const label = answers.get(key)?.label;
	if (label === undefined || label === '' || label === key) {
		return `<strong>${escapeHtml(key)}</strong>`;
	}
	return `<strong>${escapeHtml(label)}</strong> <span class="key">${escapeHtml(key)}</span>`;
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
 * "Suggested: billing (41%)", or on a pending item (its chip already says it is in the review
 * queue) "Leaning to billing (41%)", …
 */
export function machineAnswerWords(
	item: ReviewItem,
	page: ReviewPage,
	answers: ReadonlyMap<string, ReviewAnswer>,
): string {
	const probabilities = probabilitiesOf(item);
	const named = item.machineAnswer
		.map((key) => {
			const probability = probabilities.get(key);
			return `${answerName(key, answers)}${probability === undefined ? '' : ` (${percent(probability)})`}`;
		})
		.join(', ');
	const classify = kindOf(page.decision.type)?.many === true;
	if (item.status === 'pending') {
		return named ? `Leaning to ${named}` : 'No suggestion from the service.';
	}
	if (named) return `Suggested: ${named}`;
	if (classify && (item.status === 'ok' || item.status === 'uncertain')) {
		return 'Suggested: no label';
	}
	return 'No suggestion from the service.';
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
