/**
 * Decide's Close Call Gap, Max Decides per Execution and receipt (issue 22, items 2-4), through
 * n8n-core's engine against the sandbox.
 */
import type { IDataObject } from 'n8n-workflow';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';
import { type EngineCredentials, type NodeRunResult } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { closeCall, evaluationDecisionOf } from '../../src/answer';
import type { RunAnswer } from '../../src/contract';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import { decide, loadRoutes, pairedIndexes } from './helpers';

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

const INPUT = '={{ { "subject": $json.subject, "body": $json.body } }}';
const tickets: IDataObject[] = makeLabeledSet()
	.slice(0, 16)
	.map(({ subject, body }) => ({ subject, body }));
const used = async (key: string) => (await sb.usage(key)).used;

async function run(options: Parameters<typeof decide>[0]): Promise<NodeRunResult> {
	const result = await decide(options);
	leaks.push(result.serialised);
	return result;
}

const hintsOf = (result: NodeRunResult) =>
	(result.run.data.resultData.runData['Decision Service'][0].hints ?? []).map(
		(hint) => hint.message,
	);

describe('Close Call Gap', () => {
	it('sends runs whose two most likely answers are within the gap to Uncertain, with runner_up and gap', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await loadRoutes('ticket-routing', credentials);
		const plain = await run({
			slug: 'ticket-routing',
			items: tickets,
			credentials,
			// The full runs: their probabilities tell the gaps.
			extra: { jsonInput: INPUT, options: { simplify: false } },
		});
		const runs = plain.outputs[0].map((item) => item.json.decision as unknown as RunAnswer);
		const decision = evaluationDecisionOf(
			await sb.client(DEMO_KEYS.pro).getDecision('ticket-routing'),
		);
		// A gap that makes some runs close calls and leaves others clear.
		const gaps = runs
			.filter((each) => each.status === 'ok')
			.map((each) => {
				const verdict = closeCall(decision, each, 1);
				return verdict.verdict === 'close' ? verdict.gap : 1;
			})
			.sort((a, b) => a - b);
		const gap = gaps[Math.floor(gaps.length / 2)];
		const close = runs.map(
			(each) => each.status === 'ok' && closeCall(decision, each, gap).verdict === 'close',
		);
		expect(close.some(Boolean)).toBe(true);
		expect(
			close.filter((each, index) => !each && runs[index].status === 'ok').length,
		).toBeGreaterThan(0);

		const result = await run({
			slug: 'ticket-routing',
			routes,
			items: tickets,
			credentials,
			extra: { jsonInput: INPUT, options: { closeCallGap: gap } },
		});
		expect(result.error).toBeUndefined();
		const uncertain = result.outputs[4];
		const closeIndexes = close.flatMap((each, index) => (each ? [index] : []));
		const uncertainIndexes = runs.flatMap((each, index) =>
			each.status === 'uncertain' ? [index] : [],
		);
		expect(pairedIndexes([uncertain])[0]).toEqual(
			[...closeIndexes, ...uncertainIndexes].sort((a, b) => a - b),
		);
		for (const item of uncertain) {
			const index = (item.pairedItem as { item: number }).item;
			if (!close[index]) continue;
			const answer = item.json.decision as IDataObject;
			const verdict = closeCall(decision, runs[index], gap);
			if (verdict.verdict !== 'close') throw new Error('expected a close call');
			expect(answer).toMatchObject({
				status: 'ok',
				close_call: true,
				runner_up: verdict.runnerUp,
				gap: verdict.gap,
			});
			expect(answer.gap as number).toBeLessThanOrEqual(gap);
		}
		// The clear ones are on their option's output.
		for (const [index, each] of runs.entries()) {
			if (each.status !== 'ok' || close[index]) continue;
			const target = ['billing', 'technical', 'sales', 'account'].indexOf(each.choice!);
			expect(pairedIndexes(result.outputs)[target]).toContain(index);
		}
		expect(hintsOf(result).join('\n')).toMatch(
			new RegExp(`${closeIndexes.length} close calls? sent to Uncertain`),
		);
	});

	it('leaves a pending run pending whatever the gap', async () => {
		const credentials = credentialsFor(DEMO_KEYS.starter);
		const routes = await loadRoutes('ticket-routing', credentials);
		const result = await run({
			slug: 'ticket-routing',
			routes,
			items: [tickets[0], { subject: 'hello', body: 'hello' }],
			credentials,
			extra: { jsonInput: INPUT, options: { closeCallGap: 1 } },
		});
		expect(result.error).toBeUndefined();
		// Gap 1: every answered run is a close call; the pending one stays in Pending Review.
		expect(pairedIndexes(result.outputs)).toEqual([[], [], [], [], [0], [1], []]);
		const pending = result.outputs[5][0].json.decision as IDataObject;
		expect(pending.status).toBe('pending');
		expect(pending.close_call).toBeUndefined();
	});
});

describe('Max Decides per Execution', () => {
	it('fails the items beyond the limit, named, on the error output, and charges nothing for them', async () => {
		const key = DEMO_KEYS.pro;
		const before = await used(key);
		const result = await run({
			slug: 'ticket-routing',
			items: tickets.slice(0, 8),
			credentials: credentialsFor(key),
			onError: 'continueErrorOutput',
			extra: { jsonInput: INPUT, options: { maxDecides: 5, concurrency: 3 } },
		});
		expect(result.error).toBeUndefined();
		expect(await used(key)).toBe(before + 5);
		const [ok, errors] = result.outputs;
		expect(pairedIndexes([ok])[0]).toEqual([0, 1, 2, 3, 4]);
		expect(pairedIndexes([errors])[0]).toEqual([5, 6, 7]);
		errors.forEach((item) => {
			const error = item.json.error as IDataObject;
			expect(error.message).toBe(`Not sent: Max Decides per Execution (5) is reached`);
			expect(error.may_have_been_charged).toBe(false);
		});
		expect(hintsOf(result).join('\n')).toMatch(/3 items not sent: Max Decides per Execution/);
	});

	it('counts per execution: a re-run in the same execution continues the count, a new execution starts afresh', async () => {
		const key = DEMO_KEYS.pro;
		const options = { jsonInput: INPUT, options: { maxDecides: 3 } };
		const first = await run({
			slug: 'ticket-routing',
			items: tickets.slice(0, 3),
			credentials: credentialsFor(key),
			executionId: 'budget-execution-1',
			extra: options,
		});
		expect(first.error).toBeUndefined();
		const before = await used(key);
		const again = await run({
			slug: 'ticket-routing',
			items: tickets.slice(3, 5),
			credentials: credentialsFor(key),
			executionId: 'budget-execution-1',
			extra: options,
		});
		expect(again.error?.message).toBe('Not sent: Max Decides per Execution (3) is reached');
		expect(await used(key)).toBe(before);
		const fresh = await run({
			slug: 'ticket-routing',
			items: tickets.slice(3, 5),
			credentials: credentialsFor(key),
			executionId: 'budget-execution-2',
			extra: options,
		});
		expect(fresh.error).toBeUndefined();
		expect(await used(key)).toBe(before + 2);
	});

	it('under Retry On Fail, answers reused and requests refused without a charge do not count', async () => {
		// The first decide is refused once (409, not charged): the first try fails, n8n re-runs the node.
		await sb.control('POST', '/faults', {
			seed: 3,
			rules: [{ method: 'POST', path: '^/v1/decide/', status: 409, times: 1 }],
		});
		const key = DEMO_KEYS.pro;
		const before = await used(key);
		const result = await run({
			slug: 'ticket-routing',
			items: tickets.slice(0, 6),
			credentials: credentialsFor(key),
			retryOnFail: { maxTries: 3, waitBetweenTries: 0 },
			extra: { jsonInput: INPUT, options: { maxDecides: 6, concurrency: 1 } },
		});
		expect(result.error).toBeUndefined();
		expect(result.outputs[0]).toHaveLength(6);
		expect(await used(key)).toBe(before + 6);
	});
});

describe('receipt', () => {
	it('shows units charged, items per output and the status counts as execution hints', async () => {
		const credentials = credentialsFor(DEMO_KEYS.free);
		const routes = await loadRoutes('ticket-routing', credentials);
		const result = await run({
			slug: 'ticket-routing',
			routes,
			items: [...tickets.slice(0, 4), { subject: 'hello', body: 'hello' }],
			credentials,
			extra: { jsonInput: INPUT },
		});
		expect(result.error).toBeUndefined();
		const hints = hintsOf(result);
		expect(hints[0]).toBe('Charged 5 units.');
		const counts = result.outputs
			.map((items, index) => [
				['billing', 'technical', 'sales', 'account', 'Uncertain', 'Pending Review', 'Other'][index],
				items.length,
			])
			.filter(([, count]) => count)
			.map(([name, count]) => `${name} ${count}`);
		expect(hints[1]).toBe(`Items per output: ${counts.join(', ')}.`);
		// The vague "hello" at least is uncertain (Free has no human review); the count is the
		// Uncertain output's.
		const uncertain = result.outputs[4].length;
		expect(uncertain).toBeGreaterThanOrEqual(1);
		expect(hints[2]).toBe(
			`${uncertain} uncertain, 0 pending review, 0 answered by the fallback engine.`,
		);
	});

	test.each([
		['Route to Outputs', true],
		['Single Output', false],
	])(
		'%s with the error output on: a failed item is counted on Error, as the canvas shows it',
		async (_mode, routed) => {
			const credentials = credentialsFor(DEMO_KEYS.pro);
			const routes = routed ? await loadRoutes('ticket-routing', credentials) : undefined;
			const result = await run({
				slug: 'ticket-routing',
				routes,
				// The second item lacks its required subject: refused locally, nothing charged.
				items: [tickets[0], { body: 'no subject on this one' }],
				credentials,
				onError: 'continueErrorOutput',
				extra: { jsonInput: INPUT },
			});
			expect(result.error).toBeUndefined();
			const hints = hintsOf(result);
			// What n8n's canvas shows: the item counts on the outputs, the failed one on Error.
			const main = result.outputs.slice(0, -1).map((items) => items.length);
			const named = (routed ? [...TICKET_ROUTING_OUTPUTS] : ['Output'])
				.map((name, index) => [name, main[index]] as const)
				.filter(([, count]) => count)
				.map(([name, count]) => `${name} ${count}`);
			expect(result.outputs.at(-1)).toHaveLength(1);
			expect(hints[1]).toBe(`Items per output: ${[...named, 'Error 1'].join(', ')}.`);
			expect(hints[2]).toContain('1 failed');
		},
	);

	it('counts personal-data substitutions', async () => {
		const result = await run({
			slug: 'ticket-routing',
			items: [
				{
					subject: 'Invoice',
					body: 'Please refund me, write to anna@example.com or call +33 6 12 34 56 78.',
				},
			],
			credentials: credentialsFor(DEMO_KEYS.pro),
			extra: { jsonInput: INPUT, options: { simplify: false } },
		});
		expect(result.error).toBeUndefined();
		const redacted = (result.outputs[0][0].json.decision as IDataObject).pii_redacted as number;
		expect(redacted).toBeGreaterThan(0);
		expect(hintsOf(result).join('\n')).toContain(
			`Personal data: ${redacted} substitution${redacted === 1 ? '' : 's'}`,
		);
	});
});
