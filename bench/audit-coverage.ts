/**
 * Does the all-traffic estimate hold what it says (issue 37)? Simulates a month of traffic with an
 * audit sample and checks how often the 95 % interval of Evaluate's estimate (src/evaluate/
 * all-traffic.ts: Horvitz–Thompson over the doubtful and audited strata, stratifiedProportion)
 * holds the true accuracy over all traffic. In-process on the pure functions, seeded, bounded.
 *
 * Model: `daily` items a day for `days` days; a share `doubtful` of them are doubtful (every one
 * reviewed, the machine's guess right with probability `pDoubtful`), the rest confident (right
 * with probability `pConfident`), of which Audit Share picks each with probability `share` (the
 * hash of a distinct input behaves as a uniform draw). Truth: the accuracy over every item of the
 * month ("this traffic"), and the process's accuracy (doubtful × pDoubtful + confident × pConfident:
 * what the same decision does on next month's traffic). Prints how often the interval holds each,
 * its mean half-width, and the rows a person reviewed.
 *
 * Run: node --require tsx/cjs bench/audit-coverage.ts [--years 2000] [--seed 37]
 */
import { evaluate, type ScoredItem } from '../src/evaluate';
import { seeded } from '../scripts/make-labeled-set';
import { flag } from './setup';

interface Scenario {
	name: string;
	daily: number;
	days: number;
	doubtful: number;
	pDoubtful: number;
	pConfident: number;
	share: number;
}

const SCENARIOS: Scenario[] = [
	{
		name: 'small team, 5 %',
		daily: 40,
		days: 30,
		doubtful: 0.15,
		pDoubtful: 0.6,
		pConfident: 0.95,
		share: 0.05,
	},
	{
		name: 'small team, 20 %',
		daily: 40,
		days: 30,
		doubtful: 0.15,
		pDoubtful: 0.6,
		pConfident: 0.95,
		share: 0.2,
	},
	{
		name: 'busy team, 2 %',
		daily: 400,
		days: 30,
		doubtful: 0.1,
		pDoubtful: 0.55,
		pConfident: 0.92,
		share: 0.02,
	},
	{
		name: 'near perfect, 5 %',
		daily: 200,
		days: 30,
		doubtful: 0.05,
		pDoubtful: 0.7,
		pConfident: 0.99,
		share: 0.05,
	},
];

const decision = { type: 'route' as const, keys: ['right', 'wrong'] };

/** A reviewed row as Evaluate scores it: the expected answer, the machine's, the stratum. */
function row(right: boolean, stratum: 'doubtful' | 'audited', share?: number): ScoredItem {
	const status = stratum === 'doubtful' ? 'uncertain' : 'ok';
	return {
		expected: 'right',
		run: {
			runId: 'r',
			status,
			probabilities: {},
			...(status === 'ok' ? { answer: [right ? 'right' : 'wrong'] } : {}),
			guess: [right ? 'right' : 'wrong'],
		},
		charged: 0,
		stratum,
		...(share === undefined ? {} : { auditShare: share }),
	} as ScoredItem;
}

function simulate(scenario: Scenario, years: number, random: () => number) {
	let held = 0;
	let heldProcess = 0;
	let estimated = 0;
	let width = 0;
	let reviewed = 0;
	for (let year = 0; year < years; year++) {
		const rows: ScoredItem[] = [];
		let right = 0;
		const total = scenario.daily * scenario.days;
		for (let at = 0; at < total; at++) {
			if (random() < scenario.doubtful) {
				const ok = random() < scenario.pDoubtful;
				right += ok ? 1 : 0;
				rows.push(row(ok, 'doubtful'));
			} else {
				const ok = random() < scenario.pConfident;
				right += ok ? 1 : 0;
				if (random() < scenario.share) rows.push(row(ok, 'audited', scenario.share));
			}
		}
		reviewed += rows.length;
		const truth = right / total;
		const { metrics } = evaluate(decision, rows, { targetAccuracy: 0.9 });
		const interval = metrics.allTraffic.accuracyInterval;
		if (!interval) continue;
		estimated++;
		width += interval.high - interval.low;
		if (interval.low <= truth && truth <= interval.high) held++;
		// The process's accuracy: what the same decision will do on next month's traffic.
		const expected =
			scenario.doubtful * scenario.pDoubtful + (1 - scenario.doubtful) * scenario.pConfident;
		if (interval.low <= expected && expected <= interval.high) heldProcess++;
	}
	return {
		coverage: held / estimated,
		coverageProcess: heldProcess / estimated,
		estimated,
		meanWidth: width / estimated,
		reviewedPerRun: reviewed / years,
	};
}

const years = flag('years', 2000);
const random = seeded(flag('seed', 37));
console.log(
	`# All-traffic estimate: how often its 95 % interval holds the truth (${years} simulated months each)`,
);
console.log(
	'| scenario | items | reviewed a run (doubtful + audited) | runs with a figure | mean width | holds this traffic’s accuracy | holds the process’s accuracy |',
);
console.log('|---|---|---|---|---|---|---|');
for (const scenario of SCENARIOS) {
	const result = simulate(scenario, years, random);
	console.log(
		`| ${scenario.name} | ${scenario.daily * scenario.days} | ${result.reviewedPerRun.toFixed(0)} | ${result.estimated} | ±${((result.meanWidth / 2) * 100).toFixed(1)} points | ${(result.coverage * 100).toFixed(1)} % | ${(result.coverageProcess * 100).toFixed(1)} % |`,
	);
}
