/** POST /decisions and the decision reads: bounds, normalisation, idempotency, plan limit, templates, drafter, versions. */
import {
	createDecisionResponseSchema,
	decisionListSchema,
	decisionSchema,
	errorEnvelopeSchema,
} from '../../src/contract';
import { DEMO_KEYS, routeDefinition, useHarness, type Answer } from './helpers';

const h = useHarness();

const create = (body: unknown, key: string = DEMO_KEYS.pro): Promise<Answer> =>
	h.api('POST', '/decisions', { key, body });

function expect400(answer: Answer, field: string): void {
	expect(answer.status).toBe(400);
	expect(errorEnvelopeSchema.parse(answer.json).error.code).toBe('invalid_request');
	expect(answer.json.error.details).toEqual(
		expect.arrayContaining([expect.objectContaining({ field })]),
	);
}

const items = (n: number, prefix = 'item'): string[] =>
	Array.from({ length: n }, (_, index) => `${prefix} ${index + 1}`);

describe('bounds of the bounds table, at the limit and one past', () => {
	it('name: 120 characters accepted, 121 refused naming name', async () => {
		const ok = await create(routeDefinition('n'.repeat(120)));
		expect(ok.status).toBe(201);
		expect(ok.json.name).toHaveLength(120);
		expect400(await create(routeDefinition('n'.repeat(121))), 'name');
	});

	it('slug: 64 characters accepted, 65 refused naming slug; a bad pattern too', async () => {
		const ok = await create({ ...routeDefinition('Long slug'), slug: 's'.repeat(64) });
		expect(ok.status).toBe(201);
		expect(ok.json.slug).toBe('s'.repeat(64));
		expect400(await create({ ...routeDefinition('Long slug 2'), slug: 's'.repeat(65) }), 'slug');
		expect400(await create({ ...routeDefinition('Bad slug'), slug: 'Bad--Slug' }), 'slug');
	});

	it('describe: 2000 characters pass validation (503 without drafter), 2001 refused naming describe', async () => {
		const unavailable = await create({ describe: 'd'.repeat(2000) });
		expect(unavailable.status).toBe(503);
		expect(unavailable.json.error.code).toBe('generation_unavailable');
		expect400(await create({ describe: 'd'.repeat(2001) }), 'describe');
	});

	it('options: 2 and 255 accepted, 1 and 256 refused naming options', async () => {
		expect((await create({ ...routeDefinition('Two'), options: items(2) })).status).toBe(201);
		const max = await create({ ...routeDefinition('Max'), options: items(255) });
		expect(max.status).toBe(201);
		expect(max.json.options).toHaveLength(255);
		expect400(await create({ ...routeDefinition('One'), options: items(1) }), 'options');
		expect400(await create({ ...routeDefinition('Too many'), options: items(256) }), 'options');
		// The string forms are bound-checked too.
		expect400(await create({ ...routeDefinition('One string'), options: 'alone' }), 'options');
	});

	it('levels: 2 and 10 accepted, 1 and 11 refused naming levels', async () => {
		const score = (name: string, n: number) => ({
			name,
			type: 'score',
			instructions: 'How much?',
			levels: items(n, 'level'),
		});
		expect((await create(score('L2', 2))).status).toBe(201);
		const ten = await create(score('L10', 10));
		expect(ten.status).toBe(201);
		expect(ten.json.levels).toEqual(items(10, 'level'));
		expect400(await create(score('L1', 1)), 'levels');
		expect400(await create(score('L11', 11)), 'levels');
	});

	it('labels: 1 and 50 accepted, 0 and 51 refused naming labels', async () => {
		const classify = (name: string, n: number) => ({
			name,
			type: 'classify',
			instructions: 'Which?',
			labels: items(n, 'label'),
		});
		expect((await create(classify('C1', 1))).status).toBe(201);
		expect((await create(classify('C50', 50))).json.labels).toHaveLength(50);
		expect400(await create(classify('C0', 0)), 'labels');
		expect400(await create(classify('C51', 51)), 'labels');
	});

	it('a definition without its items, or with the items of another type, is refused naming the field', async () => {
		expect400(await create({ name: 'No items', type: 'route', instructions: 'Which?' }), 'options');
		expect400(
			await create({
				name: 'Mixed',
				type: 'route',
				instructions: 'Which?',
				options: ['a', 'b'],
				labels: ['x'],
			}),
			'labels',
		);
		expect400(
			await create({ name: 'No instructions', type: 'route', options: ['a', 'b'] }),
			'instructions',
		);
		expect400(
			await create({ name: 'Bad type', type: 'rank', instructions: 'x', options: ['a', 'b'] }),
			'type',
		);
	});
});

describe('items and slugs', () => {
	it('options as one comma-separated string and as one line-separated string', async () => {
		const commas = await create({
			...routeDefinition('Commas'),
			options: 'Billing Issue, Technical, Sales',
		});
		expect(commas.status).toBe(201);
		expect(commas.json.options).toEqual(['billing-issue', 'technical', 'sales']);
		const lines = await create({
			...routeDefinition('Lines'),
			options: 'Refund, partial\nReplace\nReject',
		});
		expect(lines.json.options).toEqual(['refund-partial', 'replace', 'reject']);
	});

	it('normalises keys and slugs: "Billing Issue" → billing-issue, accents folded', async () => {
		const created = await create({
			...routeDefinition('Billing Issue'),
			options: [{ key: 'Billing Issue' }, { key: 'Équipe Été' }],
		});
		expect(created.json.slug).toBe('billing-issue');
		expect(created.json.options).toEqual(['billing-issue', 'equipe-ete']);
		expect(created.json.url).toBe(`${h.sandbox.origin}/app/decisions/billing-issue`);
		const decision = await h.api('GET', '/decisions/billing-issue', { key: DEMO_KEYS.pro });
		expect(decision.json.options).toEqual(['billing-issue', 'equipe-ete']);
	});

	it('the same name gives the same slug, and create is idempotent on it (200, created false, untouched)', async () => {
		const first = await create({
			...routeDefinition('Refund Requests'),
			options: 'approve, reject',
		});
		expect(first.status).toBe(201);
		expect(createDecisionResponseSchema.parse(first.json)).toMatchObject({
			created: true,
			status: 'live',
			live_version: 1,
			slug: 'refund-requests',
		});
		const again = await create({
			...routeDefinition('Refund  requests!'),
			options: 'yes, no, maybe',
			description: 'changed',
		});
		expect(again.status).toBe(200);
		expect(again.json).toMatchObject({
			created: false,
			slug: 'refund-requests',
			options: ['approve', 'reject'],
			live_version: 1,
		});
		const read = await h.api('GET', '/decisions/refund-requests', { key: DEMO_KEYS.pro });
		expect(read.json.options).toEqual(['approve', 'reject']);
		expect(read.json.live_version).toBe(1);
		expect(read.json.description).toBe('');
	});

	it('an explicit slug wins over the name, and duplicate keys are refused', async () => {
		const created = await create({ ...routeDefinition('Some Name'), slug: 'my-slug' });
		expect(created.json.slug).toBe('my-slug');
		expect400(
			await create({ ...routeDefinition('Dupes'), options: ['Billing', 'billing'] }),
			'options.1',
		);
	});
});

describe('publish and the live-decision limit', () => {
	it('a fourth live decision on Free becomes a draft with plan_limit, a message and an upgrade URL', async () => {
		const list = await h.api('GET', '/decisions', { key: DEMO_KEYS.free });
		expect(
			list.json.decisions.filter((d: { live_version: number | null }) => d.live_version !== null),
		).toHaveLength(3);
		const fourth = await create(routeDefinition('Fourth'), DEMO_KEYS.free);
		expect(fourth.status).toBe(201);
		expect(createDecisionResponseSchema.parse(fourth.json)).toMatchObject({
			created: true,
			status: 'draft',
			live_version: null,
			publish_error: 'plan_limit',
		});
		expect(fourth.json.message).toMatch(/3 live decisions/);
		expect(fourth.json.message).toMatch(/upgrade/i);
		expect(fourth.json.upgrade_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/app\//);
		const decide = await h.decide(DEMO_KEYS.free, 'fourth', { input: 'anything' });
		expect(decide.status).toBe(409);
		expect(decide.json.error.code).toBe('decision_not_live');
		// The same request on a paid plan publishes.
		expect((await create(routeDefinition('Fourth'), DEMO_KEYS.starter)).json.status).toBe('live');
	});

	it('publish false saves a draft (live_version null, a message, no publish_error); GET shows its content', async () => {
		const draft = await create({ ...routeDefinition('Draft'), publish: false });
		expect(draft.status).toBe(201);
		expect(draft.json).toMatchObject({ status: 'draft', live_version: null });
		expect(draft.json.publish_error).toBeUndefined();
		expect(typeof draft.json.message).toBe('string');
		const read = await h.api('GET', '/decisions/draft', { key: DEMO_KEYS.pro });
		expect(decisionSchema.parse(read.json)).toMatchObject({
			live_version: null,
			options: ['option-1', 'option-2'],
		});
		expect(
			(await h.decide(DEMO_KEYS.pro, 'draft', { input: 'x', options: { version: 1 } })).status,
		).toBe(409);
	});
});

describe('templates', () => {
	it('creates from a template with the template name in the locale, its items and context fields', async () => {
		const en = await create({ template: 'support-ticket-routing' });
		expect(en.status).toBe(201);
		expect(en.json).toMatchObject({
			slug: 'support-ticket-routing',
			name: 'Support ticket routing',
			type: 'route',
		});
		expect(en.json.options).toEqual(['billing', 'technical', 'sales', 'account']);
		const fr = await create({ template: 'lead-scoring', locale: 'fr', slug: 'prospects' });
		expect(fr.json).toMatchObject({
			name: 'Qualification des prospects',
			levels: ['froid', 'tiède', 'chaud', 'prêt à acheter'],
		});
		const read = await h.api('GET', '/decisions/support-ticket-routing', { key: DEMO_KEYS.pro });
		expect(read.json.context.fields.map((field: { name: string }) => field.name)).toEqual([
			'subject',
			'body',
		]);
		const named = await create({ template: 'sentiment', name: 'My Sentiment' });
		expect(named.json.slug).toBe('my-sentiment');
	});

	it('an unknown template is 404 template_not_found', async () => {
		const answer = await create({ template: 'no-such-template' });
		expect(answer.status).toBe(404);
		expect(answer.json.error.code).toBe('template_not_found');
	});
});

describe('describe and the drafter', () => {
	it('503 generation_unavailable without a drafter', async () => {
		const answer = await create({
			describe: 'Route support tickets to billing, technical or sales',
		});
		expect(answer.status).toBe(503);
		expect(answer.json.error.code).toBe('generation_unavailable');
	});

	it('with the drafter: 201 with items, type and name drafted; French instructions for French text; 422 when vague', async () => {
		await h.control('POST', '/config', { drafter: true });
		const route = await create({
			describe: 'Route support tickets to billing, technical or sales depending on the content',
		});
		expect(route.status).toBe(201);
		expect(route.json).toMatchObject({
			type: 'route',
			options: ['billing', 'technical', 'sales'],
			slug: 'route-support-tickets',
		});

		const score = await create({
			describe: 'Rate the urgency of each request as low, medium, high or critical.',
		});
		expect(score.json).toMatchObject({
			type: 'score',
			levels: ['low', 'medium', 'high', 'critical'],
		});

		const imposed = await create({
			describe: 'Spam, promotion or question',
			type: 'classify',
			name: 'Tagger',
		});
		expect(imposed.json).toMatchObject({
			type: 'classify',
			labels: ['spam', 'promotion', 'question'],
			slug: 'tagger',
		});

		const french = await create({
			describe: 'Envoyer chaque ticket vers facturation, technique ou commercial',
			name: 'Tickets FR',
		});
		expect(french.status).toBe(201);
		const read = await h.api('GET', '/decisions/tickets-fr', { key: DEMO_KEYS.pro });
		expect(read.json.instructions).toMatch(/Choisissez exactement une option/);
		expect(read.json.options).toEqual(['facturation', 'technique', 'commercial']);

		const vague = await create({ describe: 'Do something useful with my messages', name: 'Vague' });
		expect(vague.status).toBe(422);
		expect(vague.json.error.code).toBe('generation_failed');

		// The drafter is deterministic: the same description gives the same slug, so create stays idempotent.
		const again = await create({
			describe: 'Route support tickets to billing, technical or sales depending on the content',
		});
		expect(again.status).toBe(200);
		expect(again.json.created).toBe(false);
	});
});

describe('reads', () => {
	it('GET /decisions lists the account decisions sorted by slug; other accounts do not see them', async () => {
		await create(routeDefinition('Aardvark'));
		await create(routeDefinition('Zebra'));
		const list = await h.api('GET', '/decisions', { key: DEMO_KEYS.pro });
		const parsed = decisionListSchema.parse(list.json);
		const slugs = parsed.decisions.map((d) => d.slug);
		expect(slugs).toEqual([
			'aardvark',
			'content-labels',
			'lead-scoring',
			'ticket-routing',
			'zebra',
		]);
		const other = await h.api('GET', '/decisions', { key: DEMO_KEYS.scale });
		expect(other.json.decisions.map((d: { slug: string }) => d.slug)).toEqual([
			'content-labels',
			'lead-scoring',
			'ticket-routing',
		]);
		expect((await h.api('GET', '/decisions/aardvark', { key: DEMO_KEYS.scale })).status).toBe(404);
	});

	it('GET /decisions/{slug} fills context field defaults; unknown slug 404, bad slug 400 naming slug', async () => {
		await create({
			...routeDefinition('Fields'),
			context: {
				description: 'ctx',
				fields: [{ name: 'x' }, { name: 'y', type: 'number', pii: true }],
			},
		});
		const read = await h.api('GET', '/decisions/fields', { key: DEMO_KEYS.pro });
		expect(read.json.context).toEqual({
			description: 'ctx',
			fields: [
				{ name: 'x', type: 'string', required: false, pii: false },
				{ name: 'y', type: 'number', required: false, pii: true },
			],
		});
		expect(read.json).toMatchObject({
			confidence_threshold: 0.6,
			uncertainty_policy: 'uncertain_branch',
			live_version: 1,
		});
		const missing = await h.api('GET', '/decisions/nope', { key: DEMO_KEYS.pro });
		expect(missing.status).toBe(404);
		expect(missing.json.error.code).toBe('decision_not_found');
		const bad = await h.api('GET', '/decisions/Not_A_Slug', { key: DEMO_KEYS.pro });
		expect(bad.status).toBe(400);
		expect(bad.json.error.details[0].field).toBe('slug');
	});

	it('the seeded ticket-routing decision has the documented fields, policy and options', async () => {
		const read = await h.api('GET', '/decisions/ticket-routing', { key: DEMO_KEYS.free });
		const decision = decisionSchema.parse(read.json);
		expect(decision).toMatchObject({
			type: 'route',
			uncertainty_policy: 'human_review',
			options: ['billing', 'technical', 'sales', 'account'],
		});
		expect(decision.context.fields).toEqual([
			expect.objectContaining({ name: 'subject', type: 'string', required: true, pii: false }),
			expect.objectContaining({ name: 'body', type: 'string', required: true, pii: false }),
			expect.objectContaining({
				name: 'customer_email',
				type: 'string',
				required: false,
				pii: true,
			}),
			expect.objectContaining({ name: 'plan', type: 'string', required: false, pii: false }),
		]);
		const scoring = decisionSchema.parse(
			(await h.api('GET', '/decisions/lead-scoring', { key: DEMO_KEYS.free })).json,
		);
		expect(scoring.levels).toEqual(['cold', 'warm', 'hot', 'sales-ready']);
		const labels = decisionSchema.parse(
			(await h.api('GET', '/decisions/content-labels', { key: DEMO_KEYS.free })).json,
		);
		expect(labels.labels).toEqual(['spam', 'promotion', 'question', 'complaint', 'toxic']);
	});
});

describe('versions', () => {
	it('publishing creates version N+1 and makes it live; options.version runs an earlier one; rollback via live', async () => {
		const v2 = await h.control('POST', '/decisions/ticket-routing/versions', {
			key: DEMO_KEYS.pro,
			options: [
				'billing',
				'technical',
				'sales',
				'account',
				{ key: 'Security', description: 'Phishing, hacked account, data breach.' },
			],
		});
		expect(v2).toMatchObject({ live_version: 2, created_version: 2 });
		expect(v2.options).toContain('security');
		const phishing = { input: 'Phishing mail: my account was hacked in a data breach' };
		const live = await h.decide(DEMO_KEYS.pro, 'ticket-routing', phishing);
		expect(live.json).toMatchObject({ version: 2, choice: 'security' });
		// Items given without a description keep the live one: billing still routes.
		const billing = await h.decide(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'I was charged twice on my invoice',
		});
		expect(billing.json.choice).toBe('billing');

		const pinned = await h.decide(DEMO_KEYS.pro, 'ticket-routing', {
			...phishing,
			options: { version: 1 },
		});
		expect(pinned.json.version).toBe(1);
		expect(Object.keys(pinned.json.probabilities)).toEqual([
			'billing',
			'technical',
			'sales',
			'account',
		]);
		const unknown = await h.decide(DEMO_KEYS.pro, 'ticket-routing', {
			...phishing,
			options: { version: 7 },
		});
		expect(unknown.status).toBe(404);
		expect(unknown.json.error.code).toBe('version_not_found');

		const rolledBack = await h.control('POST', '/decisions/ticket-routing/live', {
			key: DEMO_KEYS.pro,
			version: 1,
		});
		expect(rolledBack.live_version).toBe(1);
		expect((await h.decide(DEMO_KEYS.pro, 'ticket-routing', phishing)).json.version).toBe(1);

		const unpublished = await h.control('POST', '/decisions/ticket-routing/versions', {
			key: DEMO_KEYS.pro,
			confidence_threshold: 0.1,
			publish: false,
		});
		expect(unpublished).toMatchObject({ live_version: 1, created_version: 3 });
	});
});
