/**
 * Evaluate's accuracy over all traffic through n8n-core's engine against the sandbox (issue 37,
 * point 6): stored review rows as a Data Table gives them back, each with the answer its version
 * gave (scored free) and why a person saw it (`stratum`, `audit_share`): doubtful rows, audited
 * rows at two shares, rows added by hand and rows with bad cells. The report's `all_traffic`
 * equals the test's own recomputation with weighedRate from the scored items' outcomes. Rows Review
 * wrote for items nobody reviewed (`not_reviewed`) are the rest of the doubtful population: not
 * scored, not charged, not bad rows, not a partial run (issue 43).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { runNode } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { evaluationDecisionOf } from '../../src/answer';
import { weighedRate } from '../../src/evaluate/stats';
import { makeLabeledSet, reviewRowOf } from '../../scripts/make-labeled-set';
import { locator } from './helpers';

let sb: TestSandbox;
const leaks: string[] = [];

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
	for (const key of Object.values(DEMO_KEYS)) expect(leaks.join('\n')).not.toContain(key);
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

interface Plan {
	count: number;
	right: number;
	machineStatus: 'ok' | 'uncertain';
	stratum?: unknown;
	auditShare?: unknown;
}

// 8 doubtful rows (guesses right on 5), 6 audited at 25 % (5 right), 4 audited at 10 % (3 right);
// left out: 2 added by hand (empty cells), a `__proto__` stratum, audit shares 0 and 1.5.
const PLANS: Plan[] = [
	{ count: 8, right: 5, machineStatus: 'uncertain', stratum: 'doubtful' },
	{ count: 6, right: 5, machineStatus: 'ok', stratum: 'audited', auditShare: 0.25 },
	{ count: 4, right: 3, machineStatus: 'ok', stratum: 'audited', auditShare: 0.1 },
	{ count: 2, right: 2, machineStatus: 'ok', stratum: null, auditShare: null },
	{ count: 1, right: 1, machineStatus: 'ok', stratum: '__proto__', auditShare: 0.25 },
	{ count: 1, right: 0, machineStatus: 'ok', stratum: 'audited', auditShare: 0 },
	{ count: 1, right: 1, machineStatus: 'ok', stratum: 'audited', auditShare: 1.5 },
];

/** The stored rows: each keeps the live version's answer (right or another option) and its stratum. */
function storedRows(keys: readonly string[], liveVersion: number): IDataObject[] {
	const tickets = makeLabeledSet();
	const rows: IDataObject[] = [];
	for (const plan of PLANS) {
		for (let at = 0; at < plan.count; at++) {
			const ticket = tickets[rows.length];
			const wrong = keys.find((key) => key !== ticket.expected)!;
			rows.push({
				...reviewRowOf(ticket),
				run_id: `run_stored_${rows.length}`,
				machine_status: plan.machineStatus,
				machine_answer: at < plan.right ? ticket.expected : wrong,
				confidence: plan.machineStatus === 'ok' ? 0.9 : 0.4,
				version: liveVersion,
				stratum: plan.stratum ?? null,
				audit_share: plan.auditShare ?? null,
				reviewed_at: '2026-11-20T10:00:00.000Z',
			});
		}
	}
	return rows;
}

async function evaluateRows(items: IDataObject[]) {
	const parameters: INodeParameters = {
		resource: 'decision',
		operation: 'evaluate',
		decision: locator('ticket-routing'),
		inputMode: 'json',
		jsonInput: '={{ $json.input }}',
		expected: '={{ $json.answer }}',
		targetAccuracy: 0.9,
		evaluateOptions: {},
	};
	const result = await runNode({
		parameters,
		items,
		credentials: { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl },
	});
	leaks.push(result.serialised);
	expect(result.error).toBeUndefined();
	return result.outputs;
}

describe('Evaluate estimates accuracy over all traffic', () => {
	it('weighs doubtful and audited rows by the traffic they stand for, free; the report equals the recomputation', async () => {
		const decision = await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing');
		const keys = evaluationDecisionOf(decision).keys;
		const rows = storedRows(keys, decision.live_version!);
		const before = (await sb.usage(DEMO_KEYS.pro)).used;
		const [[report], scored] = await evaluateRows(rows);
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before);
		expect(scored).toHaveLength(rows.length);

		// The test's own strata, from the scored items' outcomes: right by the answer, or on a
		// doubtful run by the machine's guess; rows with a bad or no stratum left out.
		const strata = new Map<
			string,
			{ right: number; rows: number; population: number; share: number }
		>();
		const audited = { right: 0, n: 0 };
		scored.forEach((item, at) => {
			const row = rows[at];
			const share = row.audit_share;
			const good =
				row.stratum === 'doubtful' ||
				(row.stratum === 'audited' && typeof share === 'number' && share > 0 && share <= 1);
			if (!good) return;
			const right = item.json.answered ? item.json.right : item.json.guess_right;
			expect(typeof right).toBe('boolean');
			const key = row.stratum === 'doubtful' ? 'doubtful' : `audited ${share}`;
			const π = row.stratum === 'doubtful' ? 1 : (share as number);
			const stratum = strata.get(key) ?? { right: 0, rows: 0, population: 0, share: π };
			stratum.rows++;
			stratum.population += 1 / π;
			if (right) stratum.right++;
			strata.set(key, stratum);
			if (row.stratum === 'audited') {
				audited.n++;
				if (right) audited.right++;
			}
		});
		expect([...strata.values()].map((s) => [s.rows, s.right])).toEqual([
			[8, 5],
			[6, 5],
			[4, 3],
		]);
		const expected = weighedRate([...strata.values()]);
		const total = [...strata.values()].reduce((sum, s) => sum + s.population, 0);

		const allTraffic = report.json.all_traffic as IDataObject & {
			accuracy_interval: IDataObject;
			strata: IDataObject[];
		};
		expect(allTraffic.accuracy).toBeCloseTo(expected.value!, 4);
		expect(allTraffic.accuracy_interval.low).toBeCloseTo(expected.low, 4);
		expect(allTraffic.accuracy_interval.high).toBeCloseTo(expected.high, 4);
		expect(allTraffic.accuracy_interval.n).toBe(18);
		expect(allTraffic.rows).toEqual({ doubtful: 8, audited: 10 });
		expect(allTraffic.stands_for).toEqual({ doubtful: 8, audited: 64, total });
		expect(allTraffic.left_out).toEqual({
			hand_added: 2,
			bad_stratum: 1,
			bad_share: 2,
			total: 5,
		});
		expect(allTraffic.strata.map((s) => [s.stratum, s.audit_share, s.stands_for])).toEqual([
			['doubtful', null, 8],
			['audited', 0.25, 24],
			['audited', 0.1, 40],
		]);
		// The audited answers at two shares: each share's rows weigh as many answers as they stand
		// for (5 of 6 at 25 % stand for 24, 3 of 4 at 10 % for 40), not 8 of 10 rows.
		const confident = weighedRate([...strata.values()].slice(1));
		const round = (value: number) => Math.round(value * 1e4) / 1e4;
		expect(report.json.confident_accuracy).toEqual({
			accuracy: round(confident.value!),
			accuracy_interval: {
				low: round(confident.low),
				high: round(confident.high),
				n: 10,
				level: 0.95,
			},
			right: 8,
			n: 10,
			reason: null,
		});

		// In words: the estimate, the audited answers, the rows left out; no doubtful-only warning.
		const pct = (value: number) => Math.round(value * 100);
		const summary = report.json.summary as string;
		expect(summary).toContain(
			`Accuracy over all traffic (estimated from 8 doubtful and 10 audited items, standing for about 72 items): ${Math.round(expected.value! * 1000) / 10}% (95% interval ${pct(expected.low)}–${pct(expected.high)}%). Left out of it: 5 rows, 2 added by hand (no stratum), 1 with a stratum other than doubtful or audited, 2 audited with an audit share that is not a number above 0 and at most 1.`,
		);
		expect(summary).toContain(
			`Answers sent straight to their output: ${Math.round(confident.value! * 1000) / 10}% right (95% interval ${pct(confident.low)}–${pct(confident.high)}%), from 8 of 10 audited at 2 Audit Shares, each weighed by the answers it stands for.`,
		);
		expect(summary).not.toContain('hard cases');
		const html = Buffer.from(report.binary!.data.data, 'base64').toString('utf8');
		expect(html).toContain('data-figure="all-traffic"');
	});

	it('only doubtful rows: no figure, the reason, and the warning about the hard cases', async () => {
		const decision = await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing');
		const rows = storedRows(evaluationDecisionOf(decision).keys, decision.live_version!).slice(
			0,
			8,
		);
		const [[report]] = await evaluateRows(rows);
		const allTraffic = report.json.all_traffic as IDataObject;
		expect(allTraffic).toMatchObject({ accuracy: null, accuracy_interval: null });
		expect(allTraffic.reason).toMatch(
			/^not enough items yet \(0 audited; at least 10 needed for a figure, about \d+ for ± 5 points\)$/,
		);
		expect(report.json.confident_accuracy).toMatchObject({ accuracy: null, n: 0 });
		expect(report.json.reviewed_from).toEqual({ told: 8, doubtful: 8, doubtful_only: true });
		expect(report.json.summary).toContain(
			`Accuracy over all traffic: ${allTraffic.reason as string}`,
		);
		expect(report.json.summary).toContain('the accuracy is that of the hard cases');
	});

	it('rows of doubtful items nobody reviewed: the doubtful population, not scored, not charged, not bad rows', async () => {
		const decision = await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing');
		const keys = evaluationDecisionOf(decision).keys;
		// 8 doubtful reviewed (5 right), 10 audited (6 at 25 %, 4 at 10 %).
		const reviewed = storedRows(keys, decision.live_version!).slice(0, 18);
		// What Review writes for an item left for later (src/answer/labeled-row.ts): empty answer.
		const left = (runId: string): IDataObject => ({
			review_id: `exec_9/${runId}`,
			status: 'not_reviewed',
			answer: '',
			decision: 'ticket-routing',
			version: decision.live_version!,
			run_id: runId,
			machine_status: 'uncertain',
			machine_answer: keys[0],
			confidence: 0.4,
			stratum: 'doubtful',
			input: reviewed[0].input,
			reviewed_at: '2026-11-21T10:00:00.000Z',
		});
		const notReviewed = [
			left('run_left_1'),
			left('run_left_2'),
			left('run_left_3'),
			left('run_left_4'),
			// Left in one execution, counted once; and one whose item was reviewed after all.
			{ ...left('run_left_1'), review_id: 'exec_10/run_left_1' },
			left(reviewed[0].run_id as string),
		];
		const rows = [...reviewed.slice(0, 4), ...notReviewed, ...reviewed.slice(4)];
		const before = (await sb.usage(DEMO_KEYS.pro)).used;
		const [[report], scored] = await evaluateRows(rows);
		expect((await sb.usage(DEMO_KEYS.pro)).used).toBe(before);

		expect(report.json.bad_rows).toEqual([]);
		expect(report.json.failed_items).toEqual([]);
		expect(report.json.not_scored).toEqual([]);
		expect(report.json.partial).toBe(false);
		expect(report.json.total).toBe(18);
		for (const at of [4, 5, 6, 7, 8, 9])
			expect(scored[at].json).toMatchObject({
				status: 'not_reviewed',
				scored: false,
				charged: 0,
				not_scored: expect.stringMatching(/^Not reviewed: not scored/),
			});

		const allTraffic = report.json.all_traffic as IDataObject & { strata: IDataObject[] };
		expect(allTraffic.not_reviewed).toEqual({ doubtful: 4, audited: 0 });
		expect(allTraffic.strata[0]).toMatchObject({
			rows: 8,
			right: 5,
			not_reviewed: 4,
			stands_for: 12,
		});
		const expected = weighedRate([
			{ rows: 8, right: 5, population: 12, share: 1 },
			{ rows: 6, right: 5, population: 24, share: 0.25 },
			{ rows: 4, right: 3, population: 40, share: 0.1 },
		]);
		expect(allTraffic.accuracy).toBeCloseTo(expected.value!, 4);
		expect(report.json.summary).toContain(
			'8 of 12 doubtful items reviewed; the other 4 are taken to be like them.',
		);
		// The message a Slack or e-mail node sends says the same, with the interval.
		const pct = (value: number) => Math.round(value * 100);
		expect(report.json.message).toContain(
			`• Over all traffic: ${Math.round(expected.value! * 1000) / 10}% (95% interval ${pct(expected.low)}–${pct(expected.high)}%). 8 of 12 doubtful items reviewed; the other 4 are taken to be like them.`,
		);
	});
});
