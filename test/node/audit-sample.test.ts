/**
 * Decide's Audit Share (issue 37, point 5) in n8n-core's engine against the sandbox: the Outputs
 * list gains Audit when a share is set; a confident answer in the sample goes to its answer's
 * output AND a flat row to Audit; the same items on a re-run; nothing extra charged.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { type EngineCredentials, type NodeRunResult } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { AUDIT_QUEUE_COLUMNS, inAuditSample } from '../../src/answer/audit';
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
			`Audit Share 30 % is set but there is no Audit output yet: add it with Refresh Output List, in the ⋮ menu beside Output names (${marked.length} answers marked audit_share, no copy sent).`,
		);
	});

	// Every decision type: only answers that went straight to an answer output are sampled (never
	// uncertain, pending, a close call or Other); one Audit row per item, a classify item on two
	// labels included; the row's answer in the one encoding.
	const MESSAGES = [
		'Limited time offer: use promo code SAVE20 for a discount!',
		'How do I reset my password?',
		'This is the worst service ever, I want a refund now.',
		'Buy cheap watches at www.example.com, click here',
		'Can someone explain the pricing tiers?',
		'You are all idiots and I hate this product.',
		'Thanks for the quick help yesterday!',
		'Is there a student discount? Also, the app crashes on start.',
	];
	const cases: Array<{ slug: string; items: IDataObject[] }> = [
		{ slug: 'ticket-routing', items: tickets },
		{
			slug: 'lead-scoring',
			items: Array.from({ length: 24 }, (_, at) => ({
				company: `Company ${at}`,
				role: at % 2 ? 'Head of Operations' : 'Student',
				message: MESSAGES[at % MESSAGES.length] + (at % 3 ? ' Our budget is approved.' : ''),
				employees: 10 + at * 37,
			})),
		},
		{
			slug: 'content-labels',
			items: Array.from({ length: 24 }, (_, at) => ({
				text: `${MESSAGES[at % MESSAGES.length]} (${at})`,
			})),
		},
	];
	it.each(cases)(
		'$slug: samples only answers sent straight to their output, one row each',
		async ({ slug, items }) => {
			const credentials = credentialsFor(DEMO_KEYS.pro);
			const fresh = decideParameters(slug, undefined, {
				outputMode: 'routeToOutputs',
				options: { auditShare: 50, closeCallGap: 0.05 },
			});
			const routes = await refreshRoutes(fresh, credentials);
			const ids = (routes.schema as unknown as Array<{ id: string; display?: boolean }>)
				.filter((field) => field.display !== false)
				.map((field) => field.id);
			// A list loaded with the share set: Audit right after Other, no kept error place.
			expect(ids.slice(-4)).toEqual([
				'__out_uncertain__',
				'__out_pending__',
				'__out_other__',
				'__out_audit__',
			]);
			const result = await run({
				slug,
				items,
				credentials,
				routes,
				extra: { options: { auditShare: 50, closeCallGap: 0.05 } },
			});
			const audit = result.outputs.length - 1;
			const fixedFrom = audit - 3;
			const paired = pairedIndexes(result.outputs);
			const straight = new Set(paired.slice(0, fixedFrom).flat());
			const doubtful = new Set(paired.slice(fixedFrom, audit).flat());
			const expected = [...straight]
				.filter((index) => !doubtful.has(index))
				.filter((index) => inAuditSample(slug, items[index], 0.5))
				.sort((a, b) => a - b);
			expect(expected.length).toBeGreaterThan(0);
			expect([...paired[audit]].sort((a, b) => a - b)).toEqual(expected);
			if (slug !== 'lead-scoring') expect(doubtful.size).toBeGreaterThan(0);
			expect(new Set(paired[audit]).size).toBe(paired[audit].length);
			for (const [at, row] of result.outputs[audit].entries()) {
				const index = paired[audit][at];
				const onAnswer = result.outputs
					.slice(0, fixedFrom)
					.flatMap((each, output) => each.filter((_, k) => paired[output][k] === index));
				const answer = answerOf(onAnswer[0]);
				expect(answer.status).toBe('ok');
				expect(answer.audit_share).toBe(0.5);
				expect(answer.close_call).toBeUndefined();
				const keys =
					slug === 'content-labels'
						? (answer.labels as string[]).join(',')
						: String(answer.choice ?? answer.level);
				expect(row.json.machine_answer).toBe(keys);
			}
			// Items on Uncertain, Pending Review or Other are never marked.
			for (const item of result.outputs.slice(fixedFrom, audit).flat())
				expect(answerOf(item).audit_share).toBeUndefined();
		},
	);
});
