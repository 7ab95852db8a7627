import { escapeHtml } from '../html';
import { itemHtml, selectionOf } from './item-html';
import { reviewDocument } from './layout';
import type { ReviewPage } from './types';
import { answersByKey, utcDateTime } from './words';

// The review page: a header (the title, the decision, the author's instructions, how many
// items, that it is sent once and until when), then one form holding every item (item-html.ts)
// posted back to the URL it was loaded from: no `action`, as n8n's signature is in the query, and no
// script (the page's Content-Security-Policy allows none: webhook.ts); before the button, that
// sending closes the link, and a confirmation when items are left for later. How a submission is
// read: form.ts. Every string from data is escaped.

export interface ReviewPageOptions {
	/** Why the last submission was refused: shown in a banner above the items. */
	error?: string;
	/** The refused submission: the person's choices and notes are shown again, problems at their items. */
	submitted?: unknown;
}

/** Under the button: what becomes of the items nobody answered once this page is sent. */
export const LATER_HINT =
	'Items you leave for later move on unreviewed when you send, and get no answer from you.';

/** Above the button: the link works once (after the submit, n8n answers it with its own note). */
export const CLOSES_HINT =
	'Sending closes this link: nobody can open this page again to change or add an answer.';

/** After the count of items left (CSS writes the number: layout.ts). */
export const CONFIRM_LEFT = 'Sent now, they move on unreviewed and this link closes.';

/**
 * The buttons. With every item answered, "Send review" sends. With items left for later, the
 * browser shows instead a "Send review" that opens a confirmation (a `details`, no script: the
 * page allows none) saying how many are left, and "Send anyway" sends. The swap is CSS
 * (`:has`, layout.ts); a browser without it, or without CSS, shows the plain button and sends
 * at once, as before. Both buttons are submit buttons without a name: the body is the same.
 */
function actionsHtml(): string {
	const confirm = `<details class="confirm"><summary><span class="when-closed">Send review</span><span class="when-open">Not yet: keep reviewing</span></summary><div class="confirm-box" role="group" aria-label="Items left for later"><p><strong>Items left for later: <span class="left-count"></span>.</strong> ${escapeHtml(CONFIRM_LEFT)}</p><button type="submit" class="send-anyway">Send anyway</button><p class="hint">Or answer them above: this question then goes away.</p></div></details>`;
	return `<div class="actions"><p class="closes small">${escapeHtml(CLOSES_HINT)}</p><button type="submit" class="send">Send review</button>${confirm}<p class="hint">${LATER_HINT}</p></div>`;
}

const TYPE_HINTS = {
	route: 'Pick the one answer that fits each item.',
	score: 'Pick the level that fits each item.',
	classify: 'Tick every label that applies to each item.',
} as const;

function headerHtml(page: ReviewPage): string {
	const { name, type } = page.decision;
	// The decision by its name; its slug is the workflow's business, not the reviewer's.
	const decision = name?.trim()
		? `<p class="muted small">Decision: ${escapeHtml(name.trim())}</p>`
		: '';
	const count = page.items.length;
	const items =
		count === 0
			? 'Nothing to review.'
			: `${count} ${count === 1 ? 'item' : 'items'} to review. ${TYPE_HINTS[type]}`;
	// What really happens: one submit resumes the execution, so what is left for later moves on
	// unreviewed at once; only when nobody sends before the time limit do the items wait for it.
	const later = page.expiresAt
		? `This page can be sent once, until <time datetime="${escapeHtml(page.expiresAt)}">${escapeHtml(utcDateTime(page.expiresAt))}</time>; after that, every item moves on unreviewed.`
		: 'This page can be sent once.';
	const masked =
		!page.showPersonalData && page.items.some((item) => item.fields.some((field) => field.personal))
			? ' Personal data is hidden on this page.'
			: '';
	const instructions = page.instructions?.trim()
		? `<div class="instructions">${escapeHtml(page.instructions.trim())}</div>`
		: '';
	return `<header><h1>${escapeHtml(page.title)}</h1>${decision}${instructions}<p>${escapeHtml(items)}</p><p class="small muted">${later}${masked}</p></header>`;
}

/** The review page as one HTML document; with `error`, a banner says why the last submission was refused. */
export function renderReviewPage(page: ReviewPage, options: ReviewPageOptions = {}): string {
	const answers = answersByKey(page);
	const banner = options.error
		? `<div class="banner" role="alert">${escapeHtml(options.error)}</div>`
		: '';
	const items = page.items
		.map((item) => itemHtml(item, page, answers, selectionOf(options.submitted, item, page)))
		.join('');
	const form = `<form method="post" accept-charset="utf-8">${items}${actionsHtml()}</form>`;
	return reviewDocument(page.title, `${headerHtml(page)}${banner}${form}`);
}
