/**
 * The review pages (issue 21) as a person's browser gets them: one self-contained document, a
 * plain form that posts back to its own URL, every string from data shown as text, personal fields
 * masked, the right inputs per decision type.
 */
import { escapeHtml } from '../../src/html';
import {
	renderReviewClosed,
	renderReviewDone,
	renderReviewPage,
	type ReviewPage,
} from '../../src/review';
import { CLOSES_HINT, CONFIRM_LEFT } from '../../src/review/page-html';
import { JS_FIELD_NAMES, JS_KEYS } from '../support/js-names';
import {
	classifyPage,
	controlsOf,
	HOSTILE,
	QUOTES,
	routePage,
	scorePage,
	textOf,
} from '../support/review-pages';

/** The HTML of the item with this index. */
function itemHtml(html: string, index: number): string {
	const start = html.indexOf(`<section class="item`, html.indexOf(`id="item-${index}"`) - 40);
	return html.slice(start, html.indexOf('</section>', start));
}

describe('the document', () => {
	const html = renderReviewPage(routePage());

	it('is one HTML document that a phone shows at its width', () => {
		expect(html.startsWith('<!doctype html>')).toBe(true);
		expect(html).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
		expect(html).toContain('<meta charset="utf-8">');
		expect(html).toContain('<title>Review: ticket-routing</title>');
	});

	it('needs no script and loads nothing from elsewhere', () => {
		expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|@import|url\(/i);
		expect(html).not.toMatch(/https?:\/\//);
		expect(html).not.toMatch(/\son[a-z]+=/i);
	});

	it('posts one plain form back to the URL it was loaded from (no action)', () => {
		expect(html.match(/<form\b[^>]*>/g)).toEqual(['<form method="post" accept-charset="utf-8">']);
		expect(html).not.toMatch(/\saction=/);
		expect(html).not.toMatch(/enctype=/);
		// "Send review" and the confirmation's "Send anyway": both send the same body (no name).
		expect(html.match(/<button\b[^>]*>/g)).toEqual([
			'<button type="submit" class="send">',
			'<button type="submit" class="send-anyway">',
		]);
	});

	it('sends no referrer: the resume URL carries n8n’s signature', () => {
		expect(html).toContain('<meta name="referrer" content="no-referrer">');
	});

	it('wraps long text instead of scrolling sideways', () => {
		expect(html).toMatch(/body\{[^}]*overflow-wrap:anywhere/);
		expect(html).toMatch(/\.field dd\{[^}]*white-space:pre-wrap/);
	});
});

describe('the header', () => {
	it('shows the title, the decision, the instructions, how many items, that it is sent once and until when', () => {
		const text = textOf(renderReviewPage(routePage()));
		expect(text).toContain('Review: ticket-routing');
		expect(text).toContain('Decision: Ticket routing Pick the team for each ticket.');
		expect(text).toContain('Pick the team for each ticket.');
		expect(text).toContain('3 items to review.');
		expect(text).toContain(
			'This page can be sent once, until 2026-11-30 14:05 UTC; after that, every item moves on unreviewed.',
		);
		// Nothing says items left for later wait for the time limit: a submit sends them on.
		expect(text).not.toMatch(/continue on their own|are not sent/);
		expect(text).toContain(
			'Items you leave for later move on unreviewed when you send, and get no answer from you.',
		);
	});

	it('shows the expiry in UTC whatever offset it was given with', () => {
		const text = textOf(renderReviewPage(routePage({ expiresAt: '2026-11-30T16:05:00+02:00' })));
		expect(text).toContain('until 2026-11-30 14:05 UTC;');
	});

	it('says one item, and nothing about an expiry it does not have', () => {
		const page = routePage({ expiresAt: undefined, instructions: undefined });
		const text = textOf(renderReviewPage({ ...page, items: page.items.slice(0, 1) }));
		expect(text).toContain('1 item to review.');
		expect(text).not.toContain('until');
		expect(text).toContain('This page can be sent once.');
	});

	it('says personal data is hidden only when some is', () => {
		expect(textOf(renderReviewPage(routePage()))).toContain(
			'Personal data is hidden on this page.',
		);
		expect(textOf(renderReviewPage(routePage({ showPersonalData: true })))).not.toContain(
			'Personal data is hidden',
		);
		expect(textOf(renderReviewPage(scorePage()))).not.toContain('Personal data is hidden');
	});
});

describe('everything from data is text', () => {
	const hostilePage: ReviewPage = {
		title: `Review: ${HOSTILE}`,
		instructions: QUOTES,
		decision: { slug: HOSTILE, name: QUOTES, type: 'route' },
		answers: [
			{ key: HOSTILE, label: QUOTES },
			{ key: QUOTES, label: QUOTES },
			{ key: 'plain', label: HOSTILE },
		],
		items: [
			{
				index: 0,
				runId: HOSTILE,
				status: HOSTILE,
				machineAnswer: [QUOTES],
				confidence: 0.5,
				probabilities: [
					{ key: HOSTILE, value: 0.3 },
					{ key: QUOTES, value: 0.5 },
					{ key: `unknown ${HOSTILE}`, value: 0.2 },
				],
				fields: [
					{ name: HOSTILE, value: QUOTES, personal: false },
					{ name: QUOTES, value: `${HOSTILE}\n</textarea></form>`, personal: false },
				],
				note: HOSTILE,
			},
		],
		showPersonalData: false,
		expiresAt: HOSTILE,
	};
	const html = renderReviewPage(hostilePage, { error: QUOTES });

	it('writes no markup of its own', () => {
		expect(html).not.toContain('<script');
		expect(html).not.toContain('<img');
		expect(html).not.toContain('</textarea></form>');
		expect(html.match(/<form\b/g)).toHaveLength(1);
		expect(html.match(/<\/form>/g)).toHaveLength(1);
	});

	it('shows every hostile string as the text it is', () => {
		const text = textOf(html);
		for (const shown of [HOSTILE, QUOTES, `Review: ${HOSTILE}`, `unknown ${HOSTILE}`]) {
			expect(text).toContain(shown);
		}
		expect(html).toContain(escapeHtml(HOSTILE));
	});

	it('keeps hostile keys intact as input values', () => {
		const values = controlsOf(html)
			.filter((control) => control.kind === 'radio')
			.map((control) => control.value);
		expect(values).toEqual(['', HOSTILE, QUOTES, 'plain']);
	});

	it('shows a date it cannot read as given, escaped', () => {
		expect(html).toContain(`<time datetime="${escapeHtml(HOSTILE)}">${escapeHtml(HOSTILE)}</time>`);
	});

	it('escapes the done and closed pages too', () => {
		expect(renderReviewDone({ reviewed: 1, unreviewed: 0, title: HOSTILE })).not.toContain(
			'<script',
		);
		expect(renderReviewClosed(HOSTILE)).not.toContain('<script');
		expect(textOf(renderReviewClosed(HOSTILE))).toBe(HOSTILE);
	});
});

describe('personal data', () => {
	it('is masked and never written when the page does not show it', () => {
		const html = renderReviewPage(routePage());
		expect(html).not.toContain('jane@example.com');
		expect(textOf(itemHtml(html, 0))).toContain('email personal data hidden: personal data');
	});

	it('is shown, marked, when the page shows it', () => {
		const text = textOf(itemHtml(renderReviewPage(routePage({ showPersonalData: true })), 0));
		expect(text).toContain('email personal data jane@example.com');
		expect(text).not.toContain('hidden: personal data');
	});

	it('masks only the personal fields', () => {
		const text = textOf(renderReviewPage(routePage()));
		expect(text).toContain('subject Charged twice');
	});
});

describe('an item', () => {
	it('shows its fields in order, why it is here and the machine’s answer in words', () => {
		const text = textOf(itemHtml(renderReviewPage(routePage()), 0));
		expect(text).toMatch(
			/^Item 1 The service was not sure enough to answer on its own. Confidence 0.41 is under the decision's threshold/,
		);
		expect(text.indexOf('subject')).toBeLessThan(text.indexOf('email'));
		expect(text).toContain('Suggested: Billing team (41%)');
		expect(text).toContain('Confidence 0.41');
	});

	it('shows probabilities as bars, high to low', () => {
		const html = itemHtml(renderReviewPage(routePage()), 0);
		const rows = [...html.matchAll(/<li class="prob">([\s\S]*?)<\/li>/g)].map((m) => textOf(m[1]));
		expect(rows).toEqual(['Billing team 41%', 'technical 33%', 'sales 26%']);
		expect(html).toContain('<span style="width:41%"></span>');
	});

	it('rounds one way: 0.955 reads 96% and Confidence 0.96, and the bars add up to 100 (issue 45)', () => {
		const page = routePage({
			answers: ['billing', 'technical', 'sales', 'account'].map((key) => ({ key, label: key })),
		});
		page.items[0] = {
			...page.items[0],
			status: 'ok',
			machineAnswer: ['sales'],
			confidence: 0.955,
			probabilities: [
				{ key: 'sales', value: 0.955 },
				{ key: 'billing', value: 0.015 },
				{ key: 'technical', value: 0.015 },
				{ key: 'account', value: 0.015 },
			],
		};
		const html = itemHtml(renderReviewPage(page), 0);
		const text = textOf(html);
		expect(text).toContain('Suggested: sales (96%)');
		expect(text).toContain('Confidence 0.96');
		const figures = [...html.matchAll(/<span class="pct">(\d+)%<\/span>/g)].map((m) =>
			Number(m[1]),
		);
		const widths = [...html.matchAll(/style="width:(\d+)%"/g)].map((m) => Number(m[1]));
		expect(figures).toEqual([96, 2, 1, 1]);
		expect(widths).toEqual(figures);
	});

	it('bars of shares that add up to 1 add up to 100 %, whatever the shares', () => {
		const cases = [
			[0.335, 0.335, 0.165, 0.165],
			[1 / 3, 1 / 3, 1 / 3],
			[0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125, 0.125],
			[0.505, 0.495],
			[0.2, 0.2, 0.2, 0.2, 0.2],
		];
		for (const shares of cases) {
			const keys = shares.map((_share, at) => `k${at}`);
			const page = routePage({ answers: keys.map((key) => ({ key, label: key })) });
			page.items[0] = {
				...page.items[0],
				machineAnswer: ['k0'],
				probabilities: shares.map((value, at) => ({ key: keys[at], value })),
			};
			const html = itemHtml(renderReviewPage(page), 0);
			const figures = [...html.matchAll(/<span class="pct">(\d+)%<\/span>/g)].map((m) =>
				Number(m[1]),
			);
			const total = figures.reduce((sum, each) => sum + each, 0);
			expect({ shares, total }).toEqual({ shares, total: 100 });
		}
	});

	it('tells a confidence just under the threshold from the threshold (0.598 under 0.60)', () => {
		const page = routePage();
		page.decision.threshold = 0.6;
		page.items[0].confidence = 0.598;
		expect(textOf(itemHtml(renderReviewPage(page), 0))).toContain(
			"Confidence 0.598, under the decision's threshold 0.600",
		);
	});

	it('keeps a long list of probabilities short, the rest one tap away', () => {
		const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
		const page = routePage({
			answers: keys.map((key) => ({ key, label: key })),
			items: [
				{
					...routePage().items[0],
					machineAnswer: ['k7'],
					probabilities: keys.map((key, i) => ({ key, value: (i + 1) / 36 })),
				},
			],
		});
		const html = renderReviewPage(page);
		expect(html).toMatch(/<details class="more"><summary>3 more<\/summary>/);
		expect(html.indexOf('k7')).toBeLessThan(html.indexOf('k0'));
	});

	it('says in words why a pending item is here, then where the machine leans', () => {
		const leaning = routePage();
		leaning.items[1].machineAnswer = ['sales'];
		leaning.items[1].probabilities = [
			{ key: 'sales', value: 0.5 },
			{ key: 'billing', value: 0.3 },
		];
		const text = textOf(itemHtml(renderReviewPage(leaning), 1));
		expect(text).toMatch(/^Item 2 The service asks a person to decide this one\./);
		expect(text).toContain('Leaning to sales (50%)');
	});

	it('shows no leaning on a tie at the top: it says the answers are equally likely', () => {
		// routePage's item 2: sales and billing at 50% each, no guess (src/answer/kinds.ts).
		const html = itemHtml(renderReviewPage(routePage()), 1);
		const text = textOf(html);
		expect(text).toContain('No suggestion: Billing team and sales are equally likely (50% each).');
		expect(text).not.toMatch(/Leaning|Suggested|suggested/);
		// Four options at 25%, as the sandbox gives a ticket with no telling word.
		const four = routePage({
			answers: ['billing', 'technical', 'sales', 'account'].map((key) => ({ key, label: key })),
		});
		four.items[1].probabilities = four.answers.map(({ key }) => ({ key, value: 0.25 }));
		const fourText = textOf(itemHtml(renderReviewPage(four), 1));
		expect(fourText).toContain(
			'No suggestion: billing, technical, sales and account are equally likely (25% each).',
		);
		expect(fourText).not.toMatch(/Leaning to|suggested/);
	});

	it('shows no status of the service’s and no slug: a reviewer reads words and names', () => {
		for (const page of [routePage(), scorePage(), classifyPage()]) {
			const html = renderReviewPage(page);
			const text = textOf(html.replace(/<title>[\s\S]*?<\/title>/, ''));
			expect(text).not.toMatch(/review queue|\bpending\b|\buncertain\b|\bfailed\b/i);
			expect(html).not.toMatch(/class="chip/);
			// The decision by its name; the slug only where the fixture's own title holds it.
			const header = textOf(html.slice(html.indexOf('<header>'), html.indexOf('</header>')));
			expect(header.replace(page.title, '')).not.toContain(page.decision.slug);
		}
	});

	it('numbers items from 1, as people count (the form keeps n8n’s 0-based names)', () => {
		const html = renderReviewPage(routePage());
		expect([...html.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1])).toEqual([
			'Item 1',
			'Item 2',
			'Item 3',
		]);
		expect(controlsOf(itemHtml(html, 0))[0].name).toBe('pick-0');
	});

	it('shows a key only beside a name two answers share', () => {
		const page = routePage({
			answers: [
				{ key: 'billing', label: 'Money' },
				{ key: 'refunds', label: 'Money' },
				{ key: 'sales', label: 'Sales team' },
			],
		});
		page.items[0].machineAnswer = ['sales'];
		page.items[0].probabilities = [{ key: 'sales', value: 0.6 }];
		const text = textOf(itemHtml(renderReviewPage(page), 0));
		expect(text).toContain('Leave for later Money billing Money refunds Sales team suggested');
		expect(text).toContain('Suggested: Sales team (60%)');
	});

	it('names the threshold beside a confidence under it, and only then', () => {
		const page = routePage();
		page.decision.threshold = 0.6;
		page.items[0].confidence = 0.41;
		page.items[1].confidence = 0.75;
		const html = renderReviewPage(page);
		expect(textOf(itemHtml(html, 0))).toContain(
			"Confidence 0.41, under the decision's threshold 0.60",
		);
		expect(textOf(itemHtml(html, 1))).toContain('Confidence 0.75');
		expect(textOf(itemHtml(html, 1))).not.toContain('threshold');
	});

	it('says why a failed item is here and that there is no suggestion', () => {
		const text = textOf(itemHtml(renderReviewPage(routePage()), 2));
		expect(text).toMatch(/^Item 3 The service did not answer/);
		expect(text).toContain('No suggestion from the service.');
		expect(text).not.toContain('Confidence');
	});

	it('shows rounded shares that never claim 0% or 100% when they are not', () => {
		const page = scorePage();
		page.items[0].probabilities = [
			{ key: 'cold', value: 0.001 },
			{ key: 'warm', value: 0.998 },
			{ key: 'hot', value: 0.001 },
		];
		const text = textOf(renderReviewPage(page));
		expect(text).toContain('Suggested: warm (>99%)');
		expect(text).toContain('cold <1%');
	});

	it('cuts a very long value, the rest behind "Show all"', () => {
		const page = scorePage();
		page.items[0].fields = [{ name: 'body', value: 'word '.repeat(400), personal: false }];
		const html = renderReviewPage(page);
		expect(html).toContain('<details><summary>Show all (2000 characters)</summary>');
		expect(textOf(html).match(/word/g)).toHaveLength(400);
	});

	it('says so when nothing was mapped, and shows an empty value as empty', () => {
		const page = scorePage();
		page.items[0].fields = [];
		expect(textOf(renderReviewPage(page))).toContain('No fields were mapped for this item.');
		page.items[0].fields = [{ name: 'company', value: '', personal: false }];
		expect(textOf(renderReviewPage(page))).toContain('company (empty)');
	});
});

describe('the choices', () => {
	it('route: "Leave for later" first and chosen, then every option by its name, and a note', () => {
		const html = renderReviewPage(routePage());
		const controls = controlsOf(itemHtml(html, 0));
		expect(controls).toEqual([
			{ kind: 'radio', name: 'pick-0', value: '', checked: true },
			{ kind: 'radio', name: 'pick-0', value: 'billing', checked: false },
			{ kind: 'radio', name: 'pick-0', value: 'technical', checked: false },
			{ kind: 'radio', name: 'pick-0', value: 'sales', checked: false },
			{ kind: 'textarea', name: 'note-0', value: '', checked: true },
		]);
		const text = textOf(itemHtml(html, 0));
		expect(text).toContain('Your answer Leave for later Billing team suggested technical sales');
		expect(itemHtml(html, 0)).toContain('maxlength="1000"');
		expect(controlsOf(html).filter((c) => c.kind === 'radio' && c.checked)).toHaveLength(3);
	});

	it('score: the levels lowest first, as radios', () => {
		const html = renderReviewPage(scorePage());
		expect(controlsOf(html).map((c) => `${c.kind}:${c.value}`)).toEqual([
			'radio:',
			'radio:cold',
			'radio:warm',
			'radio:hot',
			'textarea:',
		]);
		expect(textOf(html)).toContain(
			'Your answer (lowest level first) Leave for later cold warm suggested hot',
		);
	});

	it('classify: a checkbox per label, "No label applies", nothing ticked', () => {
		const html = renderReviewPage(classifyPage());
		expect(controlsOf(itemHtml(html, 0))).toEqual([
			{ kind: 'checkbox', name: 'pick-0', value: 'urgent', checked: false },
			{ kind: 'checkbox', name: 'pick-0', value: 'refund', checked: false },
			{ kind: 'checkbox', name: 'pick-0', value: 'spam', checked: false },
			{ kind: 'checkbox', name: 'none-0', value: '1', checked: false },
			{ kind: 'textarea', name: 'note-0', value: '', checked: true },
		]);
		const text = textOf(itemHtml(html, 0));
		expect(text).toContain('Suggested: urgent (82%), Refund request (64%)');
		expect(text).toContain('urgent suggested Refund request suggested spam No label applies');
		expect(text).toContain('Tick nothing to leave this item for later.');
		expect(textOf(itemHtml(html, 1))).toContain('Suggested: no label');
	});

	it('a route with many options: one drop-down list, "Leave for later" selected', () => {
		const keys = Array.from({ length: 30 }, (_, i) => `option-${i}`);
		const page = routePage({ answers: keys.map((key) => ({ key, label: key.toUpperCase() })) });
		page.items[0].machineAnswer = ['option-3'];
		const controls = controlsOf(itemHtml(renderReviewPage(page), 0));
		expect(controls[0]).toEqual({ kind: 'select', name: 'pick-0', value: '', checked: true });
		expect(controls.slice(1, 3)).toEqual([
			{ kind: 'option', name: 'pick-0', value: '', checked: false },
			{ kind: 'option', name: 'pick-0', value: 'option-0', checked: false },
		]);
		expect(controls.filter((c) => c.kind === 'option')).toHaveLength(31);
		expect(controls.filter((c) => c.kind === 'radio')).toEqual([]);
		expect(textOf(renderReviewPage(page))).toContain('OPTION-3 · suggested');
		expect(textOf(renderReviewPage(page))).not.toContain('option-3');
	});

	it('names that are JavaScript’s own are ordinary keys and field names', () => {
		const page = classifyPage({ answers: JS_KEYS.map((key) => ({ key, label: key })) });
		page.items[0].fields = JS_FIELD_NAMES.map((name) => ({
			name,
			value: `${name}!`,
			personal: false,
		}));
		page.items[0].machineAnswer = ['constructor'];
		page.items[0].probabilities = [{ key: 'constructor', value: 0.7 }];
		const html = renderReviewPage(page);
		expect(
			controlsOf(itemHtml(html, 0))
				.filter((c) => c.name === 'pick-0')
				.map((c) => c.value),
		).toEqual([...JS_KEYS]);
		const text = textOf(itemHtml(html, 0));
		for (const name of JS_FIELD_NAMES) expect(text).toContain(`${name} ${name}!`);
		expect(text).toContain('Suggested: constructor (70%)');
	});
});

describe('sending', () => {
	const html = renderReviewPage(routePage());
	const actions = html.slice(html.indexOf('<div class="actions">'), html.indexOf('</form>'));
	const css = html.slice(html.indexOf('<style>'), html.indexOf('</style>'));

	it('says before the button that sending closes the link', () => {
		const text = textOf(actions);
		expect(text.indexOf(CLOSES_HINT)).toBe(0);
		expect(text.indexOf(CLOSES_HINT)).toBeLessThan(text.indexOf('Send review'));
	});

	it('asks first when items are left for later: "Send anyway" in a confirmation, no script', () => {
		expect(actions).toMatch(
			/^<div class="actions"><p class="closes small">[^<]*<\/p><button type="submit" class="send">Send review<\/button><details class="confirm"><summary>/,
		);
		expect(textOf(actions)).toContain(
			`Send review Send review Not yet: keep reviewing Items left for later:. ${CONFIRM_LEFT} Send anyway`,
		);
		expect(html).not.toMatch(/<script|\son[a-z]+=/i);
	});

	it('shows the confirmation only while an item is left, the plain button otherwise (CSS)', () => {
		// An item is left when nothing in it is picked: no radio, option or box with a value.
		const left = '.item:not(:has(input:checked:not([value=""]),option:checked:not([value=""])))';
		expect(css).toContain('.confirm{display:none}');
		expect(css).toContain(
			`@supports selector(:has(a)){${left}~.actions .send{display:none}${left}~.actions .confirm{display:block}}`,
		);
		// The number of items left, counted by CSS where the question says it.
		expect(css).toContain(`${left}{counter-increment:left}`);
		expect(css).toContain('.left-count::before{content:counter(left)}');
		// Without :has (or without CSS) the plain button shows and sends: nothing hides it outside.
		expect(css.replace(/@supports[^{]*\{[^}]*\}[^}]*\}[^}]*\}/, '')).not.toMatch(
			/\.send\{display:none/,
		);
	});
});

describe('a refused submission shown again', () => {
	it('shows the error in a banner and keeps what the person chose and wrote', () => {
		const page = routePage();
		const html = renderReviewPage(page, {
			error: 'Nothing was saved yet. Item 1: "nope" is not one of the answers.',
			submitted: { 'pick-0': 'nope', 'note-0': 'see <b>', 'pick-1': 'sales', 'note-1': ' why ' },
		});
		expect(html).toContain(
			'<div class="banner" role="alert">Nothing was saved yet. Item 1: &quot;nope&quot; is not one of the answers.</div>',
		);
		const first = itemHtml(html, 0);
		expect(first).toContain('<section class="item refused" id="item-0">');
		expect(textOf(first)).toContain('"nope" is not one of the answers.');
		expect(controlsOf(first).find((c) => c.kind === 'radio' && c.checked)?.value).toBe('');
		expect(controlsOf(first).find((c) => c.kind === 'textarea')?.value).toBe('see <b>');
		const second = controlsOf(itemHtml(html, 1));
		expect(second.find((c) => c.kind === 'radio' && c.checked)?.value).toBe('sales');
		expect(second.find((c) => c.kind === 'textarea')?.value).toBe('why');
		expect(itemHtml(html, 1)).not.toContain('refused');
	});

	it('keeps ticked labels and "No label applies"', () => {
		const html = renderReviewPage(classifyPage(), {
			submitted: { 'pick-0': ['refund', 'spam'], 'none-1': '1' },
		});
		expect(
			controlsOf(html)
				.filter((c) => c.checked && c.kind === 'checkbox')
				.map((c) => `${c.name}=${c.value}`),
		).toEqual(['pick-0=refund', 'pick-0=spam', 'none-1=1']);
	});

	it('ignores a submission that is not an object', () => {
		expect(renderReviewPage(routePage(), { submitted: 'pick-0=billing' })).toBe(
			renderReviewPage(routePage()),
		);
	});
});

describe('the pages after', () => {
	it('thanks the person and says how many were reviewed and left', () => {
		const html = renderReviewDone({ reviewed: 3, unreviewed: 1, title: 'Review: ticket-routing' });
		expect(textOf(html)).toBe(
			'Review: ticket-routing Thank you: 3 items reviewed, 1 moved on unreviewed; you can close this page. This link is now closed: opened again, it shows only a short technical note from n8n.',
		);
		expect(textOf(renderReviewDone({ reviewed: 1, unreviewed: 0, title: 'R' }))).toContain(
			'Thank you: 1 item reviewed, 0 moved on unreviewed',
		);
		expect(html).not.toMatch(/<form|<script/);
	});

	it('a closed review shows its message and nothing else', () => {
		const html = renderReviewClosed('This review was already submitted.');
		expect(textOf(html)).toBe('This review was already submitted.');
		expect(html).not.toMatch(/<form|<script|<input/);
		expect(html).toContain('<meta name="viewport"');
	});
});
