/**
 * A person's side of a waiting execution, the way a browser does it: the review link found in the
 * run data (n8n's `$execution.resumeUrl`, as a node wrote it into an item for Slack or e-mail), the
 * page fetched from it, its form parsed out of the HTML (inputs, textareas, selects, buttons) and
 * submitted as `application/x-www-form-urlencoded` to the page's own URL (a form without an action
 * posts to the document's URL, query string included), with a browser's rules for what is sent:
 * the checked radio of each group, checked checkboxes, every text field, the button pressed.
 */
import { NODE_TYPE, outputNamesOf } from './n8n-env';
import {
	readExample,
	withWebhookTrigger,
	type Execution,
	type WorkflowJson,
} from './n8n-executions';

/** The example the review tests start from: routing, then a person reviews the doubtful tickets. */
export const REVIEW_EXAMPLE = 'ticket-routing-review.json';
/** The node that writes the review link into a message for Slack or e-mail. */
export const MESSAGE_NODE = 'Message for reviewers';
/** The Review node's first output. */
export const NOT_REVIEWED = 'Not Reviewed';

/** The review example as a test runs it, and where each output of its two nodes leads. */
export interface ReviewWorkflow {
	workflow: WorkflowJson;
	/** Names of the Decide node and of the Review node. */
	decide: string;
	review: string;
	/** Decide's outputs, in order (its error output, when it has one, is not named here). */
	decideOutputs: string[];
	/** Review's outputs (its own outputs function): Not Reviewed, then Decide's answer outputs. */
	reviewOutputs: string[];
	/** The nodes each named output is wired to. */
	decideTargets: Record<string, string[]>;
	reviewTargets: Record<string, string[]>;
	/** Where items end: the nodes an output of Decide or of Review leads to (but these two). */
	finalNodes: string[];
}

/**
 * The review example with a webhook for its sample data (withWebhookTrigger), Decide's options
 * merged with `decideOptions` and the Review node's parameters with `reviewParameters`.
 */
export function reviewWorkflow(options: {
	id: string;
	name: string;
	path: string;
	decideOptions?: Record<string, unknown>;
	reviewParameters?: Record<string, unknown>;
}): ReviewWorkflow {
	const derived = withWebhookTrigger(readExample(REVIEW_EXAMPLE), options);
	const ours = derived.nodes.filter((node) => node.type === NODE_TYPE);
	const decide = ours.find((node) => node.parameters.operation === 'decide');
	const review = ours.find((node) => node.parameters.operation === 'review');
	if (!decide || !review) throw new Error(`${REVIEW_EXAMPLE} lacks a Decide or a Review node`);
	const workflow: WorkflowJson = {
		...derived,
		nodes: derived.nodes.map((node) => {
			if (node === decide && options.decideOptions)
				return {
					...node,
					parameters: {
						...node.parameters,
						options: {
							...(node.parameters.options as Record<string, unknown>),
							...options.decideOptions,
						},
					},
				};
			if (node === review && options.reviewParameters)
				return { ...node, parameters: { ...node.parameters, ...options.reviewParameters } };
			return node;
		}),
	};
	const decideOutputs = outputNamesOf(decide.parameters);
	// Review's own outputs function: Not Reviewed, then Decide's answer outputs.
	const reviewOutputs = outputNamesOf(review.parameters);
	const targetsOf = (node: string, names: string[]) =>
		Object.fromEntries(
			names.map((name, index) => [
				name,
				(workflow.connections[node]?.main[index] ?? []).map((target) => target.node),
			]),
		);
	const decideTargets = targetsOf(decide.name, decideOutputs);
	const reviewTargets = targetsOf(review.name, reviewOutputs);
	// Every node an output of Decide or Review leads to, but the Review node, the message and a
	// node that gathers Decide's doubtful outputs into Review (the example's Merge).
	const intoReview = (node: string) =>
		(workflow.connections[node]?.main ?? []).some((targets) =>
			(targets ?? []).some((target) => target.node === review.name),
		);
	const finalNodes = [
		...new Set([...Object.values(decideTargets), ...Object.values(reviewTargets)].flat()),
	].filter((node) => node !== review.name && node !== MESSAGE_NODE && !intoReview(node));
	return {
		workflow,
		decide: decide.name,
		review: review.name,
		decideOutputs,
		reviewOutputs,
		decideTargets,
		reviewTargets,
		finalNodes,
	};
}

/** Where each item ended: per value of `field` (a ticket's subject), the final nodes it reached. */
export function whereItemsEnded(
	execution: Execution,
	finalNodes: string[],
	field = 'subject',
): Record<string, string[]> {
	const ended: Record<string, string[]> = {};
	for (const node of finalNodes)
		for (const item of execution.outputs[node]?.[0] ?? []) {
			const value = String(item.json[field]);
			ended[value] = [...(ended[value] ?? []), node];
		}
	return ended;
}

/** The first `…/webhook-waiting/<id>…` link in the items a node output, over all its outputs. */
export function waitingLinkIn(execution: Execution, nodeName: string): string {
	const items = (execution.outputs[nodeName] ?? []).flat();
	const text = JSON.stringify(items.map((item) => item.json));
	const match = /https?:\/\/[^\s"'<>\\]+\/webhook-waiting\/[^\s"'<>\\]+/.exec(text);
	if (!match)
		throw new Error(`no webhook-waiting link in the items of "${nodeName}": ${text.slice(0, 500)}`);
	return match[0];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Text of HTML with its character references decoded (named ones of the five, and numeric). */
export function decodeHtml(text: string): string {
	return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
		if (ref[0] === '#')
			return String.fromCodePoint(
				ref[1].toLowerCase() === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10),
			);
		return ENTITIES[ref.toLowerCase()] ?? whole;
	});
}

/** A tag's attributes: `name="v"`, `name='v'`, `name=v`, or a bare `name` (value ''), names lower-cased. */
function attributesOf(tag: string): Record<string, string> {
	const attributes: Record<string, string> = {};
	const body = tag.replace(/^<\s*[a-z0-9-]+/i, '').replace(/\/?>$/, '');
	for (const match of body.matchAll(
		/([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g,
	))
		attributes[match[1].toLowerCase()] = decodeHtml(match[2] ?? match[3] ?? match[4] ?? '');
	return attributes;
}

export interface FormControl {
	tag: 'input' | 'textarea' | 'select' | 'button';
	/** input's and button's type (lower-cased; input defaults to text, button to submit). */
	type: string;
	name: string;
	/** The value sent: an input's value attribute (`on` for a checkbox or radio without one), a textarea's text, a select's chosen option. */
	value: string;
	/** radio and checkbox: whether it is checked (as the page set it, then as the test changed it). */
	checked: boolean;
	disabled: boolean;
	/** A select's options, in order. */
	options?: string[];
	/** Where the control starts in the page's HTML. */
	offset: number;
	/** The control's attributes as written (id, class, data-…). */
	attributes: Record<string, string>;
}

export interface HtmlForm {
	method: string;
	/** The action attribute, undefined when absent (the form posts to the page's URL). */
	action?: string;
	controls: FormControl[];
	/** Where the form starts and ends in the page's HTML. */
	start: number;
	end: number;
}

/** The forms of a page, each with its controls in document order. */
export function parseForms(html: string): HtmlForm[] {
	const forms: HtmlForm[] = [];
	for (const open of html.matchAll(/<form\b[^>]*>/gi)) {
		const start = open.index;
		const close = html.toLowerCase().indexOf('</form', start);
		const end = close === -1 ? html.length : close;
		const attributes = attributesOf(open[0]);
		const body = html.slice(start, end);
		const controls: FormControl[] = [];
		const pattern =
			/<(input|button)\b[^>]*>|<textarea\b[^>]*>([\s\S]*?)<\/textarea\s*>|<select\b[^>]*>([\s\S]*?)<\/select\s*>/gi;
		for (const match of body.matchAll(pattern)) {
			const tagText = match[0].slice(0, match[0].indexOf('>') + 1);
			const tag = (
				match[1] ?? tagText.slice(1).split(/[\s>]/)[0]
			).toLowerCase() as FormControl['tag'];
			const attrs = attributesOf(tagText);
			const base = {
				tag,
				name: attrs.name ?? '',
				disabled: 'disabled' in attrs,
				offset: start + match.index,
				attributes: attrs,
				checked: false,
			};
			if (tag === 'textarea') {
				// A browser drops one newline right after <textarea>.
				controls.push({
					...base,
					type: 'textarea',
					value: decodeHtml(match[2].replace(/^\r?\n/, '')),
				});
			} else if (tag === 'select') {
				const options = [
					...match[3].matchAll(/<option\b[^>]*>([\s\S]*?)(?=<option\b|<\/option|$)/gi),
				].map((option) => {
					const optionAttrs = attributesOf(option[0].slice(0, option[0].indexOf('>') + 1));
					return {
						value: optionAttrs.value ?? decodeHtml(option[1].replace(/<[^>]*>/g, '').trim()),
						selected: 'selected' in optionAttrs,
					};
				});
				const chosen = options.find((option) => option.selected) ?? options[0];
				controls.push({
					...base,
					type: 'select',
					value: chosen?.value ?? '',
					options: options.map((option) => option.value),
				});
			} else {
				const type = (attrs.type ?? (tag === 'button' ? 'submit' : 'text')).toLowerCase();
				const toggles = type === 'radio' || type === 'checkbox';
				controls.push({
					...base,
					type,
					value: attrs.value ?? (toggles ? 'on' : ''),
					checked: toggles && 'checked' in attrs,
				});
			}
		}
		forms.push({
			method: (attributes.method ?? 'get').toLowerCase(),
			action: attributes.action,
			controls,
			start,
			end,
		});
	}
	return forms;
}

/** The one form of a page (fails when there is none or several). */
export function parseForm(html: string): HtmlForm {
	const forms = parseForms(html);
	if (forms.length !== 1) throw new Error(`expected one form on the page, found ${forms.length}`);
	return forms[0];
}

/** Radio groups of a form, by name, in document order. */
export function radioGroups(form: HtmlForm): Map<string, FormControl[]> {
	const groups = new Map<string, FormControl[]>();
	for (const control of form.controls)
		if (control.tag === 'input' && control.type === 'radio' && control.name)
			groups.set(control.name, [...(groups.get(control.name) ?? []), control]);
	return groups;
}

/**
 * The form's controls cut into sections by where each marker (an item's subject, say) first
 * appears in the page inside the form: each control belongs to the last marker before it. A
 * control before every marker belongs to no section.
 */
export function sectionsOf(
	html: string,
	form: HtmlForm,
	markers: string[],
): Map<string, FormControl[]> {
	const inForm = html.slice(form.start, form.end);
	const positions = markers.map((marker) => {
		const escaped = marker.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
		const at = inForm.indexOf(escaped);
		if (at === -1) throw new Error(`"${marker}" is not in the form`);
		return { marker, at: form.start + at };
	});
	const sorted = [...positions].sort((a, b) => a.at - b.at);
	const sections = new Map<string, FormControl[]>(markers.map((marker) => [marker, []]));
	for (const control of form.controls) {
		const owner = sorted.filter((position) => position.at < control.offset).pop();
		if (owner) sections.get(owner.marker)!.push(control);
	}
	return sections;
}

/** Checks the radio `value` of group `name`, unchecking the others (a click on it). */
export function choose(form: HtmlForm, name: string, value: string): void {
	const group = form.controls.filter(
		(control) => control.type === 'radio' && control.name === name,
	);
	if (!group.some((control) => control.value === value))
		throw new Error(
			`no radio ${name}=${value} (its values: ${group.map((control) => control.value).join(', ')})`,
		);
	for (const control of group) control.checked = control.value === value;
}

/** Checks or unchecks the checkbox `value` of `name`. */
export function check(form: HtmlForm, name: string, value: string, checked = true): void {
	const box = form.controls.find(
		(control) => control.type === 'checkbox' && control.name === name && control.value === value,
	);
	if (!box) throw new Error(`no checkbox ${name}=${value}`);
	box.checked = checked;
}

/** Types `text` into the text field or textarea `name`. */
export function fill(form: HtmlForm, name: string, text: string): void {
	const field = form.controls.find(
		(control) =>
			control.name === name &&
			(control.tag === 'textarea' ||
				(control.tag === 'input' &&
					!['radio', 'checkbox', 'submit', 'button', 'reset', 'image', 'file'].includes(
						control.type,
					))),
	);
	if (!field) throw new Error(`no text field ${name}`);
	field.value = text;
}

/**
 * What a browser sends for the form (the HTML standard's form data set): in document order, every
 * named control that is not disabled, radios and checkboxes only when checked, buttons only the one
 * pressed (`submitter`, else the first submit button, as pressing Enter does), textareas with CRLF.
 */
export function formBody(form: HtmlForm, submitter?: FormControl): URLSearchParams {
	const body = new URLSearchParams();
	const pressed =
		submitter ??
		form.controls.find(
			(control) =>
				(control.tag === 'button' && control.type === 'submit') ||
				(control.tag === 'input' && control.type === 'submit'),
		);
	for (const control of form.controls) {
		if (!control.name || control.disabled) continue;
		if (control.tag === 'button' || ['submit', 'image', 'reset', 'button'].includes(control.type)) {
			if (control === pressed && control.type === 'submit')
				body.append(control.name, control.value);
			continue;
		}
		if ((control.type === 'radio' || control.type === 'checkbox') && !control.checked) continue;
		if (control.type === 'file') continue;
		body.append(
			control.name,
			control.tag === 'textarea' ? control.value.replace(/\r?\n/g, '\r\n') : control.value,
		);
	}
	return body;
}

export interface Page {
	status: number;
	contentType: string;
	html: string;
}

/** GET a page as a browser opens a link. */
export async function openPage(url: string): Promise<Page> {
	const response = await fetch(url, { headers: { accept: 'text/html' }, redirect: 'manual' });
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		html: await response.text(),
	};
}

/** Submits the form as a browser does from the page at `pageUrl`. */
export async function submitForm(
	pageUrl: string,
	form: HtmlForm,
	submitter?: FormControl,
): Promise<Page> {
	if (form.method !== 'post') throw new Error(`the form's method is ${form.method}, not post`);
	const target = form.action ? new URL(form.action, pageUrl).toString() : pageUrl;
	const response = await fetch(target, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
		body: formBody(form, submitter).toString(),
		redirect: 'manual',
	});
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		html: await response.text(),
	};
}

/** Picks a radio (a click) or a select's option (a choice in the list) of `name`. */
export function pick(form: HtmlForm, name: string, value: string): void {
	const select = form.controls.find((control) => control.tag === 'select' && control.name === name);
	if (select) {
		if (!select.options?.includes(value))
			throw new Error(`no option ${name}=${value} (its options: ${select.options?.join(', ')})`);
		select.value = value;
		return;
	}
	choose(form, name, value);
}

/** What a person does for one item of a review page, found on it by a text it shows (`marker`). */
export interface ReviewChoice {
	marker: string;
	/** The answer picked (route, score); undefined leaves the item for later. */
	answer?: string;
	/** classify: the labels ticked. */
	labels?: string[];
	note?: string;
}

/**
 * Fills a review page's form as a person does: for each item (found by its marker), clicks the
 * answer among its radios (or chooses it in its list, or ticks its labels) and types the note into
 * its text area. Items not named, or named without an answer, are left as the page set them.
 */
export function fillReview(html: string, form: HtmlForm, choices: ReviewChoice[]): void {
	const sections = sectionsOf(
		html,
		form,
		choices.map((choice) => choice.marker),
	);
	for (const choice of choices) {
		const controls = sections.get(choice.marker)!;
		if (choice.answer !== undefined) {
			const control = controls.find(
				(each) =>
					(each.type === 'radio' || each.tag === 'select') &&
					(each.value === choice.answer || each.options?.includes(choice.answer!)),
			);
			if (!control)
				throw new Error(`no answer "${choice.answer}" at "${choice.marker}" on the page`);
			pick(form, control.name, choice.answer);
		}
		for (const label of choice.labels ?? []) {
			const box = controls.find((each) => each.type === 'checkbox' && each.value === label);
			if (!box) throw new Error(`no label "${label}" at "${choice.marker}" on the page`);
			box.checked = true;
		}
		if (choice.note !== undefined) {
			const area = controls.find((each) => each.tag === 'textarea');
			if (!area) throw new Error(`no note field at "${choice.marker}" on the page`);
			area.value = choice.note;
		}
	}
}
