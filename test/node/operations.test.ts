/** Every operation other than Decide, and the editor's load methods, through n8n-core against the sandbox. */
import type { IDataObject, INodeParameters, ResourceMapperField } from 'n8n-workflow';
import { forReview } from '../../nodes/DecisionService/outputs/list';
import * as listSearch from '../../nodes/DecisionService/methods/list-search';
import * as loadOptions from '../../nodes/DecisionService/methods/load-options';
import * as resourceMapping from '../../nodes/DecisionService/methods/resource-mapping';
import { loadOptionsContext, runNode, type EngineCredentials } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { decideParameters, loadRoutes, locator } from './helpers';

let sb: TestSandbox;
const transcripts: string[] = [];
const credentialsFor = (apiKey: string): EngineCredentials => ({ apiKey, baseUrl: sb.baseUrl });

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
	for (const key of Object.values(DEMO_KEYS)) expect(transcripts.join('\n')).not.toContain(key);
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

async function run(
	parameters: INodeParameters,
	key: string = DEMO_KEYS.pro,
	items: IDataObject[] = [{}],
) {
	const result = await runNode({ parameters, items, credentials: credentialsFor(key) });
	transcripts.push(result.serialised);
	expect(result.error).toBeUndefined();
	expect(result.outputs).toHaveLength(1);
	return result.outputs[0];
}

describe('Decision → Create', () => {
	it('from a template, with the template locale', async () => {
		const [item] = await run(
			{
				resource: 'decision',
				operation: 'create',
				createFrom: 'template',
				locale: 'fr',
				template: 'support-ticket-routing',
				additionalFields: { customName: 'Tri FR', summary: 'Tickets en français' },
			},
			DEMO_KEYS.starter,
		);
		expect(item.json).toMatchObject({
			created: true,
			slug: 'tri-fr',
			status: 'live',
			live_version: 1,
		});
		expect((await sb.client(DEMO_KEYS.starter).getDecision('tri-fr')).description).toBe(
			'Tickets en français',
		);
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	it('from a description (local drafter on)', async () => {
		await sb.control('POST', '/config', { drafter: true });
		const [item] = await run({
			resource: 'decision',
			operation: 'create',
			createFrom: 'description',
			describe: 'Classify reviews as positive, negative or neutral',
			additionalFields: { customName: 'Review Mood', imposedType: 'classify' },
		});
		expect(item.json).toMatchObject({ created: true, slug: 'review-mood', type: 'classify' });
		expect(item.json.labels).toEqual(expect.arrayContaining(['positive', 'negative', 'neutral']));
	});

	it('from a definition with listed labels, thresholds and context fields, then decides on it', async () => {
		const [item] = await run({
			resource: 'decision',
			operation: 'create',
			createFrom: 'definition',
			decisionName: 'Invoice Checks',
			decisionType: 'classify',
			instructions: 'Which problems does this invoice have?',
			itemsMode: 'list',
			itemsList: {
				item: [
					{
						key: 'Missing VAT',
						description: 'No VAT number, VAT id or tax number on the invoice',
						threshold: 0.4,
					},
					{ key: 'Late', description: 'Overdue, late, past due date payment', threshold: 0.5 },
				],
			},
			contextFields: {
				field: [
					{ name: 'text', type: 'string', required: true, pii: false, description: 'Invoice text' },
					{ name: 'iban', type: 'string', required: false, pii: true, description: '' },
				],
			},
			additionalFields: { contextDescription: 'An invoice', slug: 'invoice-checks' },
		});
		expect(item.json).toMatchObject({
			created: true,
			slug: 'invoice-checks',
			labels: ['missing-vat', 'late'],
		});
		const decision = await sb.client(DEMO_KEYS.pro).getDecision('invoice-checks');
		expect(decision.context.fields).toEqual([
			expect.objectContaining({ name: 'text', type: 'string', required: true, pii: false }),
			expect.objectContaining({ name: 'iban', required: false, pii: true }),
		]);
		const decided = await run(
			decideParameters('invoice-checks', undefined, {
				inputMode: 'text',
				text: 'This invoice is overdue and past due date',
				options: { simplify: false },
			}),
		);
		expect((decided[0].json.decision as IDataObject).decision).toBe('invoice-checks');
	});

	it('from a definition with options as a line-separated text, as a draft', async () => {
		const [item] = await run({
			resource: 'decision',
			operation: 'create',
			createFrom: 'definition',
			decisionName: 'Lines',
			decisionType: 'route',
			instructions: 'Which one?',
			itemsMode: 'text',
			itemsText: 'Billing Issue\nTech Support\nSales, Partners',
			additionalFields: { publish: false },
		});
		expect(item.json).toMatchObject({
			created: true,
			status: 'draft',
			live_version: null,
			options: ['billing-issue', 'tech-support', 'sales-partners'],
		});
	});

	it('levels given as comma text become a score decision, lowest first', async () => {
		const [item] = await run({
			resource: 'decision',
			operation: 'create',
			createFrom: 'definition',
			decisionName: 'Urgency',
			decisionType: 'score',
			instructions: 'How urgent?',
			itemsMode: 'text',
			itemsText: 'Low, Medium, High',
		});
		expect(item.json).toMatchObject({
			created: true,
			type: 'score',
			levels: ['Low', 'Medium', 'High'],
		});
	});
});

describe('Decision → Get and Get Many, Template → Get Many', () => {
	it('gets one decision by slug', async () => {
		const [item] = await run({
			resource: 'decision',
			operation: 'get',
			decision: { __rl: true, mode: 'slug', value: 'lead-scoring' },
		});
		expect(item.json).toMatchObject({
			slug: 'lead-scoring',
			type: 'score',
			levels: ['cold', 'warm', 'hot', 'sales-ready'],
		});
	});

	it('lists decisions with a limit, or all', async () => {
		expect(
			await run({ resource: 'decision', operation: 'getAll', returnAll: false, limit: 2 }),
		).toHaveLength(2);
		const all = await run({ resource: 'decision', operation: 'getAll', returnAll: true });
		expect(all.map((item) => item.json.slug)).toEqual([
			'content-labels',
			'lead-scoring',
			'ticket-routing',
		]);
	});

	it('lists templates in French', async () => {
		const templates = await run({
			resource: 'template',
			operation: 'getAll',
			locale: 'fr',
			returnAll: true,
		});
		expect(templates.length).toBeGreaterThanOrEqual(6);
		expect(templates.every((item) => item.json.locale === 'fr')).toBe(true);
	});
});

describe('Run → Send Feedback', () => {
	it('sends feedback on the run a Decide node added to the item', async () => {
		const decided = await run(decideParameters('ticket-routing', undefined), DEMO_KEYS.pro, [
			{ subject: 'Refund', body: 'I was charged twice on my invoice, refund please' },
		]);
		const [feedback] = await run(
			{
				resource: 'run',
				operation: 'sendFeedback',
				runId: '={{ $json.decision.run_id }}',
				feedback: 'incorrect',
				note: 'was technical',
			},
			DEMO_KEYS.pro,
			[decided[0].json],
		);
		const runId = (decided[0].json.decision as IDataObject).run_id;
		expect(feedback.json).toEqual({ run_id: runId, feedback: 'incorrect', note: 'was technical' });
		const stored = await sb.control<{ feedback?: unknown }>(
			'GET',
			`/runs/${runId}?key=${DEMO_KEYS.pro}`,
		);
		expect(JSON.stringify(stored.feedback)).toContain('incorrect');
	});

	it("takes a review's answer as it is: labels joined with ',', none as 'no label'", async () => {
		const decided = await run(decideParameters('ticket-routing', undefined), DEMO_KEYS.pro, [
			{ subject: 'Refund', body: 'I was charged twice on my invoice, refund please' },
			{ subject: 'Crash', body: 'The app crashes when I open settings' },
		]);
		const answers = [['billing', 'account'], []];
		const sent = await run(
			{
				resource: 'run',
				operation: 'sendFeedback',
				runId: '={{ $json.decision.run_id }}',
				// What Review writes on a classify item; here set on each item by hand.
				feedback: '={{ $json.review.answer }}',
			},
			DEMO_KEYS.pro,
			decided.map((item, index) => ({ ...item.json, review: { answer: answers[index] } })),
		);
		expect(sent.map((item) => item.json.feedback)).toEqual(['billing,account', 'no label']);
	});
});

describe('editor methods', () => {
	it('searches decisions by name or slug', async () => {
		const context = loadOptionsContext(
			{ resource: 'decision', operation: 'decide' },
			credentialsFor(DEMO_KEYS.pro),
		);
		const all = await listSearch.searchDecisions.call(context);
		expect(all.results.map((result) => result.value)).toEqual([
			'content-labels',
			'lead-scoring',
			'ticket-routing',
		]);
		const found = await listSearch.searchDecisions.call(context, 'lead');
		expect(found.results).toEqual([
			{ name: expect.stringContaining('(score)'), value: 'lead-scoring' },
		]);
	});

	it('builds the input form from the context fields, marking personal data', async () => {
		const context = loadOptionsContext(
			{ resource: 'decision', operation: 'decide', decision: locator('ticket-routing') },
			credentialsFor(DEMO_KEYS.pro),
		);
		const { fields } = await resourceMapping.getContextFields.call(context);
		expect(fields).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					id: 'subject',
					displayName: 'subject',
					required: true,
					type: 'string',
				}),
				expect.objectContaining({
					id: 'customer_email',
					displayName: 'customer_email (personal data)',
					required: false,
				}),
			]),
		);
	});

	it('maps fields from the form into the decide input', async () => {
		const credentials = credentialsFor(DEMO_KEYS.pro);
		const context = loadOptionsContext(
			{ resource: 'decision', operation: 'decide', decision: locator('ticket-routing') },
			credentials,
		);
		const { fields } = await resourceMapping.getContextFields.call(context);
		const result = await runNode({
			parameters: decideParameters('ticket-routing', undefined, {
				inputMode: 'mapFields',
				inputFields: {
					mappingMode: 'defineBelow',
					value: { subject: '={{ $json.title }}', body: '={{ $json.text }}' },
					matchingColumns: [],
					schema: fields,
				} as unknown as INodeParameters,
			}),
			items: [
				{ title: 'Refund', text: 'I was charged twice on my invoice, refund the payment please' },
			],
			credentials,
		});
		transcripts.push(result.serialised);
		expect((result.outputs[0][0].json.decision as IDataObject).choice).toBe('billing');
	});

	it('lists templates for the chosen locale', async () => {
		const context = loadOptionsContext(
			{ resource: 'decision', operation: 'create', locale: 'fr' },
			credentialsFor(DEMO_KEYS.pro),
		);
		const options = await loadOptions.getTemplates.call(context);
		expect(options.length).toBeGreaterThanOrEqual(6);
		expect(options.map((option) => option.value)).toContain('support-ticket-routing');
	});
});

describe('Decision → Review (before anyone opens the page)', () => {
	const reviewParameters = async (extra: INodeParameters = {}): Promise<INodeParameters> => ({
		resource: 'decision',
		operation: 'review',
		decision: locator('ticket-routing'),
		// The list as the Review node's panel loads it: Decide's, its fixed rows hidden.
		routes: (await loadRoutes('ticket-routing', credentialsFor(DEMO_KEYS.pro)).then((routes) => ({
			...routes,
			schema: forReview(routes.schema as unknown as ResourceMapperField[]),
		}))) as unknown as INodeParameters,
		timeLimit: 2,
		timeLimitUnit: 'hours',
		options: {},
		...extra,
	});

	it('refuses more items than one page takes, before waiting, naming what to do', async () => {
		const result = await runNode({
			parameters: await reviewParameters(),
			items: Array.from({ length: 301 }, (_, index) => ({ subject: `Ticket ${index}` })),
			credentials: credentialsFor(DEMO_KEYS.pro),
		});
		transcripts.push(result.serialised);
		expect(result.error?.message).toBe('Review takes at most 300 items at once');
		expect(result.error?.description).toMatch(/Loop Over Items/);
		expect(result.run.waitTill).toBeUndefined();
	});

	it('with no items, waits for nobody: every output empty', async () => {
		const result = await runNode({
			parameters: await reviewParameters(),
			items: [],
			credentials: credentialsFor(DEMO_KEYS.pro),
		});
		expect(result.error).toBeUndefined();
		expect(result.run.waitTill).toBeUndefined();
		expect(result.outputs.flat()).toEqual([]);
	});

	it('puts the execution to wait until the time limit, no item on any output yet', async () => {
		const before = Date.now();
		const result = await runNode({
			parameters: await reviewParameters(),
			items: [{ subject: 'Help please' }, { subject: 'Problem' }],
			credentials: credentialsFor(DEMO_KEYS.pro),
		});
		transcripts.push(result.serialised);
		expect(result.error).toBeUndefined();
		const waitTill = new Date(result.run.waitTill ?? 0).getTime();
		// Two hours after the run started (its start is between `before` and now).
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
		expect(waitTill).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000);
		// While it waits n8n draws this run on the canvas: no wire claims items that went nowhere.
		expect(result.outputs.length).toBeGreaterThan(1);
		expect(result.outputs.flat()).toEqual([]);
	});
});
