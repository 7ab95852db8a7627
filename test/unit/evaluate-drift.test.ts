/**
 * Quality watched run after run (src/evaluate/drift.ts, compare-text.ts, labeled-row.ts): the
 * figures row, what changed since the previous row and when the drop alert fires, two versions
 * said as a decision, a review as one flat row; and Evaluate's outputs as n8n computes them.
 */
import type { INodeParameters } from 'n8n-workflow';
import {
	comparisonSentence,
	pValueWords,
	recentEvidence,
	versionEvidence,
	LOADED,
	type EvidenceOptions,
	type ProportionCount,
	costSentence,
	driftSection,
	renderReport,
	driftOf,
	evaluate,
	figuresRow,
	readFiguresRow,
	summaryOf,
	tallyOf,
	type ScoredItem,
} from '../../src/evaluate';
import { reviewIdOf, reviewRow, storedReviewId, type EvaluationDecision } from '../../src/answer';
import { outputNames } from '../../harness/n8n-expressions';
import { answerOfRun } from '../support/answers';

/** One stratum's rows: the test as it was before strata (loaded rows against loaded rows). */
const recentOf = (recent: ProportionCount, earlier: ProportionCount, options: EvidenceOptions) =>
	recentEvidence([{ stratum: LOADED, recent, earlier }], options);

const decision: EvaluationDecision = { type: 'route', keys: ['billing', 'sales', '__proto__'] };
const item = (expected: string, status: string, choice: string, confidence = 0.9): ScoredItem => ({
	expected,
	run: answerOfRun(
		{ status, choice, confidence, probabilities: { [choice]: confidence } },
		'route',
	),
	charged: 1,
});

function rowOf(items: ScoredItem[], liveVersion: number, evaluatedAt = '2026-11-24T18:00:00.000Z') {
	const { metrics } = evaluate(decision, items, { targetAccuracy: 0.9 });
	return figuresRow(metrics, summaryOf(metrics), {
		decision: 'ticket-routing',
		liveVersion,
		evaluatedAt,
	});
}

const good = [
	item('billing', 'ok', 'billing'),
	item('billing', 'ok', 'billing'),
	item('sales', 'ok', 'sales'),
	item('__proto__', 'ok', '__proto__'),
];
const worse = [
	item('billing', 'ok', 'billing'),
	item('billing', 'ok', 'sales'),
	item('sales', 'ok', 'sales'),
	item('__proto__', 'uncertain', '__uncertain__', 0.3),
];

describe('figuresRow', () => {
	it('is flat: texts, numbers, yes/no and nulls only, per-answer figures as JSON text', () => {
		const row = rowOf(worse, 4);
		for (const value of Object.values(row))
			expect(['string', 'number', 'boolean', 'object']).toContain(
				typeof value === 'object' ? 'object' : typeof value,
			);
		for (const value of Object.values(row)) if (typeof value === 'object') expect(value).toBeNull();
		expect(row).toMatchObject({
			decision: 'ticket-routing',
			live_version: 4,
			total: 4,
			answered: 3,
			right: 2,
			accuracy: 0.6667,
			coverage: 0.75,
			units_charged: 4,
			partial: false,
			not_scored: 0,
			bad_rows: 0,
		});
		expect(JSON.parse(row.per_answer)).toEqual([
			{ key: 'billing', precision: 1, recall: 0.5, support: 2 },
			{ key: 'sales', precision: 0.5, recall: 1, support: 1 },
			{ key: '__proto__', precision: null, recall: null, support: 1 },
		]);
	});
});

describe('figuresRow of a run that could not score every row', () => {
	it('says partial when rows went unscored (the cap), and counts the bad rows apart', () => {
		const { metrics } = evaluate(decision, good, { targetAccuracy: 0.9 });
		const meta = { decision: 'ticket-routing', liveVersion: 3, evaluatedAt: 'now' };
		expect(
			figuresRow(metrics, summaryOf(metrics), { ...meta, notScored: 34, badRows: 2 }),
		).toMatchObject({ partial: true, not_scored: 34, bad_rows: 2 });
		// Bad rows alone: the set is the good rows, all scored: a full run.
		expect(figuresRow(metrics, summaryOf(metrics), { ...meta, badRows: 3 })).toMatchObject({
			partial: false,
			bad_rows: 3,
		});
		// The units are what the node charged (both versions' decides), when it says.
		expect(
			figuresRow(metrics, summaryOf(metrics), { ...meta, unitsCharged: 8 }).units_charged,
		).toBe(8);
	});
});

describe('readFiguresRow', () => {
	it('never takes a partial row as a baseline: the last full row of a list is read', () => {
		const full = rowOf(good, 3);
		const partial = { ...rowOf(worse, 3, '2026-11-25T18:00:00.000Z'), partial: true };
		expect(readFiguresRow(partial)).toBeUndefined();
		// As a Data Table gives a yes/no back, or a sheet its text.
		expect(readFiguresRow({ ...partial, partial: 'true' })).toBeUndefined();
		expect(readFiguresRow([full, partial])).toEqual(full);
		expect(readFiguresRow([partial])).toBeUndefined();
		// Rows stored before the column existed are full runs.
		const { partial: _p, not_scored: _n, bad_rows: _b, ...older } = full;
		void [_p, _n, _b];
		expect(readFiguresRow(older)).toEqual(full);
	});

	it('reads a Data Table row back (its own id and dates beside), JSON text, or nothing', () => {
		const row = rowOf(good, 3);
		const stored = { id: 7, createdAt: '2026-11-24T18:00:01.000Z', ...row };
		expect(readFiguresRow(stored)).toEqual(row);
		expect(readFiguresRow(JSON.stringify(row))).toEqual(row);
		expect(readFiguresRow([rowOf(worse, 2), row])).toEqual(row);
		// The first run of a watch: the Data Table node's empty item, an empty expression.
		for (const nothing of [{}, '', '  ', null, undefined, 'not json', [], { total: 'many' }])
			expect(readFiguresRow(nothing)).toBeUndefined();
	});

	it('never reads an inherited property: a row named by its keys only', () => {
		const sneaky = Object.create({ accuracy: 0.5, total: 4 }) as object;
		expect(readFiguresRow(sneaky)).toBeUndefined();
	});
});

describe('driftOf', () => {
	it('says what changed since the previous figures, and fires past the threshold only', () => {
		const before = rowOf(good, 3);
		const after = rowOf(worse, 4, '2026-11-25T18:00:00.000Z');
		const drift = driftOf(before, after, 5, 'Ticket routing');
		// 100% → 66.67%: 33.3 points lost.
		expect(drift.accuracy).toEqual({ before: 1, after: 0.6667, points: -33.3 });
		expect(drift.coverage).toEqual({ before: 1, after: 0.75, points: -25 });
		expect(drift.accuracy_drop).toBe(33.3);
		expect(drift.dropped).toBe(true);
		expect(drift.previous_version).toBe(3);
		expect(drift.per_answer.map((each) => each.key)).toEqual(['billing', 'sales', '__proto__']);
		expect(drift.message.split('\n')).toEqual([
			'Ticket routing, live version 4 (was 3), on 4 labeled items since 2026-11-24 18:00 UTC:',
			'• Accuracy 66.7% (−33.3 points, was 100%): 2 of 3 answered right',
			'• Answered 75% (−25.0 points, was 100%)',
			'• billing: precision 100%, recall 100% → 50%',
			'• sales: precision 100% → 50%, recall 100%',
			'• __proto__: precision 100% → –, recall 100% → –',
			// On 3 and 4 items no setting is supported (src/evaluate/stats.ts): both runs have none.
			'• Recommended minimum confidence: none recommended yet (unchanged); Close Call Gap: none recommended yet (unchanged)',
			'Alert: accuracy dropped 33.3 points, beyond the 5-point threshold.',
			'Cost: 4 units.',
		]);
		// The same drop under a higher threshold: reported, no alert.
		expect(driftOf(before, after, 40).dropped).toBe(false);
		// At exactly the threshold: no alert ("beyond").
		expect(driftOf(before, after, 33.3).dropped).toBe(false);
		// A rise is no drop.
		expect(driftOf(after, before, 0)).toMatchObject({ accuracy_drop: 0, dropped: false });
	});

	it('without previous figures, this run is the baseline: no alert', () => {
		const drift = driftOf(undefined, rowOf(worse, 4), 0);
		expect(drift).toMatchObject({ compared: false, dropped: false, accuracy_drop: null });
		expect(drift.message).toContain('No earlier figures: this run is the baseline.');
	});

	it('a partial run is compared with nothing, never alerts, and says why it is partial', () => {
		const before = rowOf(good, 3);
		const capped = {
			...rowOf(worse, 3, '2026-11-25T18:00:00.000Z'),
			partial: true,
			not_scored: 34,
		};
		const drift = driftOf(before, capped, 5, 'Ticket routing', {
			notScoredBecause: 'Not sent: Max Decides per Execution (10) is reached',
		});
		expect(drift).toMatchObject({
			compared: false,
			partial: true,
			dropped: false,
			accuracy_drop: null,
			accuracy: { before: null, after: 0.6667, points: null },
		});
		const lines = drift.message.split('\n');
		expect(lines[0]).toBe(
			'Ticket routing, live version 3, on 4 labeled items (partial: 34 rows not scored):',
		);
		expect(lines).toContain(
			'Partial run: 34 rows not scored (Not sent: Max Decides per Execution (10) is reached). Not compared with the figures of 2026-11-24 18:00 UTC, and never a baseline: the next run compares with the last full one.',
		);
		expect(drift.message).not.toContain('baseline.');
		expect(driftSection(drift)).toContain('Partial run: 34 rows not scored');
	});

	it('names every bad row, and says what the node charged beside what was paid upstream', () => {
		const drift = driftOf(undefined, rowOf(good, 3), 5, 'Ticket routing', {
			badRows: ['Item 2 (row 17): No expected answer', 'Item 5: The expected option "x"'],
			paidUpstream: 100,
		});
		const lines = drift.message.split('\n');
		expect(lines.slice(-4)).toEqual([
			'2 rows not scored, to fix:',
			'• Item 2 (row 17): No expected answer',
			'• Item 5: The expected option "x"',
			'Cost: 4 units here; the 100 runs the items carried were paid upstream (100 units).',
		]);
	});

	it('says "Nothing changed." when nothing did', () => {
		expect(driftOf(rowOf(good, 3), rowOf(good, 3), 5).message).toContain('Nothing changed.');
	});
});

describe("the report's drift section", () => {
	it('shows before, now and the change, the alert when it fired, every key escaped', () => {
		const hostile = { type: 'route' as const, keys: ['<b>x</b>', 'billing'] };
		const rows = (items: ScoredItem[], version: number, at: string) => {
			const { metrics } = evaluate(hostile, items);
			return figuresRow(metrics, summaryOf(metrics), {
				decision: 'd',
				liveVersion: version,
				evaluatedAt: at,
			});
		};
		const before = rows(
			[item('<b>x</b>', 'ok', '<b>x</b>'), item('billing', 'ok', 'billing')],
			1,
			'2026-11-24T08:00:00Z',
		);
		const after = rows(
			[item('<b>x</b>', 'ok', 'billing'), item('billing', 'ok', 'billing')],
			2,
			'2026-11-25T08:00:00Z',
		);
		const drift = driftOf(before, after, 5);
		const html = driftSection(drift);
		expect(html).toContain('Since the last evaluation (2026-11-24 08:00 UTC, version 1)');
		expect(html).toContain(
			'role="alert">Accuracy dropped 50.0 points, beyond the 5-point threshold.',
		);
		expect(html).toContain('<td>100%</td><td>50%</td><td>−50.0 points</td>');
		expect(html).toContain('&lt;b&gt;x&lt;/b&gt;: precision');
		expect(html).not.toContain('<b>x</b>');
		expect(driftSection(driftOf(before, after, 60))).not.toContain('role="alert"');
		expect(driftSection(driftOf(undefined, after, 5))).toBe('');
		const { metrics } = evaluate(hostile, [item('billing', 'ok', 'billing')]);
		expect(renderReport(metrics, { drift })).toContain('Since the last evaluation');
		expect(renderReport(metrics)).not.toContain('Since the last evaluation');
	});
});

describe('comparisonSentence', () => {
	it('says the pinned version against the live one as a decision to take', () => {
		expect(
			comparisonSentence(
				{ version: 3, right: 5, wrong: 3, unanswered: 2 },
				{ version: 4, right: 8, wrong: 4, unanswered: 0 },
				10,
			),
		).toBe(
			'On the same 10 items, version 4 answers 3 more items right and 1 more item wrong than live version 3 (8 right, 4 wrong against 5 and 3), and leaves 2 fewer items unanswered; it would cost the same: one unit per decide on either version.',
		);
		expect(
			comparisonSentence(
				{ version: 3, right: 5, wrong: 1, unanswered: 0 },
				{ version: 2, right: 5, wrong: 1, unanswered: 0 },
				6,
			),
		).toContain('version 2 answers as many right and as many wrong as live version 3');
	});

	it('tallies a version on the items compared only', () => {
		const { metrics } = evaluate(decision, worse);
		expect(tallyOf(metrics, 4)).toEqual({ version: 4, right: 2, wrong: 1, unanswered: 1 });
		expect(tallyOf(metrics, 4, new Set([0, 1]))).toEqual({
			version: 4,
			right: 1,
			wrong: 1,
			unanswered: 0,
		});
	});
});

describe('costSentence', () => {
	it("counts both versions' decides, and the carried runs as paid upstream", () => {
		expect(
			costSentence({
				charged: 18,
				live: 9,
				compared: { version: 1, charged: 9 },
				upstream: 0,
				mayHaveBeenCharged: 0,
			}),
		).toBe('Charged 18 units here: 9 decided on the live version, 9 on version 1.');
		expect(costSentence({ charged: 0, live: 0, upstream: 100, mayHaveBeenCharged: 0 })).toBe(
			'Charged 0 units here: 0 decided on the live version. The 100 runs the items carried were paid upstream (100 units, by the node that decided them) and scored here free.',
		);
	});
});

describe('the review id', () => {
	const review = {
		picked: ['billing', 'refund'],
		labels: true,
		agreed: false,
		decision: 'content-labels',
		machineAnswer: [],
		reviewedAt: '2026-11-25T10:00:00.000Z',
		executionId: '12',
	};
	it('is one per review: the execution and the run, else what was asked and picked', () => {
		expect(reviewRow({ ...review, runId: 'run_1' }).review_id).toBe('12/run_1');
		const a = reviewRow({ ...review, input: { subject: 'a' } }).review_id;
		const b = reviewRow({ ...review, input: { subject: 'b' } }).review_id;
		expect(a).toMatch(/^12\/asked-[0-9a-f]{8}$/);
		expect(b).not.toBe(a);
		expect(reviewRow({ ...review, input: { subject: 'a' } }).review_id).toBe(a);
		expect(reviewIdOf({ runId: 'run_1' })).toBeUndefined();
	});
	it('is read back from a stored row, or from its execution and run (rows stored before)', () => {
		expect(storedReviewId({ review_id: '12/run_1', run_id: 'other' })).toBe('12/run_1');
		expect(storedReviewId({ execution_id: '12', run_id: 'run_1' })).toBe('12/run_1');
		expect(storedReviewId({ answer: 'billing', input: '{}' })).toBeUndefined();
		const inherited = Object.create({ review_id: 'x', execution_id: '1', run_id: 'r' }) as object;
		expect(storedReviewId(inherited)).toBeUndefined();
	});
});

describe('reviewRow', () => {
	it('is one flat row: what the Data Table node stores with no mapping', () => {
		const row = reviewRow({
			picked: ['billing', 'refund'],
			labels: true,
			agreed: false,
			note: 'double charge',
			feedback: { value: 'billing,refund', sent: true },
			decision: 'content-labels',
			version: 2,
			runId: 'run_1',
			machineStatus: 'uncertain',
			machineAnswer: [],
			confidence: 0.41,
			input: { subject: 'Charged twice', constructor: 'x' },
			reviewedAt: '2026-11-25T10:00:00.000Z',
			executionId: '12',
			workflowId: 'wf',
		});
		expect(row).toEqual({
			review_id: '12/run_1',
			status: 'reviewed',
			// The one encoding, as the feedback sent (src/answer/kinds.ts): Send Feedback sends it as it is.
			answer: 'billing,refund',
			agreed: false,
			note: 'double charge',
			feedback: 'billing,refund',
			feedback_sent: true,
			decision: 'content-labels',
			version: 2,
			run_id: 'run_1',
			machine_status: 'uncertain',
			machine_answer: 'no label',
			confidence: 0.41,
			input: '{"subject":"Charged twice","constructor":"x"}',
			reviewed_at: '2026-11-25T10:00:00.000Z',
			execution_id: '12',
			workflow_id: 'wf',
		});
		for (const value of Object.values(row)) expect(typeof value).not.toBe('object');
	});

	it('route: the key as it is; a feedback that failed says why; what is not known is left out', () => {
		expect(
			reviewRow({
				picked: ['sales'],
				labels: false,
				agreed: true,
				feedback: { value: 'correct', sent: false, error: 'The service is unavailable' },
				decision: 'ticket-routing',
				machineAnswer: ['sales'],
				reviewedAt: '2026-11-25T10:00:00.000Z',
			}),
		).toEqual({
			status: 'reviewed',
			answer: 'sales',
			agreed: true,
			feedback: 'correct',
			feedback_sent: false,
			feedback_error: 'The service is unavailable',
			decision: 'ticket-routing',
			machine_answer: 'sales',
			reviewed_at: '2026-11-25T10:00:00.000Z',
		});
	});
});

describe("Evaluate's outputs, as n8n computes them", () => {
	const evaluateNode = (options: INodeParameters): INodeParameters => ({
		resource: 'decision',
		operation: 'evaluate',
		evaluateOptions: options,
	});
	it('Report and Scored Items; Drift only with previous figures to compare', () => {
		expect(outputNames(evaluateNode({}))).toEqual(['Report', 'Scored Items']);
		expect(outputNames(evaluateNode({ compareVersion: 2 }))).toEqual(['Report', 'Scored Items']);
		expect(
			outputNames(evaluateNode({ previousFigures: "={{ $('Previous figures').first().json }}" })),
		).toEqual(['Report', 'Scored Items', 'Drift']);
	});
});

describe('the watch alerts on evidence (recent rows, a version change)', () => {
	const options = { falseAlarmRate: 0.01, threshold: 5 };

	it('alerts on a 10-point drop in 200 recent rows, with its interval and the p-value in words', () => {
		const evidence = recentOf({ successes: 160, n: 200 }, { successes: 3600, n: 4000 }, options);
		expect(evidence.alert).toBe(true);
		expect(evidence.points).toBe(-10);
		expect(evidence.low!).toBeLessThan(-10);
		expect(evidence.high!).toBeGreaterThan(-10);
		expect(evidence.high!).toBeLessThan(0);
		expect(evidence.p_value!).toBeLessThan(0.001);
		expect(evidence.words).toContain('95 % interval −16.1 to −4.9');
		expect(evidence.words).toContain('fewer than 1 in 10,000 quiet runs');
		expect(evidence.words).toContain('Alert:');
	});

	it('does not alert on raw points alone: 6 points down in 34 rows is chance', () => {
		// 28 of 34 (82.4 %) against 88.4 %: beyond the 5-point threshold, not beyond chance.
		const evidence = recentOf({ successes: 28, n: 34 }, { successes: 3536, n: 4000 }, options);
		expect(evidence.points!).toBeLessThan(-5);
		expect(evidence.p_value!).toBeGreaterThan(0.01);
		expect(evidence.alert).toBe(false);
		expect(evidence.too_few).toBe(true);
		expect(evidence.words).toMatch(/Too few rows to tell \(34 recent; about \d+ needed\)\./);
	});

	it('needs the threshold too: a significant 2-point drop on many rows is no alert', () => {
		const evidence = recentOf(
			{ successes: 8800, n: 10000 },
			{ successes: 45000, n: 50000 },
			options,
		);
		expect(evidence.p_value!).toBeLessThan(0.01);
		expect(evidence.alert).toBe(false);
		expect(evidence.words).toContain('under the 5-point threshold');
	});

	it("is exact: 26 of 34 against 90 % is Fisher's one-sided p 0.025, no alert at 1 %; 25 of 34 alerts", () => {
		// The normal curve without a correction said p 0.0086 (an alert): near 90 % the lower tail
		// is heavier than its (1.8 % of quiet weeks at 34 rows, before: bench/quality-year.ts).
		const evidence = recentOf({ successes: 26, n: 34 }, { successes: 306, n: 340 }, options);
		expect(evidence.p_value!).toBeCloseTo(0.02506, 5);
		expect(evidence.alert).toBe(false);
		expect(recentOf({ successes: 25, n: 34 }, { successes: 306, n: 340 }, options).alert).toBe(
			true,
		);
	});

	it('is one-sided: a rise never alerts', () => {
		const evidence = recentOf({ successes: 200, n: 200 }, { successes: 3000, n: 4000 }, options);
		expect(evidence.p_value!).toBeGreaterThan(0.99);
		expect(evidence.alert).toBe(false);
	});

	it('a version change: the same rows paired, McNemar', () => {
		const worse = versionEvidence({ n: 200, onlyOld: 30, onlyLive: 8, both: 150 }, options);
		expect(worse.alert).toBe(true);
		expect(worse.before.value).toBe(0.9);
		expect(worse.after.value).toBe(0.79);
		expect(worse.words).toContain('Same 200 rows on the live version');
		// All discordant rows one way: the interval still reaches beyond the estimate both sides.
		const oneWay = versionEvidence({ n: 40, onlyOld: 14, onlyLive: 0, both: 20 }, options);
		expect(oneWay.low!).toBeLessThan(oneWay.points!);
		expect(oneWay.high!).toBeGreaterThan(oneWay.points!);
		// Paired: few discordant rows tell a lot; the same rates on different rows would not.
		const same = versionEvidence({ n: 200, onlyOld: 3, onlyLive: 4, both: 180 }, options);
		expect(same.alert).toBe(false);
		expect(same.too_few).toBe(false);
		expect(same.low!).toBeGreaterThan(-5);
	});

	it('refuses a false-alarm rate outside (0, 50 %)', () => {
		expect(() =>
			recentOf({ successes: 1, n: 2 }, { successes: 1, n: 2 }, { falseAlarmRate: 0, threshold: 5 }),
		).toThrow(RangeError);
	});

	it('driftOf alerts on the evidence, not the raw points of the whole table', () => {
		const previous = rowOf([item('billing', 'ok', 'billing'), item('sales', 'ok', 'sales')], 1);
		const current = rowOf([item('billing', 'ok', 'billing'), item('sales', 'ok', 'billing')], 1);
		const quiet = recentOf({ successes: 28, n: 34 }, { successes: 3536, n: 4000 }, options);
		const drift = driftOf(readFiguresRow(previous), current, 5, 'Ticket routing', {
			evidence: [quiet],
		});
		// The drop the threshold is held to is the test's, as its words show it (not the table's 50).
		expect(drift.accuracy).toMatchObject({ points: -50 });
		expect(drift).toMatchObject({ accuracy_drop: 6.1, drop_of: 'recent', dropped: false });
		expect(quiet.words).toContain('accuracy down 6.1 points');
		expect(drift.evidence).toHaveLength(1);
		expect(drift.message).toContain('Too few rows to tell');
		expect(drift.message).not.toContain('Alert:');
		const loud = recentOf({ successes: 160, n: 200 }, { successes: 3600, n: 4000 }, options);
		expect(driftOf(readFiguresRow(previous), previous, 5, 'x', { evidence: [loud] }).dropped).toBe(
			true,
		);
	});
});

describe('pValueWords', () => {
	it('says how often chance alone shows it', () => {
		expect(pValueWords(0.004)).toBe(
			'chance alone shows a drop this large in about 1 in 250 quiet runs (p = 0.0040)',
		);
		expect(pValueWords(0.5)).toContain('often');
	});
});

describe("the report's drift section with evidence", () => {
	it('shows each test in words, the alerting one as the alert, every string escaped', () => {
		const previous = rowOf([item('billing', 'ok', 'billing')], 1);
		const loud = recentOf(
			{ successes: 160, n: 200 },
			{ successes: 3600, n: 4000 },
			{ falseAlarmRate: 0.01, threshold: 5 },
		);
		const html = driftSection(
			driftOf(readFiguresRow(previous), previous, 5, '<b>x</b>', { evidence: [loud] }),
		);
		expect(html).toContain('<p class="alert" role="alert">Recent rows: accuracy 80.0% on 200');
		expect(html).not.toContain('Accuracy dropped');
	});
});
