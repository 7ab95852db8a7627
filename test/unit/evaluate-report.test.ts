import { escapeHtml } from '../../src/html';
import { answerOfRun, type RunFields } from '../support/answers';
import {
	evaluate,
	formatNumber,
	formatRate,
	renderReport,
	summaryOf,
	type Metrics,
	type ScoredItem,
} from '../../src/evaluate';
import { type EvaluationDecision } from '../../src/answer';

const HOSTILE = '<script>alert("x")</script>';
const QUOTES = `"><img src=x onerror='alert(1)'>`;

type EvaluatedRun = RunFields;

const item = (expected: unknown, run: EvaluatedRun, charged = 1): ScoredItem => ({
	expected,
	run: answerOfRun(run),
	charged,
});

function figureOf(html: string, id: string): string | undefined {
	const match = new RegExp(
		`data-figure="${id}"><span class="value(?: words)?">([^<]*)</span>`,
	).exec(html);
	return match?.[1];
}

/** The text of the page with tags removed: what a reader sees. */
function textOf(html: string): string {
	return html
		.replace(/<style>[\s\S]*?<\/style>/g, '')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, '&');
}

describe('escapeHtml and formatting', () => {
	it('escapes the five characters that matter', () => {
		expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
			'&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
		);
	});
	it('formats undefined figures as a dash, never NaN', () => {
		expect(formatRate(null)).toBe('–');
		expect(formatRate(Number.NaN)).toBe('–');
		expect(formatRate(2 / 3)).toBe('66.7%');
		expect(formatNumber(0.75)).toBe('0.75');
		expect(formatNumber(null)).toBe('–');
	});
});

describe('the route report', () => {
	// Keys are untrusted: a script tag, quotes, and JavaScript's own names.
	const decision: EvaluationDecision = {
		type: 'route',
		keys: ['billing', HOSTILE, 'constructor', QUOTES],
	};
	const run = (choice: string, confidence: number, model = 'jev-1.4.2'): EvaluatedRun => ({
		status: 'ok',
		choice,
		confidence,
		engine: 'jev',
		model,
	});
	// #  expected     answer       confidence
	// 0  billing      billing      0.9   ✓
	// 1  billing      <script>     0.5   ✗
	// 2  <script>     <script>     0.8   ✓
	// 3  constructor  (uncertain)
	// accuracy 2/3 = 66.7%, answered 3/4 = 75.0%, uncertain 25.0%, units 3 (item 3 carried its run)
	const { metrics } = evaluate(
		decision,
		[
			item('billing', run('billing', 0.9)),
			item('billing', run(HOSTILE, 0.5, HOSTILE)),
			item(HOSTILE, run(HOSTILE, 0.8, `${QUOTES}model`)),
			item('constructor', { status: 'uncertain', choice: '__uncertain__', confidence: 0.3 }, 0),
		],
		{ targetAccuracy: 0.9 },
	);
	const html = renderReport(metrics, { title: `Tickets ${HOSTILE}`, decision: QUOTES });

	it('shows the headline figures exactly as the metrics give them', () => {
		expect(figureOf(html, 'accuracy')).toBe(formatRate(metrics.accuracy));
		expect(figureOf(html, 'accuracy')).toBe('66.7%');
		expect(figureOf(html, 'coverage')).toBe('75.0%');
		expect(figureOf(html, 'uncertain')).toBe('25.0%');
		expect(figureOf(html, 'pending')).toBe('0.0%');
		expect(figureOf(html, 'units')).toBe('3');
		expect(figureOf(html, 'items')).toBe('4');
		// confidence ≥ 0.55: items 0 and 2, both right → 0.55 reaches 90% on its figures, but two
		// items prove little (Wilson 34–100 %): not recommended, and the tile says what it lacks.
		expect(metrics.recommended.confidence).toBeNull();
		expect(metrics.recommended.notYet.confidence).toMatchObject({ threshold: 0.55, items: 2 });
		expect(figureOf(html, 'recommended')).toBe('not enough items yet');
		// every rate tile carries its interval and count
		expect(html).toContain(
			'<span class="label">Accuracy (answered items)</span><span class="ci">21–94%, 3 items</span>',
		);
		expect(html).toContain(
			'<span class="label">Answered</span><span class="ci">30–95%, 4 items</span>',
		);
		expect(figureOf(html, 'macro-f1')).toBe(formatNumber(metrics.macroF1));
	});

	it('escapes every string from data: no live tag, no broken attribute', () => {
		expect(html).not.toContain('<script');
		expect(html).not.toContain('<img');
		// every tag is well formed: a name, then attributes each quoted whole (a quote in data
		// cannot close an attribute and smuggle in onerror=)
		const tags = [...html.matchAll(/<([a-z][a-z0-9]*)([^>]*)>/g)];
		expect(tags.length).toBeGreaterThan(50);
		for (const [, , attributes] of tags) {
			expect(attributes).toMatch(/^(\s+[a-zA-Z][a-zA-Z0-9-]*(="[^"<>]*")?)*\s*\/?$/);
			expect(attributes.replace(/="[^"]*"/g, '')).not.toContain('onerror');
		}
		expect(html).toContain(escapeHtml(HOSTILE));
		expect(html).toContain(escapeHtml(QUOTES));
		// the reader sees the names as they are
		const text = textOf(html);
		expect(text).toContain(HOSTILE);
		expect(text).toContain(`${QUOTES}model: 1`);
		expect(text).toContain('constructor');
	});

	it('is self-contained: no script, no external asset, fits a phone', () => {
		const clean = renderReport(
			evaluate({ type: 'route', keys: ['a', 'b'] }, [item('a', run('a', 0.9))]).metrics,
		);
		expect(html.startsWith('<!doctype html>')).toBe(true);
		expect(clean).not.toMatch(
			/<script|<link|<iframe|\bsrc=|url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i,
		);
		expect(html).toContain('name="viewport" content="width=device-width,initial-scale=1"');
		expect(html).toContain('@media (max-width:480px)');
		expect(html).toMatch(/class="scroll"/);
	});

	it('draws the confusion heat map with the matrix counts', () => {
		const rows = [...html.matchAll(/<tr><th class="key" scope="row">([\s\S]*?)<\/tr>/g)].map((m) =>
			[...m[1].matchAll(/<td[^>]*>(\d+)<\/td>/g)].map((c) => Number(c[1])),
		);
		// 4 keys + uncertain, pending, other + total
		expect(rows).toEqual(
			metrics.type === 'route'
				? metrics.confusion.rows.map((r) => [
						...r.predicted,
						r.uncertain,
						r.pending,
						r.other,
						r.total,
					])
				: [],
		);
		expect(rows[0]).toEqual([1, 1, 0, 0, 0, 0, 0, 2]);
	});

	it('marks no threshold the items do not support', () => {
		expect(html).not.toContain('data-recommended=');
		expect((html.match(/<svg /g) ?? []).length).toBe(2);
		expect(html).not.toContain('<tr class="recommended">');
	});

	it('marks the recommended threshold on the coverage curve, with the accuracy band', () => {
		// 40 answers at 0.9 all right, 10 at 0.5 all wrong: from 0.55 on, 40 of 40 (91–100 %).
		const supported = evaluate(decision, [
			...Array.from({ length: 40 }, () => item('billing', run('billing', 0.9))),
			...Array.from({ length: 10 }, () => item('billing', run('constructor', 0.5))),
		]).metrics;
		const page = renderReport(supported);
		expect(supported.recommended.confidence?.threshold).toBe(0.55);
		expect(page).toContain('data-recommended="0.55"');
		expect(page).toContain(
			'<tr class="recommended"><td>0.55</td><td>40</td><td>80.0%<span class="ci">67–89%</span></td><td>100.0%<span class="ci">91–100%</span></td></tr>',
		);
		// the 95 % band around the accuracy line: the confidence curve's only, since these runs
		// carry no probabilities and so no gap (left out of the Close Call Gap table, said so)
		expect((page.match(/<polygon fill="#2563eb" fill-opacity="0.12"/g) ?? []).length).toBe(1);
		expect(supported.coverageByGap.every((row) => row.count === 0)).toBe(true);
		expect(summaryOf(supported).sentences).toContain(
			'50 of the 50 answered items carry no probabilities (a row scored from a stored answer keeps none): the Close Call Gap is judged on the other 0.',
		);
		expect(figureOf(page, 'recommended')).toBe('0.55');
	});

	it('lists the per-option figures', () => {
		const row = /<tr data-key="billing">([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? '';
		// billing: expected 2, answered billing 1 (item 0), precision 1/1, recall 1/2, F1 2/3; each
		// rate with its 95 % interval (1/1: 21–100 %, 1/2: 9–91 %)
		const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) =>
			m[1].replace(/<[^>]+>/g, ' ').trim(),
		);
		expect(cells).toEqual(['billing', '2', '1', '100.0% 21–100%', '50.0% 9–91%', '0.67']);
	});
});

describe('score and classify reports', () => {
	it('score: the level error histogram and the level figures', () => {
		const legend = { '0': 'low', '1': 'mid', '2': 'high' };
		const { metrics } = evaluate({ type: 'score', keys: ['low', 'mid', 'high'] }, [
			item('low', { status: 'ok', raw_score: 0, legend, confidence: 0.9 }),
			item('high', { status: 'ok', raw_score: 1, legend, confidence: 0.9 }),
		]);
		const html = renderReport(metrics);
		// errors 0 and −1 → mean 0.5, both within one level
		expect(figureOf(html, 'mae')).toBe('0.50');
		expect(figureOf(html, 'within-one')).toBe('100.0%');
		expect(html).toContain('Level error');
		expect((html.match(/<rect /g) ?? []).length).toBe(5); // −2 … +2
	});

	it('classify: the per-label table, exact set and Hamming loss, hostile labels escaped', () => {
		const { metrics } = evaluate({ type: 'classify', keys: ['spam', HOSTILE, '__proto__'] }, [
			item(['spam'], { status: 'ok', labels: ['spam'], confidence: 0.8 }),
			item([HOSTILE], { status: 'ok', labels: [], confidence: 0.8 }),
		]);
		const html = renderReport(metrics as Metrics);
		// 1 of 2 exact; 1 wrong decision of 2 × 3
		expect(figureOf(html, 'exact-set')).toBe('50.0%');
		expect(figureOf(html, 'hamming')).toBe('0.167');
		expect(html).toContain('Per label');
		expect(html).not.toContain('<script');
		expect(html).toContain('data-key="__proto__"');
		expect(html).not.toContain('Confusion matrix');
	});

	it('an empty evaluation renders with dashes', () => {
		const { metrics } = evaluate({ type: 'route', keys: ['a', 'b'] }, []);
		const html = renderReport(metrics);
		expect(figureOf(html, 'accuracy')).toBe('–');
		expect(figureOf(html, 'recommended')).toBe('none recommended yet');
		expect(html).not.toContain('NaN');
	});
});
