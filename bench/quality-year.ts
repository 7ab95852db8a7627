/**
 * A year of weekly quality watches, simulated (issue 37): does the watch alert on evidence, and
 * what does it cost? In-process, on the pure functions the node runs (src/evaluate/drift.ts:
 * recentEvidence, versionEvidence), seeded, bounded loops: no n8n, no service.
 *
 * Model: `rows` labeled rows a week (34 or 200), each right with probability 0.90; the rows a
 * version decides are right independently, except that a new version answers a row as the old one
 * did 85 % of the time (paired outcomes, the same marginal rate). Two version changes (weeks 13
 * and 39) that change nothing. Scenario "stable": nothing else. Scenario "drift": from week 20 the
 * new rows are right with probability 0.80 (a 10-point drop in new traffic). Each week the watch
 * scores every row on the live version (stored answers, or the version-change sample of the 200
 * most recent rows), tests the week's rows against the rows before (Recent Window 7 days), and on a
 * version change the sample on both versions; false-alarm rate 1 %, Drop Alert Threshold 5 points.
 *
 * Prints, for each size: false alarms per run (stable, every run), weeks to detect the drift (the
 * first alert from week 20, per simulated year: median and 90th percentile), units over the year
 * against today's rule (every stored row decided every week), and how often the 95 % interval of
 * the change holds the true change.
 *
 * Run: node --require tsx/cjs bench/quality-year.ts [--years 1000] [--seed 37]
 */
import { LOADED, recentEvidence, versionEvidence, type Evidence } from '../src/evaluate';
import { seeded } from '../scripts/make-labeled-set';
import { flag } from './setup';

const WEEKS = 52;
const BASE = 0.9;
const DRIFTED = 0.8;
const DRIFT_WEEK = 20;
const VERSION_WEEKS = new Set([13, 39]);
const SAME_ANSWER = 0.85;
const SAMPLE = 200;
const OPTIONS = { falseAlarmRate: 0.01, threshold: 5 };

interface Row {
	week: number;
	/** The row's chance of being right (what the interval should hold, averaged). */
	p: number;
	/** Right on the version that answered it last. */
	right: boolean;
	/** Scored on the live version (stored on it, or decided again in the sample). */
	live: boolean;
}

interface YearResult {
	runs: number;
	alerts: number;
	/** Weeks from the drift's start to the first alert (1: the first week); null: never. */
	detectedIn: number | null;
	units: number;
	rerunUnits: number;
	intervals: number;
	held: number;
}

function simulateYear(rowsPerWeek: number, drift: boolean, random: () => number): YearResult {
	const result: YearResult = {
		runs: 0,
		alerts: 0,
		detectedIn: null,
		units: 0,
		rerunUnits: 0,
		intervals: 0,
		held: 0,
	};
	const rows: Row[] = [];
	for (let week = 1; week <= WEEKS; week++) {
		const p = drift && week >= DRIFT_WEEK ? DRIFTED : BASE;
		// The week's reviews, stored with the live version's answer: scored free.
		for (let at = 0; at < rowsPerWeek; at++)
			rows.push({ week, p, right: random() < p, live: true });
		const evidence: Evidence[] = [];
		if (VERSION_WEEKS.has(week)) {
			// Earlier rows were answered by the old version: the 200 most recent decided again.
			const older = rows.filter((row) => row.week < week);
			for (const row of older) row.live = false;
			const sample = older.slice(-SAMPLE);
			const pairs = { n: 0, onlyOld: 0, onlyLive: 0, both: 0 };
			for (const row of sample) {
				const old = row.right;
				const now = random() < SAME_ANSWER ? old : random() < row.p;
				row.right = now;
				row.live = true;
				pairs.n++;
				if (old && now) pairs.both++;
				else if (old) pairs.onlyOld++;
				else if (now) pairs.onlyLive++;
			}
			result.units += sample.length;
			if (pairs.n) evidence.push(versionEvidence(pairs, OPTIONS));
		}
		result.rerunUnits += rows.length;
		const recent = { successes: 0, n: 0 };
		const earlier = { successes: 0, n: 0 };
		let earlierTrue = 0;
		for (const row of rows) {
			if (!row.live) continue;
			const side = row.week === week ? recent : earlier;
			side.n++;
			if (row.right) side.successes++;
			if (row.week !== week) earlierTrue += row.p;
		}
		const test = recentEvidence([{ stratum: LOADED, recent, earlier }], OPTIONS);
		evidence.push(test);
		if (test.low !== null && test.high !== null && earlier.n > 0) {
			const truth = (p - earlierTrue / earlier.n) * 100;
			result.intervals++;
			// Points are rounded to 0.01: a hair of slack either side.
			if (test.low - 0.005 <= truth && truth <= test.high + 0.005) result.held++;
		}
		result.runs++;
		const alert = evidence.some((each) => each.alert);
		if (alert) result.alerts++;
		if (alert && drift && week >= DRIFT_WEEK && result.detectedIn === null)
			result.detectedIn = week - DRIFT_WEEK + 1;
	}
	return result;
}

const quantile = (values: number[], q: number) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

function main() {
	const years = flag('years', 1000);
	const seed = flag('seed', 37);
	const lines: string[] = [];
	const say = (line: string) => {
		lines.push(line);
		console.log(line);
	};
	say(
		`| rows a week | runs | false alarms a run (stable; set 1 %) | drift detected | weeks to detect: median, 90th pct | units a year | today's rule | share | 95 % intervals holding the truth |`,
	);
	say('|---|---|---|---|---|---|---|---|---|');
	for (const rowsPerWeek of [34, 200]) {
		const random = seeded(seed + rowsPerWeek);
		let runs = 0;
		let alerts = 0;
		let intervals = 0;
		let held = 0;
		let units = 0;
		let rerun = 0;
		const detected: number[] = [];
		let missed = 0;
		for (let year = 0; year < years; year++) {
			const stable = simulateYear(rowsPerWeek, false, random);
			runs += stable.runs;
			alerts += stable.alerts;
			intervals += stable.intervals;
			held += stable.held;
			units = stable.units;
			rerun = stable.rerunUnits;
			const drifted = simulateYear(rowsPerWeek, true, random);
			intervals += drifted.intervals;
			held += drifted.held;
			if (drifted.detectedIn === null) missed++;
			else detected.push(drifted.detectedIn);
		}
		const rate = alerts / runs;
		say(
			`| ${rowsPerWeek} | ${runs.toLocaleString('en-US')} | ${(rate * 100).toFixed(2)} % | ${(((years - missed) / years) * 100).toFixed(1)} % of years | ${detected.length ? `${quantile(detected, 0.5)}, ${quantile(detected, 0.9)}` : '–'} | ${units.toLocaleString('en-US')} | ${rerun.toLocaleString('en-US')} | ${((units / rerun) * 100).toFixed(2)} % | ${((held / intervals) * 100).toFixed(1)} % of ${intervals.toLocaleString('en-US')} |`,
		);
	}
	return lines;
}

if (require.main === module) main();
