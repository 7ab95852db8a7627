/**
 * Evaluate through n8n-core's engine against the sandbox (issue 22): 20 labeled rows of
 * examples/ticket-routing-labeled.csv, fresh (one unit each) and already decided (free); the
 * report's figures are evaluate() recomputed from the scored items; a bad expected answer fails
 * its item only, uncharged.
 */
import { readAnswer } from '../../src/answer/item-answer';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { outputNames, runNode, type EngineCredentials } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { evaluate, forMachines, type ScoredItem } from '../../src/evaluate';
import { evaluationDecisionOf } from '../../src/answer';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import { decide, locator } from './helpers';

let sb: TestSandbox;
const leaks: string[] = [];
const credentialsFor = (apiKey: string): EngineCredentials => ({ apiKey, baseUrl: sb.baseUrl });

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

/** 20 rows of the labeled set, as a Read/Extract node would give them (the CSV's columns). */
const rows: IDataObject[] = makeLabeledSet()
	.slice(0, 20)
	.map(({ id, subject, body, expected }) => ({ id, subject, body, expected }));

const INPUT = '={{ { "subject": $json.subject, "body": $json.body } }}';

function evaluateParameters(extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'decision',
		operation: 'evaluate',
		decision: locator('ticket-routing'),
		inputMode: 'json',
		jsonInput: INPUT,
		expected: '={{ $json.expected }}',
		targetAccuracy: 0.9,
		evaluateOptions: {},
		...extra,
	};
}

async function runEvaluate(
	items: IDataObject[],
	extra: INodeParameters = {},
	onError?: 'continueErrorOutput',
) {
	const result = await runNode({
		parameters: evaluateParameters(extra),
		items,
		credentials: credentialsFor(DEMO_KEYS.pro),
		...(onError ? { onError } : {}),
	});
	leaks.push(result.serialised);
	return result;
}

const used = async () => (await sb.usage(DEMO_KEYS.pro)).used;

/** evaluate() again, from the scored items alone (the run each carries under `decision`). */
async function recompute(scored: INodeExecutionData[]) {
	const decision = await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing');
	const items: ScoredItem[] = scored.map((item) => ({
		expected: item.json.expected,
		run: readAnswer(item.json.decision, decision.type)!,
		charged: item.json.charged as number,
	}));
	// The report's JSON is the metrics for machines: snake_case, rounded (src/evaluate/summary.ts).
	return forMachines<{ items: Array<{ correct: boolean | null }> }>(
		evaluate(evaluationDecisionOf(decision), items, {
			targetAccuracy: 0.9,
			confidenceThreshold: decision.confidence_threshold,
		}).metrics,
	);
}

function figures(metrics: IDataObject) {
	const { items: _items, ...rest } = metrics as IDataObject & { items: unknown };
	void _items;
	return rest;
}

describe('Evaluate', () => {
	it('has two outputs, Report and Scored Items', () => {
		expect(outputNames(evaluateParameters())).toEqual(['Report', 'Scored Items']);
	});

	it('decides fresh items once each, and the report equals evaluate() recomputed from the scored items', async () => {
		const before = await used();
		const result = await runEvaluate(rows);
		expect(result.error).toBeUndefined();
		expect(await used()).toBe(before + 20);
		const [reportItems, scored] = result.outputs;
		expect(reportItems).toHaveLength(1);
		expect(scored).toHaveLength(20);
		const report = reportItems[0];
		expect(report.binary?.data).toMatchObject({
			fileName: 'evaluation-report.html',
			mimeType: 'text/html',
		});
		const html = Buffer.from(report.binary!.data.data, 'base64').toString('utf8');
		expect(html).toContain('<html');
		expect(report.json).toMatchObject({
			type: 'route',
			total: 20,
			units: { charged: 20, fresh: 20, reused: 0 },
		});
		for (const [index, item] of scored.entries()) {
			expect(item.pairedItem).toEqual({ item: index });
			expect(typeof item.json.right).toBe('boolean');
			expect(item.json.expected).toBe(rows[index].expected);
			expect(item.json.charged).toBe(1);
			expect((item.json.decision as IDataObject).run_id).toEqual(expect.any(String));
		}
		const again = await recompute(scored);
		expect(figures(report.json)).toMatchObject(figures(again as unknown as IDataObject));
		// The outcomes name the input items.
		expect((report.json.items as IDataObject[]).map((outcome) => outcome.index)).toEqual(
			rows.map((_, index) => index),
		);
		// right/predicted on each scored item are the report's outcomes.
		expect(scored.map((item) => item.json.right)).toEqual(
			again.items.map((outcome) => outcome.correct === true),
		);
		const hints = result.run.data.resultData.runData['Decision Service'][0].hints ?? [];
		expect(hints.map((hint) => hint.message).join('\n')).toMatch(/charged 20 units/i);
	});

	it('scores items that already carry a run from an earlier Decide for free (charged 0)', async () => {
		const decided = await decide({
			slug: 'ticket-routing',
			items: rows,
			credentials: credentialsFor(DEMO_KEYS.pro),
			extra: { jsonInput: INPUT },
		});
		expect(decided.error).toBeUndefined();
		const carried = decided.outputs[0].map((item) => item.json);
		expect(carried).toHaveLength(20);
		const before = await used();
		const result = await runEvaluate(carried);
		expect(result.error).toBeUndefined();
		expect(await used()).toBe(before);
		const [[report], scored] = result.outputs;
		expect(report.json.units).toEqual({ charged: 0, fresh: 0, reused: 20 });
		// What Decide paid is said beside what this node charged.
		expect(report.json.summary).toContain(
			'Charged 0 units here: 0 decided on the live version. The 20 runs the items carried were paid upstream (20 units',
		);
		expect(scored.every((item) => item.json.charged === 0)).toBe(true);
		const again = await recompute(scored);
		expect(figures(report.json)).toMatchObject(figures(again as unknown as IDataObject));
	});

	it('fails an item whose expected key the decision does not know, names it, and charges nothing for it', async () => {
		const items = rows.slice(0, 5).map((row) => ({ ...row }));
		items[2].expected = 'refunds';
		const before = await used();
		const result = await runEvaluate(items, {}, 'continueErrorOutput');
		expect(result.error).toBeUndefined();
		expect(await used()).toBe(before + 4);
		const [[report], scored, errors] = result.outputs;
		expect(report.json.total).toBe(4);
		expect(report.json.failed_items).toEqual([2]);
		expect(scored).toHaveLength(4);
		expect(errors).toHaveLength(1);
		expect(errors[0].pairedItem).toEqual({ item: 2 });
		expect((errors[0].json.error as IDataObject).message).toMatch(
			/^The expected option "refunds" is not one of the decision's options/,
		);
		expect((errors[0].json.error as IDataObject).may_have_been_charged).toBe(false);
	});

	it('never stops at a bad row: without the error output, the report names every one with what to fix', async () => {
		const items: IDataObject[] = rows.slice(0, 6).map((row, id) => ({ ...row, id: id + 100 }));
		items[1].expected = 'Billing';
		items[3].expected = '';
		items[4].expected = 'constructor';
		const before = await used();
		const result = await runEvaluate(items);
		expect(result.error).toBeUndefined();
		// Only the good rows were sent.
		expect(await used()).toBe(before + 3);
		const [[report], scored] = result.outputs;
		expect(report.json.total).toBe(3);
		expect(report.json.partial).toBe(false);
		expect((report.json.bad_rows as IDataObject[]).map((row) => [row.item, row.row])).toEqual([
			[1, 101],
			[3, 103],
			[4, 104],
		]);
		const [billing, missing, constructorKey] = report.json.bad_rows as IDataObject[];
		expect(billing.problem).toMatch(/^The expected option "Billing" is not one of/);
		expect(missing.problem).toBe('No expected answer: the item (the row) has none');
		expect(missing.fix).toMatch(/^Give the row its answer, one option of the decision \("billing"/);
		expect(constructorKey.problem).toMatch(/^The expected option "constructor" is not one of/);
		// Scored Items: one item per input item, each bad one with its error.
		expect(scored).toHaveLength(6);
		expect(scored.filter((item) => item.json.error).map((item) => item.pairedItem)).toEqual([
			{ item: 1 },
			{ item: 3 },
			{ item: 4 },
		]);
		const message = String(report.json.message);
		expect(message).toContain('3 rows not scored, to fix:');
		expect(message).toContain('• Item 3 (row 103): No expected answer');
	});

	it('classify: a JSON-text list is read as the list it is', async () => {
		const texts = [
			{
				text: 'Limited time offer: use promo code SAVE20 for a discount!',
				expected: '["spam","promotion"]',
			},
			{ text: 'How do I reset my password?', expected: '["question"]' },
		];
		const result = await runEvaluate(texts, {
			decision: locator('content-labels'),
			jsonInput: '={{ { "text": $json.text } }}',
		});
		expect(result.error).toBeUndefined();
		const [[report], scored] = result.outputs;
		expect(report.json.bad_rows).toEqual([]);
		expect(scored.map((item) => item.json.expected)).toEqual([['spam', 'promotion'], ['question']]);
	});

	it('a review stored twice (one row per picked label) is decided, charged and counted once', async () => {
		const review = (row: IDataObject, runId: string) => ({
			...row,
			execution_id: '41',
			run_id: runId,
		});
		const items = [
			{ ...rows[0], review_id: '40/run_a' },
			review(rows[1], 'run_b'),
			{ ...rows[0], review_id: '40/run_a' },
			review(rows[1], 'run_b'),
			rows[2],
		];
		const before = await used();
		const result = await runEvaluate(items);
		expect(await used()).toBe(before + 3);
		const [[report], scored] = result.outputs;
		expect(report.json.total).toBe(3);
		expect(report.json.units).toEqual({ charged: 3, fresh: 3, reused: 0 });
		expect(report.json.repeated_runs).toEqual([2, 3]);
		expect(scored).toHaveLength(5);
		expect(scored.map((item) => item.json.counted_on_item)).toEqual([
			undefined,
			undefined,
			0,
			1,
			undefined,
		]);
		expect(scored[2].json.charged).toBe(0);
		expect(scored[2].json.decision).toEqual(scored[0].json.decision);
	});

	it('compares with a pinned version: decides each item on it too and lists where they differ', async () => {
		const before = await used();
		const result = await runEvaluate(rows.slice(0, 4), {
			evaluateOptions: { compareVersion: 1 },
		});
		expect(result.error).toBeUndefined();
		expect(await used()).toBe(before + 8);
		// Every unit the report states is one the service counted: both versions' decides.
		const report = result.outputs[0][0].json;
		expect(report.units).toEqual({ charged: 8, fresh: 4, reused: 0, compared: 4 });
		expect(report.summary).toContain(
			'Charged 8 units here: 4 decided on the live version, 4 on version 1.',
		);
		expect((report.figures as IDataObject).units_charged).toBe(8);
		expect(report.message).toContain('Cost: 8 units.');
		const comparison = result.outputs[0][0].json.comparison as IDataObject;
		expect(comparison).toMatchObject({ version: 1, compared: 4, failed: 0 });
		expect(comparison.disagreements).toBe((comparison.items as unknown[]).length);
	});

	it('sends the expected answers as feedback on their runs when asked', async () => {
		const result = await runEvaluate(rows.slice(0, 3), {
			evaluateOptions: { sendFeedback: true },
		});
		expect(result.error).toBeUndefined();
		expect(result.outputs[0][0].json.feedback).toEqual({ sent: 3, failed: 0 });
		expect(result.outputs[1].every((item) => item.json.feedback_sent === true)).toBe(true);
	});

	it('Max Decides per Execution without the error output: a partial report, never a baseline nor compared', async () => {
		const baseline = (await runEvaluate(rows.slice(0, 5))).outputs[0][0].json
			.figures as IDataObject;
		const before = await used();
		const result = await runEvaluate(rows.slice(0, 5), {
			evaluateOptions: { maxDecides: 2, previousFigures: { ...baseline, accuracy: 1 } },
		});
		expect(result.error).toBeUndefined();
		expect(await used()).toBe(before + 2);
		const [[report], scored, drift] = result.outputs;
		expect(report.json.partial).toBe(true);
		expect((report.json.not_scored as IDataObject[]).map((each) => each.item)).toEqual([2, 3, 4]);
		expect(report.json.figures).toMatchObject({ partial: true, not_scored: 3, units_charged: 2 });
		expect(report.json.drift).toBeUndefined();
		expect(drift).toEqual([]);
		expect(String(report.json.message)).toContain(
			'Partial run: 3 rows not scored (Not sent: Max Decides per Execution (2) is reached)',
		);
		expect(scored).toHaveLength(5);
	});

	it('Max Decides per Execution: the items beyond it fail unsent and uncharged', async () => {
		const before = await used();
		const result = await runEvaluate(
			rows.slice(0, 5),
			{ evaluateOptions: { maxDecides: 3 } },
			'continueErrorOutput',
		);
		expect(await used()).toBe(before + 3);
		const [[report], scored, failed] = result.outputs;
		expect(report.json.units).toMatchObject({ charged: 3, fresh: 3 });
		// With the error output wired too, the report says it is partial.
		expect(report.json.partial).toBe(true);
		expect(report.json.figures).toMatchObject({ partial: true, not_scored: 2 });
		expect(scored).toHaveLength(3);
		expect(failed.map((item) => JSON.stringify(item.json.error))).toEqual([
			expect.stringContaining('Not sent: Max Decides per Execution (3) is reached'),
			expect.stringContaining('Not sent: Max Decides per Execution (3) is reached'),
		]);
	});

	it('with previous figures: the report says what changed; raw points alone never alert', async () => {
		const first = await runEvaluate(rows.slice(0, 10));
		const baseline = first.outputs[0][0].json.figures as IDataObject;
		expect(first.outputs).toHaveLength(2);
		// The same figures as before, but 20 points more accurate: the run now is 20 points down,
		// on 10 rows none of them recent (no reviewed_at): nothing to tell a drop from chance.
		const better = { ...baseline, accuracy: (baseline.accuracy as number) + 0.2 };
		const drop =
			Math.round(((better.accuracy as number) - (baseline.accuracy as number)) * 1000) / 10;
		const result = await runEvaluate(rows.slice(0, 10), {
			evaluateOptions: { previousFigures: better, dropThreshold: drop - 1 },
		});
		expect(result.error).toBeUndefined();
		const [[report], , drift] = result.outputs;
		// The whole table's change is said; the drop an alert is held to is a test's, and no
		// test could measure one here (no recent row): none.
		expect(report.json.drift).toMatchObject({
			accuracy: { before: better.accuracy, after: baseline.accuracy, points: -drop },
			accuracy_drop: null,
			dropped: false,
		});
		expect(report.json.message).toContain(`(−${drop.toFixed(1)} points`);
		expect(report.json.message).toMatch(/Too few rows to tell \(0 recent; about \d+ needed\)/);
		expect(drift).toEqual([]);
		// No previous figures yet (the Data Table's empty item): the baseline, Drift empty.
		const empty = await runEvaluate(rows.slice(0, 2), { evaluateOptions: { previousFigures: {} } });
		expect(empty.outputs[2]).toEqual([]);
		expect(empty.outputs[0][0].json.message).toContain('this run is the baseline');
	});
});

describe('Evaluate as a watch over stored review rows', () => {
	const DAY = 24 * 60 * 60 * 1000;
	const liveVersion = async () =>
		(await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing')).live_version as number;
	/** A stored review row (src/answer/labeled-row.ts): what the machine said on `version`. */
	const stored = (
		at: number,
		version: number,
		right: boolean,
		daysAgo: number,
		status = 'ok',
	): IDataObject => {
		const row = rows[at % rows.length];
		const wrong = row.expected === 'billing' ? 'sales' : 'billing';
		return {
			...row,
			review_id: `exec/run_${at}`,
			run_id: `run_${at}`,
			machine_status: status,
			machine_answer: right ? row.expected : wrong,
			confidence: status === 'ok' ? 0.9 : 0.5,
			version,
			reviewed_at: new Date(Date.now() - daysAgo * DAY).toISOString(),
		};
	};
	const watchOptions = (extra: IDataObject = {}): INodeParameters => ({
		evaluateOptions: { previousFigures: [], ...extra },
	});

	it('rows stored on the live version are scored from their answer: nothing decided, nothing charged', async () => {
		const version = await liveVersion();
		const before = await used();
		const items = Array.from({ length: 12 }, (_, at) => stored(at, version, at % 4 !== 0, 20));
		const result = await runEvaluate(items, watchOptions());
		expect(result.error).toBeUndefined();
		expect(await used()).toBe(before);
		const [[report]] = result.outputs;
		expect(report.json.figures).toMatchObject({ total: 12, right: 9, units_charged: 0 });
		expect(report.json.message).toContain('12 stored rows scored from the answer version');
		expect(report.json.message).toContain('Cost: 0 units here');
	});

	it('alerts on a drop in the recent rows beyond chance, with its interval and p-value', async () => {
		const version = await liveVersion();
		// 300 earlier rows 90 % right, 100 recent rows 60 % right.
		const earlier = Array.from({ length: 300 }, (_, at) => stored(at, version, at % 10 !== 0, 30));
		const recent = Array.from({ length: 100 }, (_, at) =>
			stored(300 + at, version, at % 10 < 6, 2),
		);
		const result = await runEvaluate([...earlier, ...recent], watchOptions());
		const [[report], , drift] = result.outputs;
		const evidence = (report.json.drift as IDataObject).evidence as IDataObject[];
		expect(evidence[0]).toMatchObject({ kind: 'recent', points: -30, rows: 100, alert: true });
		expect(report.json.message).toContain('95 % interval');
		expect(report.json.message).toContain('quiet runs');
		expect(drift).toHaveLength(1);
	});

	it('a few recent rows down by more than the threshold: too few rows to tell, no alert', async () => {
		const version = await liveVersion();
		const earlier = Array.from({ length: 200 }, (_, at) => stored(at, version, at % 10 !== 0, 30));
		// 20 recent rows, 80 % right: 10 points down, within chance.
		const recent = Array.from({ length: 20 }, (_, at) =>
			stored(200 + at, version, at % 5 !== 0, 1),
		);
		const result = await runEvaluate([...earlier, ...recent], watchOptions());
		const [[report], , drift] = result.outputs;
		expect(drift).toEqual([]);
		expect(report.json.message).toMatch(/Too few rows to tell \(20 recent; about \d+ needed\)/);
	});

	it('a version change decides only the sample, compares it paired, and states what it charged', async () => {
		const version = await liveVersion();
		const items = Array.from({ length: 15 }, (_, at) => stored(at, version + 1, true, 15 - at));
		const before = await used();
		const result = await runEvaluate(items, watchOptions({ versionChangeSample: 5 }));
		expect(result.error).toBeUndefined();
		const grown = (await used()) - before;
		expect(grown).toBe(5);
		const [[report], scored] = result.outputs;
		expect((report.json.units as IDataObject).charged).toBe(grown);
		// The 10 rows left out are said in the figures row (not_scored, the run still full).
		expect(report.json.figures).toMatchObject({
			total: 5,
			units_charged: grown,
			not_scored: 10,
			partial: false,
		});
		expect(report.json.message).toContain(`Cost: ${grown} units.`);
		expect(report.json.message).toContain(
			`5 rows decided on version ${version}, the most recent of each kind in turn, and paired`,
		);
		expect(report.json.message).toContain(
			`10 rows answered by version ${version + 1} left out of these figures`,
		);
		// The most recent five (reviewed 1 to 5 days ago: the last five rows) were decided.
		expect(scored.map((item) => item.json.charged)).toEqual([...Array(10).fill(0), 1, 1, 1, 1, 1]);
		expect(scored.slice(0, 10).every((item) => item.json.scored === false)).toBe(true);
		// The new answers in the row's own columns, for the Upsert on review_id to keep.
		expect(scored[14].json.stored_row).toMatchObject({
			review_id: 'exec/run_14',
			version,
			machine_status: expect.any(String),
			run_id: expect.stringMatching(/.+/),
		});
		expect(scored[14].json.stored_row).not.toMatchObject({ run_id: 'run_14' });
		expect(scored[0].json.stored_row).toBeUndefined();
		const evidence = (report.json.drift as IDataObject).evidence as IDataObject[];
		expect(evidence.map((each) => each.kind)).toContain('version');
		expect(evidence.find((each) => each.kind === 'version')).toMatchObject({ rows: 5 });
	});

	it('doubtful rows are never sent again; the message says what their guesses were worth', async () => {
		const version = await liveVersion();
		const items = Array.from({ length: 4 }, (_, at) => stored(at, version, at !== 0, 3, 'pending'));
		const before = await used();
		const result = await runEvaluate(items, watchOptions());
		expect(await used()).toBe(before);
		const message = String(result.outputs[0][0].json.message);
		expect(message).toContain(
			"Doubtful: 4 of 4 rows were left to a person; the machine's guess right on 3 of 4 (75%)",
		);
		expect(message).not.toContain('0 of 0 answered');
	});
});
