import { escapeHtml } from '../html';
import { kindOf } from '../answer/kinds';
import { fieldNames, itemName, NOTE_MAX_LENGTH, readItem } from './form';
import type { ReviewAnswer, ReviewField, ReviewItem, ReviewPage } from './types';
import {
	answerName,
	confidenceLine,
	machineAnswerWords,
	probabilitiesOf,
	sharedName,
	shownPercents,
	statusWords,
} from './words';

// One item of the review page: its fields (a personal one masked, never written, unless the page
// shows personal data), the machine's answer with its probabilities and confidence, the person's
// choice among the decision's own answers (route and score: "Leave for later" first and chosen;
// classify: labels and "No label applies", nothing ticked = later) and a note. Field names: form.ts.

/** A field value longer than this shows its start, the rest behind "Show all". */
const LONG_VALUE = 700;
const LONG_VALUE_HEAD = 500;
/** Probabilities shown before "N more". */
const PROBABILITIES_SHOWN = 5;
/** Route options beyond this are a drop-down list rather than a column of radio buttons. */
const MOST_RADIOS = 12;

/** What the form shows as chosen for an item: nothing, or what a refused submission said. */
interface Selection {
	keys: ReadonlySet<string>;
	none: boolean;
	note: string;
	problems: readonly string[];
}

const UNTOUCHED: Selection = { keys: new Set(), none: false, note: '', problems: [] };

/** `text` cut at about `length` code units, never inside a surrogate pair. */
function cut(text: string, length: number): [string, string] {
	const at = /[\uD800-\uDBFF]/.test(text.charAt(length - 1)) ? length - 1 : length;
	return [text.slice(0, at), text.slice(at)];
}

function fieldHtml(field: ReviewField, showPersonalData: boolean): string {
	const name = `<dt>${escapeHtml(field.name)}${field.personal ? ' <span class="tag">personal data</span>' : ''}</dt>`;
	if (field.personal && !showPersonalData) {
		return `<div class="field">${name}<dd class="masked">hidden: personal data</dd></div>`;
	}
	if (field.value === '') return `<div class="field">${name}<dd class="empty">(empty)</dd></div>`;
	if (field.value.length <= LONG_VALUE) {
		return `<div class="field">${name}<dd>${escapeHtml(field.value)}</dd></div>`;
	}
	const [head, rest] = cut(field.value, LONG_VALUE_HEAD);
	return `<div class="field">${name}<dd>${escapeHtml(head)}<details><summary>Show all (${field.value.length} characters)</summary>${escapeHtml(rest)}</details></dd></div>`;
}

function probabilitiesHtml(item: ReviewItem, answers: ReadonlyMap<string, ReviewAnswer>): string {
	const order = new Map([...answers.keys()].map((key, i) => [key, i]));
	// The figures add up to 100 (words.ts, shownPercents); each bar is as long as its figure says.
	const figures = shownPercents(item);
	const rows = [...probabilitiesOf(item)]
		.sort(([a, x], [b, y]) => y - x || (order.get(a) ?? Infinity) - (order.get(b) ?? Infinity))
		.map(([key]) => {
			const { whole, text } = figures.get(key)!;
			return `<li class="prob"><span>${answerName(key, answers)}</span><span class="bar" aria-hidden="true"><span style="width:${whole}%"></span></span><span class="pct">${escapeHtml(text)}</span></li>`;
		});
	if (!rows.length) return '';
	const shown = `<ul class="probs" aria-label="Probabilities">${rows.slice(0, PROBABILITIES_SHOWN).join('')}</ul>`;
	if (rows.length <= PROBABILITIES_SHOWN) return shown;
	return `${shown}<details class="more"><summary>${rows.length - PROBABILITIES_SHOWN} more</summary><ul class="probs">${rows.slice(PROBABILITIES_SHOWN).join('')}</ul></details>`;
}

function machineHtml(
	item: ReviewItem,
	page: ReviewPage,
	answers: ReadonlyMap<string, ReviewAnswer>,
): string {
	const confidence =
		item.confidence === undefined
			? ''
			: `<p class="small muted">${escapeHtml(confidenceLine(item.confidence, page.decision.threshold))}</p>`;
	return `<div class="machine"><p>${machineAnswerWords(item, page, answers)}</p>${confidence}${probabilitiesHtml(item, answers)}</div>`;
}

function suggestedTag(item: ReviewItem, key: string): string {
	return item.machineAnswer?.includes(key) ? ' <span class="tag">suggested</span>' : '';
}

function choice(
	type: 'radio' | 'checkbox',
	name: string,
	value: string,
	checked: boolean,
	text: string,
	className = 'choice',
): string {
	return `<label class="${className}"><input type="${type}" name="${escapeHtml(name)}" value="${escapeHtml(value)}"${checked ? ' checked' : ''}><span class="text">${text}</span></label>`;
}

function selectHtml(
	item: ReviewItem,
	answers: ReadonlyMap<string, ReviewAnswer>,
	selection: Selection,
): string {
	const { pick } = fieldNames(item.index);
	const options = [...answers.values()].map((answer) => {
		// The key only beside a name two answers share (words.ts, answerName).
		const label = answer.label || answer.key;
		const name =
			label !== answer.key && sharedName(label, answers) ? `${label} (${answer.key})` : label;
		const text = item.machineAnswer?.includes(answer.key) ? `${name} · suggested` : name;
		return `<option value="${escapeHtml(answer.key)}"${selection.keys.has(answer.key) ? ' selected' : ''}>${escapeHtml(text)}</option>`;
	});
	return `<label class="control-label" for="${pick}">Your answer</label><select id="${pick}" name="${pick}"><option value="">Leave for later</option>${options.join('')}</select>`;
}

function choicesHtml(
	item: ReviewItem,
	page: ReviewPage,
	answers: ReadonlyMap<string, ReviewAnswer>,
	selection: Selection,
): string {
	const names = fieldNames(item.index);
	const type = page.decision.type;
	// Each key once (answersByKey keeps the first of a repeated one), in the answers' order.
	const list = [...answers.values()];
	if (kindOf(type)?.many) {
		const labels = list.map((answer) =>
			choice(
				'checkbox',
				names.pick,
				answer.key,
				selection.keys.has(answer.key),
				`${answerName(answer.key, answers)}${suggestedTag(item, answer.key)}`,
			),
		);
		const none = choice(
			'checkbox',
			names.none,
			'1',
			selection.none,
			'No label applies',
			'choice none',
		);
		return `<fieldset><legend>Labels that apply</legend><div class="choices">${labels.join('')}${none}</div><p class="hint">Tick nothing to leave this item for later.</p></fieldset>`;
	}
	if (list.length > MOST_RADIOS) return selectHtml(item, answers, selection);
	const chosen = list.some((answer) => selection.keys.has(answer.key));
	const radios = list.map((answer) =>
		choice(
			'radio',
			names.pick,
			answer.key,
			chosen && selection.keys.has(answer.key),
			`${answerName(answer.key, answers)}${suggestedTag(item, answer.key)}`,
		),
	);
	const later = choice('radio', names.pick, '', !chosen, 'Leave for later', 'choice later');
	const legend =
		kindOf(type)?.word === 'level' ? 'Your answer (lowest level first)' : 'Your answer';
	return `<fieldset><legend>${legend}</legend><div class="choices">${later}${radios.join('')}</div></fieldset>`;
}

export function itemHtml(
	item: ReviewItem,
	page: ReviewPage,
	answers: ReadonlyMap<string, ReviewAnswer>,
	selection: Selection,
): string {
	const names = fieldNames(item.index);
	const fields = item.fields.length
		? `<dl class="fields">${item.fields.map((field) => fieldHtml(field, page.showPersonalData)).join('')}</dl>`
		: '<p class="muted">No fields were mapped for this item.</p>';
	// Why it is here in words; the status itself (pending, uncertain, a failure marker) is not shown.
	const reason = [statusWords(item.status), item.note].filter(Boolean).join(' ');
	const why = reason ? `<p class="why">${escapeHtml(reason)}</p>` : '';
	const problem = selection.problems.length
		? `<p class="problem" role="alert">${escapeHtml(`${selection.problems.join('; ')}.`)}</p>`
		: '';
	const note = `<label class="control-label" for="${names.note}">Note <span class="muted small">(optional)</span></label><textarea id="${names.note}" name="${names.note}" rows="2" maxlength="${NOTE_MAX_LENGTH}">${escapeHtml(selection.note)}</textarea>`;
	return `<section class="item${problem ? ' refused' : ''}" id="item-${item.index}"><div class="item-head"><h2>${itemName(item.index)}</h2></div>${why}${fields}${machineHtml(item, page, answers)}${choicesHtml(item, page, answers, selection)}${problem}${note}</section>`;
}

export function selectionOf(submitted: unknown, item: ReviewItem, page: ReviewPage): Selection {
	if (typeof submitted !== 'object' || submitted === null || Array.isArray(submitted))
		return UNTOUCHED;
	const read = readItem(submitted, item, page);
	return {
		keys: new Set(read.keys),
		none: read.none,
		note: read.note ?? '',
		problems: read.problems,
	};
}
