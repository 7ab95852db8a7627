/** Requests per second over time against the plan's limit: an SVG chart, rasterised to PNG by Chromium. */
import { join } from 'node:path';
import { launchHeadlessChromium } from '../harness/chromium';

export interface RateSeries {
	scenario: string;
	contender: string;
	/** Plan limit in requests per second (scaled window); null when unlimited. */
	limitPerSecond: number | null;
	/** When each successful request was counted, in ms (any origin: only differences are drawn). */
	timestamps: number[];
}

const COLORS: Record<string, string[]> = {
	'decision-service': ['#3b4cc0', '#7b8ee8', '#1b2470'],
	'http-default': ['#e05d5d'],
	'http-batched': ['#f29e4c'],
};

/** One colour per series: the contender's hue, a different shade for each concurrency of it. */
function colorsOf(series: RateSeries[]): string[] {
	const used = new Map<string, number>();
	return series.map((entry) => {
		const family = Object.keys(COLORS).find((contender) => entry.contender.startsWith(contender));
		if (!family) return '#333';
		const index = used.get(family) ?? 0;
		used.set(family, index + 1);
		return COLORS[family][index % COLORS[family].length];
	});
}

function perSecond(timestamps: number[]): number[] {
	if (!timestamps.length) return [];
	const start = timestamps[0];
	const buckets: number[] = [];
	for (const time of timestamps) {
		const second = Math.floor((time - start) / 1000);
		while (buckets.length <= second) buckets.push(0);
		buckets[second] += 1;
	}
	return buckets;
}

function svgFor(scenario: string, series: RateSeries[]): string {
	const width = 900;
	const height = 420;
	const margin = { left: 60, right: 20, top: 40, bottom: 50 };
	const colors = colorsOf(series);
	const lines = series.map((entry, index) => ({
		entry,
		color: colors[index],
		values: perSecond(entry.timestamps),
	}));
	const legendStep = (width - margin.left - margin.right) / Math.max(1, series.length);
	const maxX = Math.max(10, ...lines.map((line) => line.values.length));
	const limit = series[0]?.limitPerSecond ?? null;
	const maxY = Math.max(1, limit ?? 0, ...lines.flatMap((line) => line.values)) * 1.1;
	const x = (value: number) => margin.left + (value / maxX) * (width - margin.left - margin.right);
	const y = (value: number) =>
		height - margin.bottom - (value / maxY) * (height - margin.top - margin.bottom);
	const paths = lines
		.map(({ color, values }) => {
			const points = values
				.map(
					(value, second) =>
						`${x(second).toFixed(1)},${y(value).toFixed(1)} ${x(second + 1).toFixed(1)},${y(value).toFixed(1)}`,
				)
				.join(' ');
			return `<polyline fill="none" stroke="${color}" stroke-width="2" points="${points}"/>`;
		})
		.join('');
	const ticksY = Array.from({ length: 5 }, (_, index) => (maxY / 5) * (index + 1));
	const ticksX = Array.from({ length: 6 }, (_, index) => Math.round((maxX / 5) * index));
	const legend = lines
		.map(
			({ entry, color }, index) =>
				`<rect x="${margin.left + 10 + index * legendStep}" y="12" width="14" height="4" fill="${color}"/><text x="${margin.left + 30 + index * legendStep}" y="18" font-size="11">${entry.contender} (${entry.timestamps.length} ok)</text>`,
		)
		.join('');
	return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="${height - 10}" text-anchor="middle" font-size="13">seconds since the first successful request — ${scenario}</text>
<text transform="rotate(-90)" x="${-height / 2}" y="16" text-anchor="middle" font-size="13">successful requests per second</text>
${ticksY.map((tick) => `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="#eee"/><text x="${margin.left - 6}" y="${y(tick) + 4}" text-anchor="end" font-size="11">${tick.toFixed(tick < 10 ? 1 : 0)}</text>`).join('')}
${ticksX.map((tick) => `<text x="${x(tick)}" y="${height - margin.bottom + 16}" text-anchor="middle" font-size="11">${tick}</text>`).join('')}
<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${height - margin.bottom}" stroke="#333"/>
<line x1="${margin.left}" x2="${width - margin.right}" y1="${height - margin.bottom}" y2="${height - margin.bottom}" stroke="#333"/>
${limit !== null ? `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(limit)}" y2="${y(limit)}" stroke="#5bb974" stroke-dasharray="6 4" stroke-width="2"/><text x="${width - margin.right - 4}" y="${y(limit) - 6}" text-anchor="end" font-size="12" fill="#2e7d32">plan limit ${limit.toFixed(1)}/s</text>` : ''}
${paths}
${legend}
</svg>`;
}

/** Rasterises SVGs (900 × 420) to PNG files in `dir` with Chromium: PNG only, the one format kept. */
async function writePngs(charts: Array<{ name: string; svg: string }>, dir: string): Promise<void> {
	const browser = await launchHeadlessChromium();
	try {
		const page = await browser.newPage({ viewport: { width: 900, height: 420 } });
		for (const { name, svg } of charts) {
			await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
			await page.screenshot({
				path: join(dir, name),
				clip: { x: 0, y: 0, width: 900, height: 420 },
			});
		}
	} finally {
		await browser.close();
	}
}

/** Writes one PNG per scenario into `dir`; returns the file names. */
export async function renderRatePlots(series: RateSeries[], dir: string): Promise<string[]> {
	const charts = [...new Set(series.map((entry) => entry.scenario))].map((scenario) => ({
		name: `rate-${scenario
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-|-$/g, '')}.png`,
		svg: svgFor(
			scenario,
			series.filter((entry) => entry.scenario === scenario),
		),
	}));
	await writePngs(charts, dir);
	return charts.map((chart) => chart.name);
}

export interface RatioPoint {
	/** The scenario's short label on the x axis. */
	label: string;
	contender: string;
	/** Makespan ÷ floor; null when the contender failed items (not drawn). */
	ratio: number | null;
}

/** Makespan ÷ floor per scenario, one dot per contender, log scale, with the 1.15 line. */
function ratioSvg(title: string, points: RatioPoint[]): string {
	const width = 900;
	const height = 420;
	const margin = { left: 60, right: 20, top: 40, bottom: 110 };
	const labels = [...new Set(points.map((point) => point.label))];
	const contenders = [...new Set(points.map((point) => point.contender))];
	const colors = colorsOf(contenders.map((contender) => ({ contender }) as RateSeries));
	const drawn = points.filter((point) => point.ratio !== null && point.ratio > 0);
	const maxY = Math.max(2, ...drawn.map((point) => point.ratio as number)) * 1.1;
	const log = (value: number) => Math.log10(Math.max(value, 0.5));
	const y = (value: number) =>
		height -
		margin.bottom -
		((log(value) - log(0.5)) / (log(maxY) - log(0.5))) * (height - margin.top - margin.bottom);
	const step = (width - margin.left - margin.right) / Math.max(1, labels.length);
	const x = (label: string, contender: string) =>
		margin.left +
		step * (labels.indexOf(label) + 0.5) +
		(contenders.indexOf(contender) - (contenders.length - 1) / 2) * Math.min(6, step / 4);
	const ticks = [0.5, 1, 1.15, 2, 5, 10, 20, 50].filter((tick) => tick <= maxY);
	const dots = drawn
		.map(
			(point) =>
				`<circle cx="${x(point.label, point.contender).toFixed(1)}" cy="${y(point.ratio as number).toFixed(1)}" r="3.5" fill="${colors[contenders.indexOf(point.contender)]}"/>`,
		)
		.join('');
	const legend = contenders
		.map(
			(contender, index) =>
				`<circle cx="${margin.left + 10 + index * 220}" cy="16" r="4" fill="${colors[index]}"/><text x="${margin.left + 20 + index * 220}" y="20" font-size="11">${contender}</text>`,
		)
		.join('');
	return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="${height - 8}" text-anchor="middle" font-size="13">${title}</text>
<text transform="rotate(-90)" x="${-(height - margin.bottom + margin.top) / 2}" y="16" text-anchor="middle" font-size="13">makespan ÷ floor (log)</text>
${ticks.map((tick) => `<line x1="${margin.left}" x2="${width - margin.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="${tick === 1.15 ? '#5bb974' : '#eee'}" ${tick === 1.15 ? 'stroke-dasharray="6 4" stroke-width="2"' : ''}/><text x="${margin.left - 6}" y="${y(tick) + 4}" text-anchor="end" font-size="11">${tick}</text>`).join('')}
${labels.map((label) => `<text transform="translate(${(margin.left + step * (labels.indexOf(label) + 0.5)).toFixed(1)},${height - margin.bottom + 8}) rotate(60)" font-size="8">${label}</text>`).join('')}
<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${height - margin.bottom}" stroke="#333"/>
${dots}
${legend}
</svg>`;
}

/** Writes `name` (PNG) into `dir`: makespan ÷ floor per scenario and contender. */
export async function renderRatioPlot(
	points: RatioPoint[],
	dir: string,
	name: string,
	title: string,
): Promise<string> {
	await writePngs([{ name, svg: ratioSvg(title, points) }], dir);
	return name;
}
