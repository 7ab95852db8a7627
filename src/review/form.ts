import { ownValue } from '../contract/own';
import { kindOf } from '../answer/kinds';
import type { DecisionType, ReviewItem, ReviewPage, ReviewPick } from './types';

// The review form's fields and how a submission is read. The page is a plain HTML form (no
// script) posted as application/x-www-form-urlencoded; n8n parses that with Node's querystring
// (an object without prototype, each value a string or, for a repeated name, an array of
// strings). The same names in a JSON object are accepted too. Per item, by its `index`:
//   pick-<i>  route, score: the one key picked (a radio or a select); "" = leave for later.
//             classify: the labels ticked (checkboxes, a repeated name).
//   none-<i>  classify only: "No label applies" ticked (the item is reviewed with no label).
//   note-<i>  the person's note (a textarea: always sent, often empty).
// An untouched item sends `pick-<i>=` (route, score) or nothing but its empty note (classify):
// it is left for later, never a pick. The body is untrusted: it is read with own-property checks
// only (an answer key may be `constructor` or `__proto__`), unknown fields are ignored, values
// that are not answers are refused with the item named.

/** Longest note kept, in UTF-16 code units (what the textarea's maxlength counts). */
export const NOTE_MAX_LENGTH = 1000;

/** The form's field names for the item at `index`. */
export function fieldNames(index: number): { pick: string; none: string; note: string } {
	return { pick: `pick-${index}`, none: `none-${index}`, note: `note-${index}` };
}

/** A field of ours that names an item: `pick-3`, `none-3`, `note-3`. */
const ITEM_FIELD = /^(?:pick|none|note)-(0|[1-9][0-9]{0,8})$/;

/** How many refused items the error names before "and N more". */
const PROBLEMS_SHOWN = 5;

/** What the body says about one item, whether or not it can be taken. */
export interface ItemSubmission {
	/** Picked keys that are answers, once each, in the answers' order. */
	keys: string[];
	/** Classify: "No label applies" ticked. */
	none: boolean;
	/** Trimmed and capped; undefined when empty. */
	note?: string;
	/** What cannot be taken, in words, without the item's name. */
	problems: string[];
}

function isBody(body: unknown): body is object {
	return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/** A field's values: a string, repeated strings, or absent (undefined and JSON's null). */
function stringsOf(value: unknown): string[] | undefined {
	if (value === undefined || value === null) return [];
	if (typeof value === 'string') return [value];
	if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) {
		return value as string[];
	}
	return undefined;
}

/** A key as an error message shows it: quoted, cut when long (the page escapes it). */
function shown(key: string): string {
	return JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);
}

const TICKED = new Set(['1', 'on', 'true', 'yes']);
const UNTICKED = new Set(['', '0', 'off', 'false', 'no']);

function tickedOf(value: unknown): boolean | undefined {
	if (typeof value === 'boolean') return value;
	const values = stringsOf(value);
	if (values === undefined) return undefined;
	if (values.some((entry) => TICKED.has(entry.trim().toLowerCase()))) return true;
	return values.every((entry) => UNTICKED.has(entry.trim().toLowerCase())) ? false : undefined;
}

/** Trimmed, line ends as `\n`, at most NOTE_MAX_LENGTH code units, never half a surrogate pair. */
export function cleanNote(text: string): string | undefined {
	let note = text.replace(/\r\n?/g, '\n').trim();
	if (note.length > NOTE_MAX_LENGTH) {
		note = note.slice(0, NOTE_MAX_LENGTH);
		if (/[\uD800-\uDBFF]$/.test(note)) note = note.slice(0, -1);
		note = note.trimEnd();
	}
	return note.length ? note : undefined;
}

/** What the body says about `item`. `body` must be an object (see parseReviewSubmission). */
export function readItem(body: object, item: ReviewItem, page: ReviewPage): ItemSubmission {
	const names = fieldNames(item.index);
	const type = page.decision.type;
	const problems: string[] = [];

	const noteValues = stringsOf(ownValue(body, names.note));
	if (noteValues === undefined) problems.push('the note is not text');
	const note = cleanNote((noteValues ?? []).join('\n'));

	const picked = new Set<string>();
	const pickValues = stringsOf(ownValue(body, names.pick));
	if (pickValues === undefined) problems.push('the answer is not text');
	const answerKeys = new Set(page.answers.map((answer) => answer.key));
	const strangers = new Set<string>();
	for (const value of pickValues ?? []) {
		if (value === '') continue;
		if (answerKeys.has(value)) picked.add(value);
		else strangers.add(value);
	}
	if (strangers.size) {
		// One named, the rest counted: a forged body may repeat the field thousands of times.
		const [first] = strangers;
		problems.push(
			strangers.size === 1
				? `${shown(first)} is not one of the answers`
				: `${shown(first)} and ${strangers.size - 1} more are not among the answers`,
		);
	}
	const keys = page.answers.map((answer) => answer.key).filter((key) => picked.has(key));
	// A repeated key in page.answers would list it twice: once is enough.
	const unique = [...new Set(keys)];

	let none = false;
	if (kindOf(type)?.many) {
		const ticked = tickedOf(ownValue(body, names.none));
		if (ticked === undefined) problems.push('"No label applies" is neither ticked nor unticked');
		none = ticked === true;
		if (none && unique.length) problems.push('tick "No label applies" or labels, not both');
	} else if (unique.length > 1) {
		problems.push(`pick one answer, not ${unique.length}`);
	}

	const reviewed = unique.length > 0 || none;
	if (note !== undefined && !reviewed && !problems.length) {
		problems.push('a note is kept only with an answer: pick one, or clear the note');
	}
	return { keys: unique, none, ...(note !== undefined && { note }), problems };
}

/** The pick an item's submission makes, or undefined when it is left for later. */
export function pickOf(
	index: number,
	submission: ItemSubmission,
	type: DecisionType,
): ReviewPick | undefined {
	if (submission.problems.length) return undefined;
	const reviewed = submission.keys.length > 0 || (kindOf(type)?.many === true && submission.none);
	if (!reviewed) return undefined;
	return {
		index,
		keys: [...submission.keys],
		...(submission.note !== undefined && { note: submission.note }),
	};
}

/** Fields of ours that name an item the page does not have, with a value: a stale or forged form. */
function strayItems(body: object, page: ReviewPage): number[] {
	const indexes = new Set(page.items.map((item) => item.index));
	const stray = new Set<number>();
	for (const name of Object.keys(body)) {
		const match = ITEM_FIELD.exec(name);
		if (!match) continue;
		const index = Number(match[1]);
		if (indexes.has(index)) continue;
		const values = stringsOf(ownValue(body, name));
		if (values === undefined || values.some((value) => value.trim() !== '')) stray.add(index);
	}
	return [...stray].sort((a, b) => a - b);
}

/**
 * How an item is named to the person: its position counted from 1, as people count ("Item 1" is
 * the first). The form's field names keep n8n's 0-based index; so do the node's own errors.
 */
export function itemName(index: number): string {
	return `Item ${index + 1}`;
}

/**
 * The picks of a submitted review form (an urlencoded body as n8n parses it, or the same as JSON).
 * Items left for later are not picks. Anything that cannot be taken refuses the whole submission,
 * naming the items, so the person can fix it on the page shown again.
 */
export function parseReviewSubmission(
	body: unknown,
	page: ReviewPage,
): { picks: ReviewPick[] } | { error: string } {
	if (!isBody(body)) return { error: 'The submission is not a review form.' };
	const problems: string[] = [];
	const picks: ReviewPick[] = [];
	for (const item of page.items) {
		const submission = readItem(body, item, page);
		if (submission.problems.length) {
			problems.push(`${itemName(item.index)}: ${submission.problems.join('; ')}.`);
			continue;
		}
		const pick = pickOf(item.index, submission, page.decision.type);
		if (pick) picks.push(pick);
	}
	for (const index of strayItems(body, page)) {
		problems.push(`${itemName(index)} is not on this page.`);
	}
	if (!problems.length) return { picks };
	const more = problems.length - PROBLEMS_SHOWN;
	return {
		error: [
			'Nothing was saved yet.',
			...problems.slice(0, PROBLEMS_SHOWN),
			...(more > 0 ? [`And ${more} more.`] : []),
		].join(' '),
	};
}
