/**
 * Does the accuracy over all traffic keep its promise (issue 43)? Simulated periods of traffic on
 * the shipped path, and how often Evaluate's 95 % interval holds the process's true accuracy, per
 * cell of the published grid. In-process, seeded, bounded (a few minutes on one core).
 *
 * Each period: N items with distinct text inputs. An item is doubtful with probability `doubtful`
 * (its guess right with probability 0.65, a tie with no suggestion in 10 % of them: not right),
 * else confident (right with probability `confident`). Audit Share picks a confident item with the
 * shipped hash (src/answer/audit.ts `inAuditSample` on the decision's slug and the input); a person
 * reviews a share `reviewed` of the doubtful items, and Review writes the others as rows with status
 * `not_reviewed` (`stratum: doubtful`, empty answer). The rows go to the shipped estimate
 * (src/evaluate/all-traffic.ts `allTrafficOf`, outcomes judged by src/evaluate `evaluate`).
 * Truth: the process's accuracy, doubtful × 0.585 + (1 − doubtful) × confident: what the same
 * decision does on traffic like this. The cells share their periods (common random numbers: one
 * period's hashes serve every share), so cells are compared on the same draws.
 *
 * Prints, per cell: the runs with a figure (the others say "not enough items yet"), how often the
 * interval holds the truth (and the Monte-Carlo standard error of that share), how often it misses
 * low and high, its mean half-width, and the same for the answers sent straight to their output
 * (`confident_accuracy`, truth `confident`). Writes bench/results/audit-coverage-table.md.
 *
 * Run: node --require tsx/cjs bench/audit-coverage.ts [--reps 1500] [--seed 43]
 * (--reps is for 100 and 1,000 items; 10,000 items get reps/3, 100,000 items reps/7.5: about
 * 6 minutes on one busy core. A cell's share is measured within ± 2 s.e.: ± 1.1 points at 1,500
 * runs, ± 3 points at 200.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inAuditSample } from '../src/answer/audit';
import { evaluate, type ItemOutcome, type ScoredItem } from '../src/evaluate';
import { allTrafficOf } from '../src/evaluate/all-traffic';
import { seeded } from '../scripts/make-labeled-set';
import { flag } from './setup';

const SIZES = [100, 1000, 10000, 100000];
const CONFIDENT = [0.8, 0.9, 0.99, 0.999];
const DOUBTFUL = [0.02, 0.1, 0.4];
const SHARES = [0.01, 0.05, 0.2, 0.5];
const REVIEWED = [0.5, 1];
const GUESS_RIGHT = 0.65;
const TIES = 0.1;
const DOUBTFUL_RIGHT = (1 - TIES) * GUESS_RIGHT;
const SLUG = 'ticket-routing';

const decision = { type: 'route' as const, keys: ['right', 'wrong'] };

/** A row as Review stores it and Evaluate scores it: the person's answer, the machine's run, why it was seen. */
function row(kind: 'right' | 'wrong' | 'tie', stratum: 'doubtful' | 'audited', share?: number) {
	const doubtful = stratum === 'doubtful';
	const said = kind === 'right' ? ['right'] : ['wrong'];
	const item: ScoredItem = {
		expected: 'right',
		run: {
			runId: 'r',
			status: doubtful ? 'uncertain' : 'ok',
			probabilities: {},
			...(doubtful ? {} : { answer: said }),
			...(kind === 'tie' ? {} : { guess: said }),
		},
		charged: 0,
		stratum,
		...(share === undefined ? {} : { auditShare: share }),
	};
	return item;
}

/** The rows of each kind, judged once by the shipped `evaluate` (every copy is the same row). */
function templates() {
	const items = [
		row('right', 'doubtful'),
		row('wrong', 'doubtful'),
		row('tie', 'doubtful'),
		...SHARES.flatMap((share) => [row('right', 'audited', share), row('wrong', 'audited', share)]),
	];
	const outcomes = evaluate(decision, items).metrics.items;
	const pair = (at: number) => ({ item: items[at], outcome: outcomes[at] });
	return {
		doubtful: { right: pair(0), wrong: pair(1), tie: pair(2) },
		audited: SHARES.map((_, s) => ({ right: pair(3 + 2 * s), wrong: pair(4 + 2 * s) })),
		// What Review writes for an item nobody reviewed: only these cells count (labeled-row.ts).
		notReviewed: { status: 'not_reviewed', answer: '', stratum: 'doubtful' } as const,
	};
}

/** One period's items: where each falls and whether it is right, read by every cell. */
interface Period {
	doubtfulDraw: Float64Array;
	right: Float64Array;
	tie: Float64Array;
	reviewDraw: Float64Array;
	/** The largest share index the item is picked at (-1: none), by the shipped hash. */
	pickedUpTo: Int8Array;
}

function period(size: number, random: () => number, tag: string): Period {
	const p: Period = {
		doubtfulDraw: new Float64Array(size),
		right: new Float64Array(size),
		tie: new Float64Array(size),
		reviewDraw: new Float64Array(size),
		pickedUpTo: new Int8Array(size),
	};
	for (let at = 0; at < size; at++) {
		p.doubtfulDraw[at] = random();
		p.right[at] = random();
		p.tie[at] = random();
		p.reviewDraw[at] = random();
		const input = `ticket ${tag}-${at}`;
		// Picked at a share is picked at every larger one (hash < share): ask from the largest down.
		let upTo = -1;
		for (let s = SHARES.length - 1; s >= 0; s--) {
			if (!inAuditSample(SLUG, input, SHARES[s])) break;
			upTo = s;
		}
		p.pickedUpTo[at] = upTo;
	}
	return p;
}

interface Cell {
	size: number;
	confident: number;
	doubtful: number;
	share: number;
	reviewed: number;
	runs: number;
	figures: number;
	held: number;
	low: number;
	high: number;
	width: number;
	confidentFigures: number;
	confidentHeld: number;
}

type Templates = ReturnType<typeof templates>;

/** The rows one cell's Review would have stored from a period, and the estimate on them. */
function estimate(p: Period, cell: Cell, shareAt: number, t: Templates) {
	const items: ScoredItem[] = [];
	const outcomes: ItemOutcome[] = [];
	const notReviewed: Array<typeof t.notReviewed> = [];
	const put = (pair: { item: ScoredItem; outcome: ItemOutcome }) => {
		items.push(pair.item);
		outcomes.push(pair.outcome);
	};
	for (let at = 0; at < p.right.length; at++) {
		if (p.doubtfulDraw[at] < cell.doubtful) {
			if (p.reviewDraw[at] >= cell.reviewed) notReviewed.push(t.notReviewed);
			else if (p.tie[at] < TIES) put(t.doubtful.tie);
			else put(p.right[at] < GUESS_RIGHT ? t.doubtful.right : t.doubtful.wrong);
		} else if (p.pickedUpTo[at] !== -1 && p.pickedUpTo[at] <= shareAt) {
			const audited = t.audited[shareAt];
			put(p.right[at] < cell.confident ? audited.right : audited.wrong);
		}
	}
	return allTrafficOf(items, outcomes, 0.9, notReviewed);
}

function tally(cell: Cell, result: ReturnType<typeof estimate>) {
	cell.runs++;
	const truth = cell.doubtful * DOUBTFUL_RIGHT + (1 - cell.doubtful) * cell.confident;
	const interval = result.allTraffic.accuracyInterval;
	if (interval) {
		cell.figures++;
		cell.width += (interval.high - interval.low) / 2;
		if (interval.high < truth) cell.low++;
		else if (interval.low > truth) cell.high++;
		else cell.held++;
	}
	const confident = result.confidentAccuracy.accuracyInterval;
	if (confident) {
		cell.confidentFigures++;
		if (confident.low <= cell.confident && cell.confident <= confident.high) cell.confidentHeld++;
	}
}

function cellsOf(size: number): Cell[] {
	const cells: Cell[] = [];
	for (const confident of CONFIDENT)
		for (const doubtful of DOUBTFUL)
			for (const share of SHARES)
				for (const reviewed of REVIEWED)
					cells.push({
						size,
						confident,
						doubtful,
						share,
						reviewed,
						runs: 0,
						figures: 0,
						held: 0,
						low: 0,
						high: 0,
						width: 0,
						confidentFigures: 0,
						confidentHeld: 0,
					});
	return cells;
}

const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
const share = (part: number, whole: number) => (whole ? pct(part / whole) : '–');
/** The Monte-Carlo standard error of a share measured on `n` runs. */
const se = (part: number, n: number) =>
	n ? `${((Math.sqrt((part / n) * (1 - part / n)) / Math.sqrt(n)) * 100).toFixed(1)}` : '–';

function line(c: Cell): string {
	return `| ${c.size} | ${pct(c.confident)} | ${pct(c.doubtful)} | ${pct(c.share)} | ${pct(c.reviewed)} | ${c.figures} of ${c.runs} | ${share(c.held, c.figures)} ± ${se(c.held, c.figures)} | ${share(c.low, c.figures)} / ${share(c.high, c.figures)} | ${c.figures ? `±${((c.width / c.figures) * 100).toFixed(1)}` : '–'} | ${share(c.confidentHeld, c.confidentFigures)} |`;
}

const HEADER = [
	'| items | confident right | doubtful | audit share | doubtful reviewed | runs with a figure | interval holds the truth (± MC s.e.) | misses low / high | mean half-width (points) | confident_accuracy holds |',
	'|---|---|---|---|---|---|---|---|---|---|',
];

function main() {
	const reps = flag('reps', 1500);
	const random = seeded(flag('seed', 43));
	const t = templates();
	const all: Cell[] = [];
	for (const size of SIZES) {
		const cells = cellsOf(size);
		const runs = Math.max(
			20,
			Math.round(size >= 100000 ? reps / 7.5 : size >= 10000 ? reps / 3 : reps),
		);
		for (let rep = 0; rep < runs; rep++) {
			const p = period(size, random, `${size}-${rep}`);
			for (const cell of cells) tally(cell, estimate(p, cell, SHARES.indexOf(cell.share), t));
		}
		all.push(...cells);
		console.error(`${size} items: ${runs} periods`);
	}
	const withFigure = all.filter((c) => c.figures >= 20);
	const worst = withFigure.reduce((w, c) => (c.held / c.figures < w.held / w.figures ? c : w));
	const under = withFigure.filter((c) => c.held / c.figures < 0.93);
	// Under 93 % beyond the Monte-Carlo noise of its own runs (two standard errors).
	const surelyUnder = under.filter(
		(c) => c.held / c.figures + 2 * Math.sqrt((0.95 * 0.05) / c.figures) < 0.93,
	);
	const bySize = SIZES.map((size) => {
		const cells = withFigure.filter((c) => c.size === size);
		const runs = cells.reduce((sum, c) => sum + c.figures, 0);
		const min = cells.reduce((m, c) => Math.min(m, c.held / c.figures), 1);
		return `${size} items: ${pct(cells.reduce((sum, c) => sum + c.held, 0) / runs)} pooled, lowest cell ${pct(min)}`;
	});
	const total = withFigure.reduce((sum, c) => sum + c.figures, 0);
	const held = withFigure.reduce((sum, c) => sum + c.held, 0);
	const confidentWorst = all
		.filter((c) => c.confidentFigures >= 20)
		.reduce((m, c) => Math.min(m, c.confidentHeld / c.confidentFigures), 1);
	const summary = [
		`Cells with at least 20 runs with a figure: ${withFigure.length} of ${all.length}; all runs pooled: ${pct(held / total)}.`,
		`Lowest cell: ${pct(worst.held / worst.figures)} ± ${se(worst.held, worst.figures)} (${worst.size} items, confident ${pct(worst.confident)}, doubtful ${pct(worst.doubtful)}, share ${pct(worst.share)}, reviewed ${pct(worst.reviewed)}); cells measured under 93 %: ${under.length}, of which under it beyond two standard errors of a 95 % cell: ${surelyUnder.length}.`,
		`By size: ${bySize.join('; ')}.`,
		`confident_accuracy: lowest cell ${pct(confidentWorst)}.`,
	];
	const table = [...HEADER, ...all.map(line)].join('\n');
	const text = `# Accuracy over all traffic: coverage of the 95 % interval per grid cell\n\n${summary.join('\n')}\n\n${table}\n`;
	writeFileSync(join(__dirname, 'results', 'audit-coverage-table.md'), text);
	console.log(text);
}

main();
