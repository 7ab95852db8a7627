/**
 * Decide's Audit Share (issue 37, point 5) in n8n-core's engine against the sandbox: the Outputs
 * list gains Audit when a share is set; a confident answer in the sample goes to its answer's
 * output AND a flat row to Audit; the same items on a re-run; nothing extra charged.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { type EngineCredentials, type NodeRunResult } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { AUDIT_QUEUE_COLUMNS, inAuditSample } from '../../src/audit';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';
import { decide, decideParameters, loadRoutes, pairedIndexes, refreshRoutes } from './helpers';

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

const tickets: IDataObject[] = makeLabeledSet()
	.slice(0, 40)
	.map(({ subject, body }) => ({ subject, body }));
const SHARE = 30;

async function run(options: Parameters<typeof decide>[0]): Promise<NodeRunResult> {
	const result = await decide(options);
	leaks.push(result.serialised);
	return result;
}
const hintsOf = (result: NodeRunResult) =>
	(result.run.data.resultData.runData['Decision Service'][0].hints ?? []).map(
		(hint) => hint.message,
	);
const answerOf = (item: INodeExecutionData) => item.json.decision as IDataObject;

/** A list saved before the share was set, refreshed with the share: Audit after a kept error place. */
async function routesWithAudit(credentials: EngineCredentials): Promise<INodeParameters> {
	const saved = await loadRoutes('ticket-routing', credentials);
	const parameters = decideParameters('ticket-routing', saved, {
		options: { auditShare: SHARE },
	});
	return await refreshRoutes(parameters, credentials);
}

describe('Audit Share', () => {
	it('adds Audit to the Outputs list when set, after a kept error position', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await routesWithAudit(credentials);
		const shown = (routes.schema as unknown as Array<{ id: string; display?: boolean }>)
			.filter((field) => field.display !== false)
			.map((field) => field.id);
		expect(shown.slice(TICKET_ROUTING_OUTPUTS.length)).toEqual([
			'__out_error_1__',
			'__out_audit__',
		]);
	});

	it('sends a copy of each confident answer in the sample to Audit; the item still goes to its answer; the same on a re-run; nothing extra charged', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await routesWithAudit(credentials);
		const auditIndex = TICKET_ROUTING_OUTPUTS.length + 1;
		const usedBefore = (await sb.usage(DEMO_KEYS.pro)).used;
		const options = {
			slug: 'ticket-routing',
			items: tickets,
			credentials,
			routes,
			extra: { options: { auditShare: SHARE } },
		};
		const first = await run(options);
		expect((await sb.usage(DEMO_KEYS.pro)).used - usedBefore).toBe(tickets.length);
		const second = await run(options);
		expect((await sb.usage(DEMO_KEYS.pro)).used - usedBefore).toBe(2 * tickets.length);

		const paired = pairedIndexes(first.outputs);
		const answerOutputs = first.outputs.slice(0, 4);
		const confident = answerOutputs.flatMap((items, output) =>
			items.map((item) => ({ item, index: paired[output][items.indexOf(item)] })),
		);
		// The test's own draw: the decision and the input as sent ({{ $json }}: subject, body).
		const expected = confident
			.filter(({ index }) => inAuditSample('ticket-routing', tickets[index], SHARE / 100))
			.map(({ index }) => index)
			.sort((a, b) => a - b);
		expect(expected.length).toBeGreaterThan(0);
		expect(expected.length).toBeLessThan(confident.length);
		expect([...paired[auditIndex]].sort((a, b) => a - b)).toEqual(expected);
		expect(pairedIndexes(second.outputs)[auditIndex]).toEqual(paired[auditIndex]);

		// Marked on the answer, on its answer's output; unmarked otherwise.
		for (const { item, index } of confident) {
			expect(answerOf(item).audit_share).toBe(expected.includes(index) ? SHARE / 100 : undefined);
		}
		for (const output of [4, 5, 6])
			for (const item of first.outputs[output]) expect(answerOf(item).audit_share).toBeUndefined();

		// The Audit rows: flat, the queue's columns, the item to review as JSON text.
		for (const [at, row] of first.outputs[auditIndex].entries()) {
			const index = paired[auditIndex][at];
			const onAnswer = confident.find((each) => each.index === index)!.item;
			expect(Object.keys(row.json)).toEqual(
				AUDIT_QUEUE_COLUMNS.map((column) => column.name).filter((name) => name in row.json),
			);
			for (const value of Object.values(row.json))
				expect(['string', 'number']).toContain(typeof value);
			expect(row.json).toMatchObject({
				decision: 'ticket-routing',
				run_id: answerOf(onAnswer).run_id,
				machine_answer: answerOf(onAnswer).choice,
				audit_share: SHARE / 100,
			});
			expect(JSON.parse(String(row.json.item))).toEqual({
				...tickets[index],
				decision: answerOf(onAnswer),
			});
		}
		expect(hintsOf(first)).toContain(
			`Audit Share 30 %: ${expected.length} confident answers also sent to Audit for a person to check.`,
		);
	});

	it('with no Audit output in the list, marks the answers and says to refresh the list', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const routes = await loadRoutes('ticket-routing', credentials);
		const result = await run({
			slug: 'ticket-routing',
			items: tickets,
			credentials,
			routes,
			extra: { options: { auditShare: SHARE } },
		});
		expect(result.outputs).toHaveLength(TICKET_ROUTING_OUTPUTS.length);
		const marked = result.outputs.flat().filter((item) => answerOf(item).audit_share === 0.3);
		expect(marked.length).toBeGreaterThan(0);
		expect(hintsOf(result).join('\n')).toContain(
			`Audit Share 30 % is set but the Outputs list has no Audit output: add it with Outputs → Options → Refresh Output List (${marked.length} answers marked audit_share, no copy sent).`,
		);
	});
});
