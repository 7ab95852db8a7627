// A self-contained HTML page from the metrics: no external asset, no script; inline CSS and SVG.
// Long because it is one page: its CSS, its tiles, tables and charts share the page's helpers and
// read top to bottom as the page does (the drift section is drift-html.ts's).
// Every string from data (keys, labels, model and engine names, the title) is escaped: keys are
// untrusted (`<script>`, quotes, `constructor`). Figures are formatted by the exported helpers, so
// a test can check the page shows exactly the metrics. Every rate shows its 95 % interval and
// count under it or beside it (src/evaluate/stats.ts).
import { escapeHtml } from '../html';
import type {
	ClassMetrics,
	Confusion,
	CoverageRow,
	Metrics,
	NameCount,
	NotYetSupported,
	RateInterval,
	TrafficStratum,
} from './metrics';
import {
	NOT_YET,
	allTrafficBasis,
	allTrafficCoverage,
	hasStrata,
	notYetCounts,
	rateWords,
	summaryOf,
	type SettingEffect,
	type Summary,
} from './summary';
import { intervalWords, itemCount } from './tables';
import type { Drift } from './drift';
import { driftSection } from './drift-html';

export interface ReportOptions {
	/** Page title; default "Decision evaluation". */
	title?: string;
	/** The decision's name or slug, shown under the title. */
	decision?: string;
	/** When the evaluation ran, shown as given (the caller formats it: this module has no clock). */
	generatedAt?: string;
	/** The summary in words, when the caller has it already (else computed here). */
	summary?: Summary;
	/** What changed since the previous figures (a quality watch), shown after the headline. */
	drift?: Drift;
}

/** A share as a percentage with one decimal ("66.7%"); "–" when undefined. */
export function formatRate(value: number | null | undefined): string {
	return value === null || value === undefined || !Number.isFinite(value)
		? '–'
		: `${(value * 100).toFixed(1)}%`;
}

/** A number with `digits` decimals; "–" when undefined. */
export function formatNumber(value: number | null | undefined, digits = 2): string {
	return value === null || value === undefined || !Number.isFinite(value)
		? '–'
		: value.toFixed(digits);
}

const TYPE_NAMES = { route: 'Route', score: 'Score', classify: 'Classify' } as const;

const CSS = `
*{box-sizing:border-box}
body{margin:0;padding:16px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;background:#f6f7fb}
main{max-width:960px;margin:0 auto}
h1{font-size:1.5rem;margin:0 0 4px}
h2{font-size:1.15rem;margin:28px 0 8px}
.sub{color:#5b6478;margin:0 0 16px}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:10px}
.figure{background:#fff;border:1px solid #e1e4ee;border-radius:10px;padding:10px 12px}
.figure .value{display:block;font-size:1.45rem;font-weight:650}
.figure .value.words{font-size:.92rem;line-height:1.3;overflow-wrap:break-word}
.figure .label{display:block;color:#5b6478;font-size:.85rem}
.figure .ci{display:block;color:#5b6478;font-size:.8rem}
td .ci{color:#5b6478;font-size:.8rem;margin-left:4px}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;background:#fff;border:1px solid #e1e4ee;border-radius:10px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:6px 8px;text-align:right;border-bottom:1px solid #eef0f5;white-space:nowrap}
th:first-child,td:first-child{text-align:left}
thead th{background:#fafbfd;font-weight:600}
td.cell{min-width:44px;text-align:center}
td.diag{outline:2px solid #1d2433;outline-offset:-2px}
.key{overflow-wrap:anywhere;white-space:normal;max-width:14em}
.chart{background:#fff;border:1px solid #e1e4ee;border-radius:10px;padding:8px}
.chart svg{display:block;width:100%;height:auto}
.legend{font-size:.85rem;color:#5b6478;margin:6px 0 0}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px;vertical-align:middle}
.note{font-size:.85rem;color:#5b6478}
ul.mix{margin:0;padding-left:18px}
ul.summary{margin:0 0 16px;padding-left:18px}ul.summary li.advice{margin-top:4px}
.alert{margin:0 0 12px;padding:10px 14px;border-radius:8px;background:#fde8e8;color:#8a1c1c;font-weight:600}
@media (max-width:480px){body{padding:10px;font-size:14px}.figure .value{font-size:1.2rem}}
`;

/**
 * A tile: the figure, its label, and (for a rate) its interval and count: "86–97%, 91 items". A
 * figure in words ("none recommended yet") is set smaller: at the number's size its long word ran
 * out of a narrow tile.
 */
function figure(id: string, label: string, value: string, note = ''): string {
	const ci = note ? `<span class="ci">${escapeHtml(note)}</span>` : '';
	const valueClass = /^[a-z]/i.test(value) ? 'value words' : 'value';
	return `<div class="figure" data-figure="${escapeHtml(id)}"><span class="${valueClass}">${escapeHtml(value)}</span><span class="label">${escapeHtml(label)}</span>${ci}</div>`;
}

/** A rate's tile: the rate, then "86–97%, 91 items" (nothing when the rate is undefined). */
function rateFigure(
	id: string,
	label: string,
	value: number | null,
	interval: RateInterval | null,
): string {
	const note =
		value !== null && interval ? `${intervalWords(interval)}, ${itemCount(interval.n)}` : '';
	return figure(id, label, formatRate(value), note);
}

/**
 * A recommended setting's tile: "none needed" when the answers already reach the target, "not
 * enough items yet (12; about 35 needed)" when the data does not support any yet.
 */
function settingFigure(
	id: string,
	label: string,
	effect: SettingEffect | null,
	notYet: NotYetSupported | null,
): string {
	if (notYet) {
		return figure(id, label, NOT_YET, `(${notYetCounts(notYet)})`);
	}
	if (!effect)
		return figure(
			id,
			label,
			'none recommended yet',
			'no setting reaches the target on these items',
		);
	const left = `leaves ${rateWords(effect.accuracy, effect.accuracyInterval)} right`;
	return effect.value === 0 || effect.sentToReview === 0
		? figure(id, label, 'none needed', left)
		: figure(id, label, effect.value.toFixed(2), left);
}

/** A rate in a table cell: "66.7%" and its interval beside it, smaller. */
function rateCell(value: number | null, interval: RateInterval | null): string {
	const ci = value !== null && interval ? `<span class="ci">${intervalWords(interval)}</span>` : '';
	return `<td>${formatRate(value)}${ci}</td>`;
}

/**
 * The all-traffic tiles, when rows say why a person saw them: the estimate ("84–96%, 52 items
 * standing for about 280") and the audited answers' accuracy; or what is missing.
 */
function allTrafficFigures(metrics: Metrics): string[] {
	if (!hasStrata(metrics)) return [];
	const { allTraffic, confidentAccuracy } = metrics;
	if (allTraffic.accuracy === null || !allTraffic.accuracyInterval)
		return [
			figure(
				'all-traffic',
				'Accuracy over all traffic',
				NOT_YET,
				(allTraffic.reason ?? '').replace(NOT_YET, '').trim(),
			),
		];
	return [
		figure(
			'all-traffic',
			'Accuracy over all traffic (estimated)',
			formatRate(allTraffic.accuracy),
			`${intervalWords(allTraffic.accuracyInterval)}, from ${allTrafficBasis(metrics)}`,
		),
		rateFigure(
			'confident',
			'Answers sent straight to their output (audited)',
			confidentAccuracy.accuracy,
			confidentAccuracy.accuracyInterval,
		),
	];
}

/**
 * What one audited row stands for, from the table's own strata: "each audited row picked at 20.0%
 * stands for 5 items" (1 ÷ the share; several shares listed), never a fixed example.
 */
function auditedRowWords(strata: readonly TrafficStratum[]): string {
	const shares = strata.flatMap((s) =>
		s.stratum === 'audited' && s.auditShare !== null && s.auditShare > 0 ? [s.auditShare] : [],
	);
	if (!shares.length) return 'no audited row yet';
	const each = shares.map(
		(share) => `picked at ${formatRate(share)} stands for ${Number((1 / share).toFixed(1))}`,
	);
	return `each audited row ${each.join(', one ')} items`;
}

/** The strata of the all-traffic estimate: rows, right, the traffic they stand for, their weight. */
function strataTable(metrics: Metrics): string {
	if (!hasStrata(metrics)) return '';
	const { strata, leftOut } = metrics.allTraffic;
	const rows = strata
		.map(
			(s) =>
				`<tr><td>${s.stratum === 'doubtful' ? 'Doubtful' : `Audited at ${formatRate(s.auditShare)}`}</td><td>${s.rows}</td><td>${s.right}</td><td>${s.notReviewed}</td><td>${formatNumber(s.standsFor, 1)}</td><td>${formatRate(s.weight)}</td></tr>`,
		)
		.join('');
	return `<h2>Accuracy over all traffic</h2><div class="scroll"><table class="strata"><thead><tr><th>Why a person saw it</th><th>Reviewed</th><th>Right</th><th>Not reviewed</th><th>Stands for (items)</th><th>Weight</th></tr></thead><tbody>${rows}</tbody></table></div><p class="note">The doubtful items are counted (reviewed and not reviewed); the confident answers are estimated from the audited ones (${auditedRowWords(strata)}). A group's reviewed rows stand for all its items: the ones nobody reviewed are taken to be like them. A row with no guess (a tie with no suggestion) counts as not answered right. The 95% interval grows with the weight of the groups that have few rows.${escapeHtml(allTrafficCoverage(metrics))} Rows left out: ${leftOut.total} (${leftOut.handAdded} added by hand, ${leftOut.badStratum} with an unknown stratum, ${leftOut.badShare} with a bad audit share).</p>`;
}

function headline(metrics: Metrics, summary: Summary): string {
	const target = formatRate(metrics.targetAccuracy);
	const figures = [
		...allTrafficFigures(metrics),
		rateFigure('accuracy', 'Accuracy (answered items)', metrics.accuracy, metrics.accuracyInterval),
		rateFigure('coverage', 'Answered', metrics.coverage, metrics.coverageInterval),
		rateFigure('uncertain', 'Uncertain', metrics.uncertainRate, metrics.uncertainRateInterval),
		rateFigure('pending', 'Pending review', metrics.pendingRate, metrics.pendingRateInterval),
		figure('items', 'Items evaluated', String(metrics.total)),
		figure('units', 'Units charged', String(metrics.units.charged)),
		settingFigure(
			'recommended',
			`Minimum confidence for ${target} accuracy`,
			summary.confidence,
			summary.notYet?.confidence ?? null,
		),
		settingFigure(
			'close-call-gap',
			`Close Call Gap for ${target} accuracy`,
			summary.closeCallGap,
			summary.notYet?.closeCallGap ?? null,
		),
	];
	if (metrics.type === 'route') {
		figures.push(figure('macro-f1', 'Macro F1', formatNumber(metrics.macroF1)));
	} else if (metrics.type === 'score') {
		figures.push(
			figure('mae', 'Mean level error', formatNumber(metrics.meanAbsoluteError)),
			rateFigure(
				'within-one',
				'Within one level',
				metrics.withinOneAccuracy,
				metrics.withinOneAccuracyInterval,
			),
		);
	} else {
		figures.push(
			rateFigure(
				'exact-set',
				'Exact label set',
				metrics.exactSetMatch,
				metrics.exactSetMatchInterval,
			),
			figure('hamming', 'Hamming loss', formatNumber(metrics.hammingLoss, 3)),
			figure('macro-f1', 'Macro F1', formatNumber(metrics.macroF1)),
		);
	}
	if (metrics.otherRate)
		figures.push(rateFigure('other', 'Other', metrics.otherRate, metrics.otherRateInterval));
	// The advice (what to do next) stands out from the figures in words.
	const advice = new Set((summary.advice ?? []).map((each) => each.words));
	const words = [summary.headline, ...summary.sentences]
		.map((sentence) =>
			advice.has(sentence)
				? `<li class="advice"><strong>What to do:</strong> ${escapeHtml(sentence)}</li>`
				: `<li>${escapeHtml(sentence)}</li>`,
		)
		.join('');
	return `<ul class="summary">${words}</ul><section class="figures">${figures.join('')}</section>`;
}

/** Heat: the share of the row, as a blue background; the text stays readable on dark cells. */
function heat(count: number, rowTotal: number): string {
	const share = rowTotal ? count / rowTotal : 0;
	const alpha = (0.08 + share * 0.82).toFixed(2);
	const color = share > 0.55 ? '#fff' : '#1d2433';
	return count ? `background:rgba(37,99,235,${alpha});color:${color}` : '';
}

function confusionTable(confusion: Confusion): string {
	const head = confusion.keys.map((key) => `<th class="key">${escapeHtml(key)}</th>`).join('');
	const body = confusion.rows
		.map((row, i) => {
			const cells = row.predicted
				.map(
					(count, j) =>
						`<td class="cell${i === j ? ' diag' : ''}" style="${heat(count, row.total)}">${count}</td>`,
				)
				.join('');
			return `<tr><th class="key" scope="row">${escapeHtml(row.expected)}</th>${cells}<td class="cell">${row.uncertain}</td><td class="cell">${row.pending}</td><td class="cell">${row.other}</td><td>${row.total}</td></tr>`;
		})
		.join('');
	return `<h2>Confusion matrix</h2><p class="note">Rows: the expected answer. Columns: what the decision answered. The outlined cells are right.</p><div class="scroll"><table class="confusion"><thead><tr><th>Expected ↓ / answered →</th>${head}<th>Uncertain</th><th>Pending</th><th>Other</th><th>Total</th></tr></thead><tbody>${body}</tbody></table></div>`;
}

function classTable(title: string, classes: readonly ClassMetrics[]): string {
	const rows = classes
		.map(
			(c) =>
				`<tr data-key="${escapeHtml(c.key)}"><td class="key">${escapeHtml(c.key)}</td><td>${c.support}</td><td>${c.predicted}</td>${rateCell(c.precision, c.precisionInterval)}${rateCell(c.recall, c.recallInterval)}<td>${formatNumber(c.f1)}</td></tr>`,
		)
		.join('');
	return `<h2>${escapeHtml(title)}</h2><div class="scroll"><table class="classes"><thead><tr><th></th><th>Expected</th><th>Answered</th><th>Precision</th><th>Recall</th><th>F1</th></tr></thead><tbody>${rows}</tbody></table></div><p class="note">Precision: of the items given this answer, how many were right ("–" when never given). Recall: of the answered items that expected it, how many got it. Beside each, its 95% interval: with few items it is wide.</p>`;
}

const W = 640;
const H = 300;
const PAD = { left: 48, right: 16, top: 16, bottom: 40 };
const x = (t: number) => PAD.left + t * (W - PAD.left - PAD.right);
const y = (v: number) => PAD.top + (1 - v) * (H - PAD.top - PAD.bottom);
const fixed = (n: number) => n.toFixed(1);

function curve(
	title: string,
	rows: readonly CoverageRow[],
	recommended: CoverageRow | null,
	axis: string,
): string {
	const line = (pick: (row: CoverageRow) => number | null) =>
		rows
			.filter((row) => pick(row) !== null)
			.map((row) => `${fixed(x(row.threshold))},${fixed(y(pick(row) as number))}`)
			.join(' ');
	const grid = [0, 0.25, 0.5, 0.75, 1]
		.map(
			(v) =>
				`<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${fixed(y(v))}" y2="${fixed(y(v))}" stroke="#eef0f5"/><text x="${PAD.left - 6}" y="${fixed(y(v) + 4)}" text-anchor="end" font-size="11" fill="#5b6478">${v * 100}%</text><text x="${fixed(x(v))}" y="${H - PAD.bottom + 16}" text-anchor="middle" font-size="11" fill="#5b6478">${v.toFixed(2)}</text>`,
		)
		.join('');
	// The accuracy's 95% interval as a band: where the true accuracy at each threshold may lie.
	const banded = rows.filter((row) => row.accuracyInterval !== null);
	const band = banded.length
		? `<polygon fill="#2563eb" fill-opacity="0.12" stroke="none" points="${[
				...banded.map(
					(row) =>
						`${fixed(x(row.threshold))},${fixed(y((row.accuracyInterval as RateInterval).high))}`,
				),
				...[...banded]
					.reverse()
					.map(
						(row) =>
							`${fixed(x(row.threshold))},${fixed(y((row.accuracyInterval as RateInterval).low))}`,
					),
			].join(' ')}"/>`
		: '';
	const marker = recommended
		? `<line x1="${fixed(x(recommended.threshold))}" x2="${fixed(x(recommended.threshold))}" y1="${PAD.top}" y2="${H - PAD.bottom}" stroke="#16a34a" stroke-width="2" stroke-dasharray="5 4"/><text x="${fixed(x(recommended.threshold) + 4)}" y="${PAD.top + 12}" font-size="12" fill="#15803d" data-recommended="${recommended.threshold}">${escapeHtml(`≥ ${formatNumber(recommended.threshold)}`)}</text>`
		: '';
	const svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(title)}" xmlns="http://www.w3.org/2000/svg">${grid}${band}<polyline fill="none" stroke="#2563eb" stroke-width="2.5" points="${line((r) => r.accuracy)}"/><polyline fill="none" stroke="#f59e0b" stroke-width="2.5" points="${line((r) => r.coverage)}"/>${marker}<text x="${fixed((W + PAD.left) / 2)}" y="${H - 6}" text-anchor="middle" font-size="12" fill="#1d2433">${escapeHtml(axis)}</text></svg>`;
	const table = rows
		.map(
			(row) =>
				`<tr${recommended && row.threshold === recommended.threshold ? ' class="recommended"' : ''}><td>${formatNumber(row.threshold)}</td><td>${row.count}</td>${rateCell(row.coverage, row.coverageInterval)}${rateCell(row.accuracy, row.accuracyInterval)}</tr>`,
		)
		.join('');
	return `<h2>${escapeHtml(title)}</h2><div class="chart">${svg}<p class="legend"><span class="swatch" style="background:#2563eb"></span>accuracy (band: its 95% interval)<span class="swatch" style="background:#f59e0b"></span>share of items kept${recommended ? `<span class="swatch" style="background:#16a34a"></span>lowest threshold surely reaching the target (the band's low edge at or above it)` : ''}</p></div><details><summary>Table</summary><div class="scroll"><table class="coverage"><thead><tr><th>${escapeHtml(axis)} at least</th><th>Items</th><th>Kept</th><th>Accuracy</th></tr></thead><tbody>${table}</tbody></table></div></details>`;
}

function histogram(bins: ReadonlyArray<{ error: number; count: number }>): string {
	const max = Math.max(1, ...bins.map((b) => b.count));
	const width = (W - PAD.left - PAD.right) / Math.max(1, bins.length);
	const bars = bins
		.map((bin, i) => {
			const h = (bin.count / max) * (H - PAD.top - PAD.bottom);
			const bx = PAD.left + i * width;
			const label = bin.error > 0 ? `+${bin.error}` : String(bin.error);
			return `<rect x="${fixed(bx + 3)}" y="${fixed(H - PAD.bottom - h)}" width="${fixed(width - 6)}" height="${fixed(h)}" fill="${bin.error === 0 ? '#16a34a' : '#2563eb'}"/><text x="${fixed(bx + width / 2)}" y="${fixed(H - PAD.bottom - h - 4)}" text-anchor="middle" font-size="12" fill="#1d2433">${bin.count}</text><text x="${fixed(bx + width / 2)}" y="${H - PAD.bottom + 16}" text-anchor="middle" font-size="12" fill="#5b6478">${label}</text>`;
		})
		.join('');
	return `<h2>Level error</h2><div class="chart"><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="Level error histogram" xmlns="http://www.w3.org/2000/svg">${bars}<text x="${fixed((W + PAD.left) / 2)}" y="${H - 6}" text-anchor="middle" font-size="12">answered level − expected level</text></svg></div>`;
}

function mix(title: string, counts: readonly NameCount[]): string {
	const items = counts
		.map(
			(c) => `<li>${c.name === null ? '<em>not given</em>' : escapeHtml(c.name)}: ${c.count}</li>`,
		)
		.join('');
	return `<div><h2>${escapeHtml(title)}</h2><ul class="mix">${items || '<li>none</li>'}</ul></div>`;
}

/** The report as one self-contained HTML document. */
export function renderReport(metrics: Metrics, options: ReportOptions = {}): string {
	const title = options.title ?? 'Decision evaluation';
	const subtitle = [
		options.decision,
		`${TYPE_NAMES[metrics.type]} decision`,
		`${metrics.total} items (${metrics.units.fresh} decided now, ${metrics.units.reused} from runs they carried)`,
		options.generatedAt,
	]
		.filter((part): part is string => typeof part === 'string' && part.length > 0)
		.map(escapeHtml)
		.join(' · ');
	const sections = [
		headline(metrics, options.summary ?? summaryOf(metrics)),
		driftSection(options.drift),
		strataTable(metrics),
	];
	if (metrics.type === 'route') {
		sections.push(confusionTable(metrics.confusion), classTable('Per option', metrics.classes));
	} else if (metrics.type === 'score') {
		sections.push(
			histogram(metrics.errorHistogram),
			confusionTable(metrics.confusion),
			classTable('Per level', metrics.classes),
		);
	} else {
		sections.push(classTable('Per label', metrics.labels));
	}
	sections.push(
		curve(
			'Which confidence to trust',
			metrics.coverageByConfidence,
			metrics.recommended.confidence,
			'Confidence',
		),
		curve(
			'Gap between the two most likely answers',
			metrics.coverageByGap,
			metrics.recommended.gap,
			'Gap',
		),
		`<section class="figures">${mix('Engines', metrics.engines)}${mix('Models', metrics.models)}</section>`,
		`<p class="note">Accuracy counts answered items only: uncertain and pending items lower the share answered, they are never counted wrong. Target accuracy: ${formatRate(metrics.targetAccuracy)}. Beside each rate: its 95% interval (Wilson score) and the items it is over; a setting is recommended only when the interval's low end at that setting reaches the target.</p>`,
	);
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${CSS}</style></head><body><main><h1>${escapeHtml(title)}</h1><p class="sub">${subtitle}</p>${sections.join('')}</main></body></html>`;
}
