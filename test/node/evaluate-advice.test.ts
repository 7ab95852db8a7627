/**
 * Evaluate's advice and its warning on rows reviewed only from doubtful runs, through n8n-core's
 * engine against the sandbox (issue 37): the shipped labeled rows in the reviews table's columns
 * (examples/ticket-routing-labeled-reviews.csv) as a Data Table gives them back. The report's JSON
 * carries each piece of advice (the setting, where it is set, its value today: the decision's own
 * threshold) and `reviewed_from`; its words say the same.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { runNode } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
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

/** 20 stored rows, as the quality watch reads them back: the input as JSON text, the answer. */
const stored = (extra: IDataObject = {}): IDataObject[] =>
	makeLabeledSet()
		.slice(0, 20)
		.map((ticket) => ({ ...reviewRowOf(ticket), ...extra }));

async function watch(items: IDataObject[]) {
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
	return result.outputs[0][0].json;
}

describe('Evaluate says what to do next', () => {
	it('names each setting, where it is set and its value today, in words and in the JSON', async () => {
		const decision = await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing');
		const report = await watch(stored());
		const advice = report.advice as IDataObject[];
		expect(advice.map((each) => each.setting)).toEqual(['confidence_threshold', 'close_call_gap']);
		expect(advice[0]).toMatchObject({
			current: decision.confidence_threshold,
			action: expect.stringMatching(/^(keep|raise|lower)$/),
		});
		expect(advice[1]).toMatchObject({ where: 'Decide → Options → Close Call Gap', current: null });
		expect(report.confidence_threshold).toBe(decision.confidence_threshold);
		const today = `${decision.confidence_threshold.toFixed(2)} today`;
		for (const each of advice) expect(report.summary).toContain(each.words as string);
		expect(advice[0].words).toContain(today);
		// Rows that do not say which run a person reviewed: no warning.
		expect(report.reviewed_from).toEqual({ told: 0, doubtful: 0, doubtful_only: false });
		expect(report.summary).not.toContain('hard cases');
	});

	it('warns when every row was reviewed from a doubtful run: the hard cases, not all traffic', async () => {
		const report = await watch(stored({ machine_status: 'uncertain' }));
		expect(report.reviewed_from).toEqual({ told: 20, doubtful: 20, doubtful_only: true });
		expect(report.summary).toContain(
			'Every item was reviewed from a doubtful run (machine status uncertain or pending): the accuracy is that of the hard cases, not of all traffic.',
		);
	});
});
