import { escapeHtml } from '../html';
import { kindOf } from '../answer/kinds';
import type { ReviewAnswer, ReviewItem, ReviewPage } from './types';

// The machine's answer in words for a person who never opened n8n: figures as percentages, the
// answers by their output names, dates in UTC. Returns HTML with every string from data escaped.

/**
 * The one rounding rule of the page: a share in whole hundredths, half up, as the number is written
 * (0.955 gives 96, though its binary value is a hair under 0.955). Percentages and confidences both
 * use it, so "sales (96%)" stands beside "Confidence 0.96".
 */
export function hundredths(value: number): number {
	const share = Math.min(1, Math.max(0, value));
	return Math.round(Number((share * 100).toPrecision(12)));
}

/** A whole percentage of a share; "<1%" and ">99%" rather than a misleading 0% or 100%. */
function percentText(value: number, whole: number): string {
	if (value > 0 && whole === 0) return '<1%';
	if (value < 1 && whole === 100) return '>99%';
	return `${whole}%`;
}

/** A probability as a whole percentage (hundredths). */
export function percent(value: number): string {
	if (!Number.isFinite(value)) return '–';
	return percentText(Math.min(1, Math.max(0, value)), hundredths(value));
}

/**
 * Whole percentages of shares that add up to 1 (one answer's probabilities), adding up to 100:
 * each gets its share rounded down, and what is left goes one point each to the largest remainders
 * (ties: the larger share, then the first). Shares that do not add up to 1 (classify: one
 * probability per label) are rounded each on its own (hundredths).
 */
export function percentsAddingUp(shares: ReadonlyMap<string, number>): Map<string, number> {
	const entries = [...shares].map(([key, value]) => {
		const exact = Number((Math.min(1, Math.max(0, value)) * 100).toPrecision(12));
		return { key, value, whole: Math.floor(exact), rest: exact - Math.floor(exact) };
	});
	const left = 100 - entries.reduce((sum, entry) => sum + entry.whole, 0);
	const total = [...shares.values()].reduce((sum, value) => sum + value, 0);
	if (Math.abs(total - 1) > 0.005 || left < 0 || left > entries.length) {
		return new Map([...shares].map(([key, value]) => [key, hundredths(value)]));
	}
	const order = entries
		.map((entry, at) => ({ ...entry, at }))
		.sort((a, b) => b.rest - a.rest || b.value - a.value || a.at - b.at);
	for (const entry of order.slice(0, left)) entry.whole += 1;
	return new Map(order.sort((a, b) => a.at - b.at).map((entry) => [entry.key, entry.whole]));
}

/** An item's probabilities as the page shows them: each key's whole percentage and its text. */
export function shownPercents(item: ReviewItem): Map<string, { whole: number; text: string }> {
	const probabilities = probabilitiesOf(item);
	const wholes = percentsAddingUp(probabilities);
	return new Map(
		[...probabilities].map(([key, value]) => {
			const whole = wholes.get(key)!;
			return [key, { whole, text: percentText(value, whole) }];
		}),
	);
}

/** A confidence with two decimals ("0.41"), as the decision's threshold is written (hundredths). */
export function confidenceText(value: number): string {
	return Number.isFinite(value) ? (hundredths(value) / 100).toFixed(2) : '–';
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
 * likely (25% each)") or nothing from the service. The percentages are the bars' (shownPercents).
 */
export function machineAnswerWords(
	item: ReviewItem,
	page: ReviewPage,
	answers: ReadonlyMap<string, ReviewAnswer>,
): string {
	const shown = shownPercents(item);
	const classify = kindOf(page.decision.type)?.many === true;
	if (item.machineAnswer === undefined) {
		const tied = classify ? [] : keysTiedAtTop(item, answers);
		if (!tied.length) return 'No suggestion from the service.';
		const names = listed(tied.map((key) => answerName(key, answers)));
		// Tied shares may round to different whole points (33, 33, 34): say the share itself.
		const share = escapeHtml(percent(probabilitiesOf(item).get(tied[0])!));
		return `No suggestion: ${names} are equally likely (${share} each).`;
	}
	const named = item.machineAnswer
		.map((key) => {
			const text = shown.get(key)?.text;
			return `${answerName(key, answers)}${text === undefined ? '' : ` (${escapeHtml(text)})`}`;
		})
		.join(', ');
	const words = named || (classify ? 'no label' : '');
	if (!words) return 'No suggestion from the service.';
	return item.status === 'pending' ? `Leaning to ${words}` : `Suggested: ${words}`;
}

/**
 * "Confidence 0.41, under the decision's threshold 0.60": the threshold named only when the
 * confidence is under it (why an uncertain or pending item is here). When both read the same at
 * two decimals (0.598 under 0.60), three decimals tell them apart.
 */
export function confidenceLine(confidence: number, threshold: number | undefined): string {
	if (threshold === undefined || !Number.isFinite(threshold) || !(confidence < threshold))
		return `Confidence ${confidenceText(confidence)}`;
	const same = confidenceText(confidence) === confidenceText(threshold);
	const text = (value: number) => (same ? value.toFixed(3) : confidenceText(value));
	return `Confidence ${text(confidence)}, under the decision's threshold ${text(threshold)}`;
}
