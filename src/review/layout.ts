import { escapeHtml } from '../html';

// The frame of every review page: one HTML document, inline CSS, no script, no external asset
// (no CDN, no web font), readable at 360 px wide and pleasant on a desktop. The page's
// Content-Security-Policy (webhook.ts) allows inline style and forms only, so nothing here may
// need cookies, storage or script: the confirmation before a send with items left is CSS. The resume URL carries n8n's signature in its query: the page sets
// no-referrer and links nowhere, so the token cannot leak.

/**
 * An item left for later: nothing picked (the "Leave for later" radio and option have the value
 * ""; a classify item has no box ticked). Items come before the buttons in the form, so `~` reaches
 * them without nesting `:has` (not allowed).
 */
const LEFT = '.item:not(:has(input:checked:not([value=""]),option:checked:not([value=""])))';

const CSS = `
:root{color-scheme:light dark;--bg:#f4f6fa;--card:#fff;--text:#1d2433;--muted:#5b6478;--line:#dde2ec;--accent:#2563eb;--accent-soft:#e8efff;--warn:#9a4b00;--warn-soft:#fff2dc;--bad:#b42318;--bad-soft:#fdecea;--good:#146c3a;--good-soft:#e5f5eb}
@media (prefers-color-scheme:dark){:root{--bg:#12151c;--card:#1b202b;--text:#e7eaf1;--muted:#a3abbd;--line:#323a4c;--accent:#7aa5ff;--accent-soft:#223255;--warn:#f4b860;--warn-soft:#3b2d15;--bad:#ff9b92;--bad-soft:#40201e;--good:#7fd9a4;--good-soft:#183726}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere;word-break:break-word}
main{max-width:760px;margin:0 auto;padding:16px 14px 24px}
h1{font-size:1.45rem;line-height:1.25;margin:8px 0 6px}
h2{font-size:1.05rem;line-height:1.3;margin:0}
p{margin:6px 0}
.muted{color:var(--muted)}
.small{font-size:.875rem}
.instructions{white-space:pre-wrap;background:var(--card);border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:8px;padding:10px 12px;margin:10px 0}
.banner{background:var(--bad-soft);color:var(--bad);border:1px solid currentColor;border-radius:10px;padding:12px 14px;margin:14px 0;font-weight:500}
.item{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:14px;margin:16px 0}
.item.refused{border-color:var(--bad);box-shadow:0 0 0 1px var(--bad)}
.item-head{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:6px 10px}
.why{color:var(--muted);font-size:.9rem}
.fields{margin:12px 0;display:grid;gap:10px}
.field dt{font-size:.8rem;font-weight:600;color:var(--muted)}
.field dd{margin:2px 0 0;white-space:pre-wrap}
.field details{display:inline}
.field summary{cursor:pointer;color:var(--accent);font-size:.875rem;white-space:normal}
.masked,.empty{font-style:italic;color:var(--muted)}
.tag{display:inline-block;font-size:.72rem;font-weight:600;letter-spacing:.02em;padding:1px 8px;border-radius:999px;background:var(--accent-soft);color:var(--accent);white-space:nowrap;vertical-align:middle}
.key{font:.8rem/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:var(--muted)}
.machine{border-top:1px solid var(--line);padding-top:10px;margin-top:12px}
.probs{list-style:none;margin:8px 0 0;padding:0;display:grid;gap:4px}
.prob{display:grid;grid-template-columns:minmax(0,1fr) minmax(60px,34%) 3.2em;gap:8px;align-items:center;font-size:.875rem}
.bar{height:8px;background:var(--line);border-radius:4px;overflow:hidden}
.bar>span{display:block;height:100%;background:var(--accent);border-radius:4px}
.pct{text-align:right;font-variant-numeric:tabular-nums}
.prob strong{font-weight:500}
.more summary{cursor:pointer;color:var(--accent);font-size:.875rem;margin-top:4px}
fieldset{border:0;margin:14px 0 0;padding:0;min-width:0}
legend{font-weight:600;padding:0;margin-bottom:8px}
.choices{display:grid;gap:8px}
@media (min-width:600px){.choices{grid-template-columns:1fr 1fr}}
.choice{display:flex;align-items:center;gap:12px;min-height:48px;padding:10px 12px;border:1px solid var(--line);border-radius:10px;background:var(--card);cursor:pointer}
.choice input{width:22px;height:22px;margin:0;flex:none;accent-color:var(--accent)}
.choice .text{flex:1;min-width:0}
.choice:has(input:checked){border-color:var(--accent);background:var(--accent-soft)}
.choice.later{border-style:dashed}
.choice.none{border-style:dashed}
select,textarea{width:100%;font:inherit;color:inherit;background:var(--card);border:1px solid var(--line);border-radius:10px}
select{min-height:48px;padding:8px 10px}
textarea{min-height:76px;padding:10px 12px;resize:vertical}
.control-label{display:block;font-weight:600;margin:14px 0 6px}
.hint{color:var(--muted);font-size:.85rem;margin:6px 0 0}
.problem{color:var(--bad);font-weight:600;margin:10px 0 0}
.actions{position:sticky;bottom:0;background:var(--bg);border-top:1px solid var(--line);padding:12px 0 calc(12px + env(safe-area-inset-bottom));margin-top:8px}
button{display:block;width:100%;min-height:52px;padding:0 28px;font:inherit;font-weight:650;color:#fff;background:#2563eb;border:0;border-radius:12px;cursor:pointer}
button:focus-visible,.choice:focus-within{outline:3px solid var(--accent);outline-offset:2px}
@media (min-width:600px){button{display:inline-block;width:auto}}
.done{text-align:center;padding-top:12vh}
.closes{margin:0 0 10px;font-weight:600}
form{counter-reset:left}
${LEFT}{counter-increment:left}
.left-count::before{content:counter(left)}
.confirm{display:none}
@supports selector(:has(a)){${LEFT}~.actions .send{display:none}${LEFT}~.actions .confirm{display:block}}
.confirm>summary{list-style:none;display:flex;align-items:center;justify-content:center;min-height:52px;padding:0 28px;font-weight:650;color:#fff;background:#2563eb;border-radius:12px;cursor:pointer}
.confirm>summary::-webkit-details-marker{display:none}
.confirm>summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.confirm[open]>summary{color:var(--accent);background:var(--card);border:1px solid var(--accent)}
.confirm[open] .when-closed,.confirm:not([open]) .when-open,.confirm[open]~.hint{display:none}
.confirm-box{margin-top:10px;padding:12px 14px;border:1px solid var(--warn);border-radius:12px;background:var(--warn-soft);color:var(--text)}
.confirm-box strong{color:var(--warn)}
.send-anyway{margin-top:8px;background:#b45309}
@media (min-width:600px){.confirm>summary{display:inline-flex}}
`;

/** One review document: the head every page shares, then `body` (already HTML) in main. */
export function reviewDocument(title: string, body: string): string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><meta name="robots" content="noindex,nofollow"><title>${escapeHtml(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>`;
}

function count(n: number, one: string, many: string): string {
	return `${n} ${n === 1 ? one : many}`;
}

/** The page after a review was taken. */
export function renderReviewDone(summary: {
	reviewed: number;
	unreviewed: number;
	title: string;
}): string {
	const line = `Thank you: ${count(summary.reviewed, 'item', 'items')} reviewed, ${summary.unreviewed} moved on unreviewed; you can close this page.`;
	// n8n answers the link itself once the execution is over (docs/what-happens-when.md, Review):
	// the reviewer hears it here, in words, before meeting n8n's technical note.
	const closed =
		'This link is now closed: opened again, it shows only a short technical note from n8n.';
	return reviewDocument(
		summary.title,
		`<div class="done"><h1>${escapeHtml(summary.title)}</h1><p>${escapeHtml(line)}</p><p class="small muted">${escapeHtml(closed)}</p></div>`,
	);
}

/** The page of a review that can no longer be submitted: the message, nothing else. */
export function renderReviewClosed(message: string): string {
	return reviewDocument('Review', `<div class="done"><p>${escapeHtml(message)}</p></div>`);
}
