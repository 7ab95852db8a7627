/** POST /decide/{slug}: the three types, engines, uncertainty, versions and every refusal. */
import { runSchema, UNCERTAIN_CHOICE, type Run } from '../../src/contract';
import { DEMO_KEYS, useHarness, type Answer } from './helpers';

const h = useHarness();

async function run(key: string, slug: string, body: unknown): Promise<Run> {
	const answer = await h.decide(key, slug, body);
	expect(answer.status).toBe(200);
	return runSchema.parse(answer.json);
}

function argmax(probabilities: Record<string, number>): string {
	return Object.entries(probabilities).reduce((best, entry) =>
		entry[1] > best[1] ? entry : best,
	)[0];
}

function expectRefusal(answer: Answer, status: number, code: string): void {
	expect(answer.status).toBe(status);
	expect(answer.json.error.code).toBe(code);
	expect(typeof answer.json.error.message).toBe('string');
}

const tickets: Array<[string, string]> = [
	['I was charged twice on my invoice', 'billing'],
	['The app crashes with an error when I upload a file', 'technical'],
	['I would like a demo and a quote for 50 licences for my team', 'sales'],
	['I forgot my password and cannot log in', 'account'],
];

describe('route', () => {
	it.each(tickets)(
		'"%s" → %s, confidently, choice = argmax, confidence = top probability',
		async (text, expected) => {
			const answer = await run(DEMO_KEYS.pro, 'ticket-routing', {
				input: { subject: 'Help', body: text },
			});
			expect(answer).toMatchObject({
				decision: 'ticket-routing',
				version: 1,
				status: 'ok',
				choice: expected,
				engine: 'jev',
				model: 'jev-1.4.2',
				confidence_source: 'calibrated',
				pii_redacted: 0,
			});
			expect(argmax(answer.probabilities)).toBe(expected);
			expect(answer.confidence).toBe(answer.probabilities[expected]);
			expect(answer.confidence).toBeGreaterThan(0.8);
			expect(Object.keys(answer.probabilities)).toEqual([
				'billing',
				'technical',
				'sales',
				'account',
			]);
			const total = Object.values(answer.probabilities).reduce((a, b) => a + b, 0);
			expect(total).toBeCloseTo(1, 2);
			expect(Number.isInteger(answer.latency_ms)).toBe(true);
			expect(answer.run_id).toMatch(/^run_/);
			expect(answer.fallback_reason).toBeUndefined();
			expect(answer.review_url).toBeUndefined();
		},
	);

	it('free text input is accepted, and the same input always gives the same answer', async () => {
		const first = await run(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'Please refund the payment',
		});
		const second = await run(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'Please refund the payment',
		});
		expect(first.choice).toBe('billing');
		expect(second.probabilities).toEqual(first.probabilities);
		expect(second.confidence).toBe(first.confidence);
		expect(second.run_id).not.toBe(first.run_id);
	});

	it('a vague input is uncertain on Free (human_review acts as uncertain_branch): __uncertain__, probabilities kept', async () => {
		const answer = await run(DEMO_KEYS.free, 'ticket-routing', {
			input: { subject: 'hello', body: 'hello' },
		});
		expect(answer.status).toBe('uncertain');
		expect(answer.choice).toBe(UNCERTAIN_CHOICE);
		expect(answer.confidence).toBeLessThan(0.6);
		expect(Object.keys(answer.probabilities)).toHaveLength(4);
		expect(answer.review_url).toBeUndefined();
	});

	it('the same vague input on Starter goes to human review: pending with a review_url', async () => {
		const answer = await run(DEMO_KEYS.starter, 'ticket-routing', {
			input: { subject: 'hello', body: 'hello' },
		});
		expect(answer.status).toBe('pending');
		expect(answer.review_url).toBe(`${h.sandbox.origin}/app/reviews/${answer.run_id}`);
		expect(answer.choice).not.toBe(UNCERTAIN_CHOICE);
		// A confident answer on Starter stays ok.
		expect(
			(
				await run(DEMO_KEYS.starter, 'ticket-routing', {
					input: 'I was charged twice on my invoice',
				})
			).status,
		).toBe('ok');
	});

	it('a decision with uncertain_branch is uncertain on Starter too', async () => {
		await h.control('POST', '/decisions/ticket-routing/versions', {
			key: DEMO_KEYS.starter,
			uncertainty_policy: 'uncertain_branch',
		});
		const answer = await run(DEMO_KEYS.starter, 'ticket-routing', { input: 'hello' });
		expect(answer).toMatchObject({ status: 'uncertain', choice: UNCERTAIN_CHOICE, version: 2 });
	});

	it('the threshold decides: a mixed ticket is uncertain at 0.6 and ok at threshold 0.3', async () => {
		const mixed = { input: 'My invoice is wrong and the app crashes' };
		const before = await run(DEMO_KEYS.free, 'ticket-routing', mixed);
		expect(before.status).toBe('uncertain');
		expect(before.confidence).toBeGreaterThan(0.3);
		await h.control('POST', '/decisions/ticket-routing/versions', {
			key: DEMO_KEYS.free,
			confidence_threshold: 0.3,
		});
		const after = await run(DEMO_KEYS.free, 'ticket-routing', mixed);
		expect(after.status).toBe('ok');
		expect(after.choice).toBe(argmax(after.probabilities));
		expect(after.confidence).toBe(before.confidence);
	});
});

describe('score', () => {
	const legend = { 0: 'cold', 1: 'warm', 2: 'hot', 3: 'sales-ready' };

	function expectConsistent(answer: Run): void {
		const levels = Object.values(answer.legend ?? {});
		const expectedRaw = levels.reduce(
			(sum, level, index) => sum + index * answer.probabilities[level],
			0,
		);
		expect(answer.raw_score).toBeCloseTo(expectedRaw, 3);
		expect(answer.score).toBeCloseTo(((answer.raw_score ?? 0) / (levels.length - 1)) * 100, 1);
		expect(answer.confidence).toBe(Math.max(...Object.values(answer.probabilities)));
		expect(answer.choice).toBeUndefined();
		expect(answer.labels).toBeUndefined();
	}

	it('places a ready buyer near the top and a student near the bottom, consistently', async () => {
		const hot = await run(DEMO_KEYS.pro, 'lead-scoring', {
			input: {
				company: 'Acme',
				role: 'CTO',
				message: 'Budget approved: send the contract, we sign this week',
				employees: 900,
			},
		});
		expect(hot.legend).toEqual(legend);
		expectConsistent(hot);
		expect(hot.status).toBe('ok');
		expect(Math.round(hot.raw_score ?? 0)).toBe(3);
		expect(hot.score).toBeGreaterThan(80);

		const cold = await run(DEMO_KEYS.pro, 'lead-scoring', {
			input: { message: 'I am a student just browsing for a hobby project' },
		});
		expectConsistent(cold);
		expect(Math.round(cold.raw_score ?? 3)).toBe(0);
		expect(cold.score).toBeLessThan(20);

		const middle = await run(DEMO_KEYS.pro, 'lead-scoring', {
			input: { message: 'We are comparing tools and would like pricing and a free trial' },
		});
		expect(Math.round(middle.raw_score ?? 0)).toBe(2);
	});

	it('a vague lead is uncertain but keeps score, raw_score and legend', async () => {
		const vague = await run(DEMO_KEYS.pro, 'lead-scoring', { input: { message: 'hello' } });
		expect(vague.status).toBe('uncertain');
		expectConsistent(vague);
		expect(vague.score).toBe(50);
		expect(vague.raw_score).toBe(1.5);
	});
});

describe('classify', () => {
	it('labels are exactly the labels whose probability reached their threshold', async () => {
		// toxic's threshold is 0.7 in the seed; the others 0.5.
		const thresholds: Record<string, number> = {
			spam: 0.5,
			promotion: 0.5,
			question: 0.5,
			complaint: 0.5,
			toxic: 0.7,
		};
		const texts = [
			'You won a prize! Click this link to claim free money',
			'Special offer with promo code SAVE20, limited time discount, buy now',
			'How do I reset the settings?',
			'My delivery was late and the product arrived broken, very disappointed. Why?',
			'shut up you stupid moron',
			'hello',
		];
		const seen = new Set<string>();
		for (const text of texts) {
			const answer = await run(DEMO_KEYS.pro, 'content-labels', { input: { text } });
			const expected = Object.entries(answer.probabilities)
				.filter(([label, p]) => p >= thresholds[label])
				.map(([label]) => label);
			expect(answer.labels).toEqual(expected);
			for (const label of answer.labels ?? []) seen.add(label);
			expect(answer.choice).toBeUndefined();
		}
		expect([...seen].sort()).toEqual(['complaint', 'promotion', 'question', 'spam', 'toxic']);
	});

	it('a label with high evidence stays out when its threshold is higher; a low threshold retains it', async () => {
		const created = await h.api('POST', '/decisions', {
			key: DEMO_KEYS.pro,
			body: {
				name: 'Thresholds',
				type: 'classify',
				instructions: 'Which intents?',
				labels: [
					{ key: 'refund', description: 'refund money back reimbursement', threshold: 0.99 },
					{ key: 'bug', description: 'bug error crash broken', threshold: 0.2 },
					{ key: 'praise', description: 'great love thanks wonderful' },
				],
			},
		});
		expect(created.status).toBe(201);
		const answer = await run(DEMO_KEYS.pro, 'thresholds', {
			input: 'I want my money back, the app has a bug',
		});
		expect(answer.probabilities.refund).toBeGreaterThan(0.5);
		expect(answer.probabilities.refund).toBeLessThan(0.99);
		expect(answer.probabilities.bug).toBeGreaterThanOrEqual(0.2);
		expect(answer.probabilities.praise).toBeLessThan(0.5);
		expect(answer.labels).toEqual(['bug']);
	});

	it('a single telling word is weak evidence: uncertain, labels and probabilities kept', async () => {
		const answer = await run(DEMO_KEYS.pro, 'content-labels', { input: { text: 'Great offer' } });
		expect(answer.status).toBe('uncertain');
		expect(answer.labels).toEqual(['promotion']);
		expect(answer.probabilities.promotion).toBeGreaterThanOrEqual(0.5);
		expect(answer.confidence).toBeLessThan(0.5);
	});

	it('no label at all is a confident, empty answer', async () => {
		const answer = await run(DEMO_KEYS.pro, 'content-labels', { input: { text: 'hello' } });
		expect(answer).toMatchObject({ status: 'ok', labels: [] });
	});
});

describe('engines', () => {
	it('options.engine "llm" forces the fallback: llm_fallback, fallback_reason, self_reported', async () => {
		const answer = await run(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'I was charged twice on my invoice',
			options: { engine: 'llm' },
		});
		expect(answer).toMatchObject({
			engine: 'llm_fallback',
			fallback_reason: 'forced_by_request',
			confidence_source: 'self_reported',
			choice: 'billing',
		});
		expect(answer.model).toMatch(/^llm_fallback-\d+\.\d+\.\d+$/);
		// Self-reported confidence comes in steps of 0.05.
		expect(Math.round(answer.confidence * 20)).toBeCloseTo(answer.confidence * 20, 6);
		const primary = await run(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'I was charged twice on my invoice',
			options: { engine: 'jev' },
		});
		expect(primary).toMatchObject({ engine: 'jev', confidence_source: 'calibrated' });
		expect(primary.fallback_reason).toBeUndefined();
	});

	it('a primary timeout (fault) answers with the fallback after the timeout; forcing jev then fails uncharged', async () => {
		await h.control('POST', '/config', { primary_timeout_ms: 120 });
		await h.control('POST', '/faults', {
			rules: [{ path: '^/v1/decide/', primary_timeout: true, times: 2 }],
		});
		const answer = await run(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'The app crashes with an error',
		});
		expect(answer).toMatchObject({
			engine: 'llm_fallback',
			fallback_reason: 'primary_timeout',
			confidence_source: 'self_reported',
			choice: 'technical',
		});
		expect(answer.latency_ms).toBeGreaterThanOrEqual(115);

		const before = await h.usage(DEMO_KEYS.pro);
		const forced = await h.decide(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'The app crashes',
			options: { engine: 'jev' },
		});
		expectRefusal(forced, 504, 'gateway_timeout');
		expect((await h.usage(DEMO_KEYS.pro)).used).toBe(before.used);
		// The rule fired twice: the primary answers again.
		expect((await run(DEMO_KEYS.pro, 'ticket-routing', { input: 'The app crashes' })).engine).toBe(
			'jev',
		);
	});
});

describe('refusals', () => {
	it('unknown slug 404, bad slug 400 naming slug, draft 409', async () => {
		expectRefusal(
			await h.decide(DEMO_KEYS.pro, 'no-such-decision', { input: 'x' }),
			404,
			'decision_not_found',
		);
		const bad = await h.decide(DEMO_KEYS.pro, 'Ticket_Routing', { input: 'x' });
		expectRefusal(bad, 400, 'invalid_request');
		expect(bad.json.error.details).toEqual([expect.objectContaining({ field: 'slug' })]);
		await h.api('POST', '/decisions', {
			key: DEMO_KEYS.pro,
			body: {
				name: 'Draft',
				type: 'route',
				instructions: 'Which?',
				options: 'a, b',
				publish: false,
			},
		});
		expectRefusal(await h.decide(DEMO_KEYS.pro, 'draft', { input: 'x' }), 409, 'decision_not_live');
	});

	it('input breaking the declared fields: one detail per field, named input.<field>', async () => {
		const answer = await h.decide(DEMO_KEYS.pro, 'ticket-routing', {
			input: { body: 42, plan: ['pro'] },
		});
		expectRefusal(answer, 400, 'invalid_request');
		expect(answer.json.error.details).toEqual([
			{ field: 'input.subject', message: 'is required' },
			{ field: 'input.body', message: 'must be a string, got number' },
			{ field: 'input.plan', message: 'must be a string, got array' },
		]);
		const number = await h.decide(DEMO_KEYS.pro, 'lead-scoring', {
			input: { message: 'hi', employees: 'many' },
		});
		expect(number.json.error.details).toEqual([
			{ field: 'input.employees', message: 'must be a number, got string' },
		]);
	});

	it('a body breaking the request schema names the field', async () => {
		const noInput = await h.decide(DEMO_KEYS.pro, 'ticket-routing', { options: {} });
		expectRefusal(noInput, 400, 'invalid_request');
		expect(noInput.json.error.details[0].field).toBe('input');
		const badEngine = await h.decide(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'x',
			options: { engine: 'gpt' },
		});
		expect(badEngine.json.error.details[0].field).toBe('options.engine');
		const badVersion = await h.decide(DEMO_KEYS.pro, 'ticket-routing', {
			input: 'x',
			options: { version: 0 },
		});
		expect(badVersion.json.error.details[0].field).toBe('options.version');
		const empty = await h.api('POST', '/decide/ticket-routing', { key: DEMO_KEYS.pro });
		expectRefusal(empty, 400, 'invalid_request');
	});
});
