import { escapeHtml } from '../html';
import { itemHtml, selectionOf } from './item-html';
import { reviewDocument } from './layout';
import type { ReviewPage } from './types';
import { answersByKey, utcDateTime } from './words';

// The review page: a header (the title, the decision, the author's instructions, how many
// items, when unreviewed items continue on their own), then one form holding every item (item-html.ts)
// posted back to the URL it was loaded from: no `action`, as n8n's signature is in the query, and no
// script needed. How a submission is read: form.ts. Every string from data is escaped.

export interface ReviewPageOptions {
	/** Why the last submission was refused: shown in a banner above the items. */
	error?: string;
	/** The refused submission: the person's choices and notes are shown again, problems at their items. */
	submitted?: unknown;
}

const TYPE_HINTS = {
	route: 'Pick the one answer that fits each item.',
	score: 'Pick the level that fits each item.',
	classify: 'Tick every label that applies to each item.',
} as const;

function headerHtml(page: ReviewPage): string {
	const { slug, name, type } = page.decision;
	const decision =
		name && name !== slug
			? `${escapeHtml(name)} <span class="key">${escapeHtml(slug)}</span>`
			: escapeHtml(slug);
	const count = page.items.length;
	const items =
		count === 0
			? 'Nothing to review.'
			: `${count} ${count === 1 ? 'item' : 'items'} to review. ${TYPE_HINTS[type]}`;
	const later = page.expiresAt
		? `Items you leave for later continue on their own after <time datetime="${escapeHtml(page.expiresAt)}">${escapeHtml(utcDateTime(page.expiresAt))}</time>.`
		: 'Answer the items you are sure about and leave the others for later.';
	const masked =
		!page.showPersonalData && page.items.some((item) => item.fields.some((field) => field.personal))
			? ' Personal data is hidden on this page.'
			: '';
	const instructions = page.instructions?.trim()
		? `<div class="instructions">${escapeHtml(page.instructions.trim())}</div>`
		: '';
	return `<header><h1>${escapeHtml(page.title)}</h1><p class="muted small">Decision: ${decision}</p>${instructions}<p>${escapeHtml(items)}</p><p class="small muted">${later}${masked}</p></header>`;
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
	const form = `<form method="post" accept-charset="utf-8">${items}<div class="actions"><button type="submit">Send review</button><p class="hint">Items left for later are not sent.</p></div></form>`;
	return reviewDocument(page.title, `${headerHtml(page)}${banner}${form}`);
}
