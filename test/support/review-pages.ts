/**
 * What the review tests share: sample pages of each type, and a browser's view of a rendered page
 * (the inputs it shows, the text it shows, and the urlencoded body it would post).
 */
import { parse } from 'node:querystring';
import type { ReviewPage } from '../../src/review';

export const HOSTILE = '<script>alert("x")</script>';
export const QUOTES = `"><img src=x onerror='alert(1)'>`;

export function routePage(overrides: Partial<ReviewPage> = {}): ReviewPage {
	return {
		title: 'Review: ticket-routing',
		instructions: 'Pick the team for each ticket.',
		decision: { slug: 'ticket-routing', name: 'Ticket routing', type: 'route' },
		answers: [
			{ key: 'billing', label: 'Billing team' },
			{ key: 'technical', label: 'technical' },
			{ key: 'sales', label: 'sales' },
		],
		items: [
			{
				index: 0,
				runId: 'run_0',
				status: 'uncertain',
				machineAnswer: ['billing'],
				confidence: 0.41,
				probabilities: [
					{ key: 'technical', value: 0.33 },
					{ key: 'billing', value: 0.41 },
					{ key: 'sales', value: 0.26 },
				],
				fields: [
					{ name: 'subject', value: 'Charged twice', personal: false },
					{ name: 'email', value: 'jane@example.com', personal: true },
				],
				note: "Confidence 0.41 is under the decision's threshold",
			},
			{
				index: 1,
				runId: 'run_1',
				status: 'pending',
				// A tie at the top: no guess.
				machineAnswer: undefined,
				confidence: 0.3,
				probabilities: [
					{ key: 'sales', value: 0.5 },
					{ key: 'billing', value: 0.5 },
				],
				fields: [{ name: 'subject', value: 'Quote for 40 seats', personal: false }],
			},
			{
				index: 2,
				status: 'failed',
				machineAnswer: undefined,
				probabilities: [],
				fields: [{ name: 'subject', value: 'Timeout', personal: false }],
				note: 'The service did not answer',
			},
		],
		showPersonalData: false,
		expiresAt: '2026-11-30T14:05:00.000Z',
		...overrides,
	};
}

export function scorePage(overrides: Partial<ReviewPage> = {}): ReviewPage {
	return {
		title: 'Review: lead-scoring',
		decision: { slug: 'lead-scoring', type: 'score' },
		answers: ['cold', 'warm', 'hot'].map((key) => ({ key, label: key })),
		items: [
			{
				index: 0,
				runId: 'run_s',
				status: 'uncertain',
				machineAnswer: ['warm'],
				confidence: 0.5,
				probabilities: [
					{ key: 'cold', value: 0.3 },
					{ key: 'warm', value: 0.5 },
					{ key: 'hot', value: 0.2 },
				],
				fields: [{ name: 'company', value: 'ACME', personal: false }],
			},
		],
		showPersonalData: false,
		...overrides,
	};
}

export function classifyPage(overrides: Partial<ReviewPage> = {}): ReviewPage {
	return {
		title: 'Review: content-labels',
		decision: { slug: 'content-labels', type: 'classify' },
		answers: [
			{ key: 'urgent', label: 'urgent' },
			{ key: 'refund', label: 'Refund request' },
			{ key: 'spam', label: 'spam' },
		],
		items: [
			{
				index: 0,
				runId: 'run_c0',
				status: 'uncertain',
				machineAnswer: ['urgent', 'refund'],
				confidence: 0.6,
				probabilities: [
					{ key: 'urgent', value: 0.82 },
					{ key: 'refund', value: 0.64 },
					{ key: 'spam', value: 0.02 },
				],
				fields: [{ name: 'text', value: 'Money back now!', personal: false }],
			},
			{
				index: 1,
				runId: 'run_c1',
				status: 'ok',
				machineAnswer: [],
				confidence: 0.9,
				probabilities: [],
				fields: [{ name: 'text', value: 'Hello', personal: false }],
			},
		],
		showPersonalData: false,
		...overrides,
	};
}

/** HTML character references back to text. */
export function unescape(text: string): string {
	return text
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, '&');
}

/** The text of the page with tags removed: what a reader sees. */
export function textOf(html: string): string {
	return unescape(
		html
			.replace(/<style>[\s\S]*?<\/style>/g, '')
			.replace(/<title>[\s\S]*?<\/title>/g, '')
			.replace(/<[^>]+>/g, ' '),
	)
		.replace(/\s+/g, ' ')
		.replace(/ ([.,;])/g, '$1')
		.trim();
}

export interface Control {
	kind: 'radio' | 'checkbox' | 'textarea' | 'select' | 'option';
	name: string;
	value: string;
	checked: boolean;
}

function attribute(tag: string, name: string): string | undefined {
	const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
	return match ? unescape(match[1]) : undefined;
}

/** The form controls of a page, in document order (options belong to the select before them). */
export function controlsOf(html: string): Control[] {
	const controls: Control[] = [];
	let select = '';
	const pattern =
		/<input\b[^>]*>|<textarea\b[^>]*>([\s\S]*?)<\/textarea>|<select\b[^>]*>|<option\b[^>]*>/g;
	for (const match of html.matchAll(pattern)) {
		const tag = match[0];
		if (tag.startsWith('<input')) {
			controls.push({
				kind: attribute(tag, 'type') as 'radio' | 'checkbox',
				name: attribute(tag, 'name') ?? '',
				value: attribute(tag, 'value') ?? 'on',
				checked: /\schecked[\s>]/.test(tag),
			});
		} else if (tag.startsWith('<textarea')) {
			controls.push({
				kind: 'textarea',
				name: attribute(tag, 'name') ?? '',
				value: unescape(match[1] ?? ''),
				checked: true,
			});
		} else if (tag.startsWith('<select')) {
			select = attribute(tag, 'name') ?? '';
			controls.push({ kind: 'select', name: select, value: '', checked: true });
		} else {
			controls.push({
				kind: 'option',
				name: select,
				value: attribute(tag, 'value') ?? '',
				checked: /\sselected[\s>]/.test(tag),
			});
		}
	}
	return controls;
}

/** What the person changes before sending: inputs to tick (name → values) and notes to type. */
export interface Edits {
	tick?: Record<string, string[]>;
	type?: Record<string, string>;
}

/**
 * The body a browser posts for the page with these edits, as n8n parses it (Node's querystring:
 * an object without prototype, repeated names as arrays). A radio or select takes the one value
 * ticked; a checkbox ticked is added to those already checked.
 */
export function submit(html: string, edits: Edits = {}): Record<string, string | string[]> {
	const pairs: Array<[string, string]> = [];
	const tick = new Map(Object.entries(edits.tick ?? {}));
	const typed = new Map(Object.entries(edits.type ?? {}));
	const controls = controlsOf(html);
	const chosenOf = (name: string, kind: Control['kind']) => {
		const defaults = controls.filter((c) => c.name === name && c.kind === kind && c.checked);
		return tick.get(name) ?? defaults.map((c) => c.value);
	};
	for (const control of controls) {
		if (control.kind === 'textarea') {
			// A browser sends a textarea's line ends as CRLF.
			const text = typed.get(control.name) ?? control.value;
			pairs.push([control.name, text.replace(/\r?\n/g, '\r\n')]);
		} else if (control.kind === 'radio' || control.kind === 'option') {
			const chosen = chosenOf(control.name, control.kind);
			if (chosen.includes(control.value)) pairs.push([control.name, control.value]);
		} else if (control.kind === 'checkbox') {
			if (control.checked || tick.get(control.name)?.includes(control.value)) {
				pairs.push([control.name, control.value]);
			}
		}
	}
	const body = pairs
		.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
		.join('&');
	return parse(body, undefined, undefined, { maxKeys: 1000 }) as Record<string, string | string[]>;
}
