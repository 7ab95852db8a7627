import { flattenText, runEngine } from '../../sandbox/engine';
import { decisionPage, reviewPage } from '../../sandbox/pages';
import { SEED_DECISIONS } from '../../sandbox/seed';
import { SandboxStore } from '../../sandbox/store';
import type { StoredRun } from '../../sandbox/store';

// The sandbox's page behind a pending run's review_url (sandbox/pages.ts): what the run is, where
// the engine leaned, and that the sandbox's runs are answered from n8n. Over HTTP: test/ui/review.

const run = (over: Partial<StoredRun> = {}): StoredRun => ({
	run_id: 'run_1',
	decision: 'ticket-routing',
	version: 1,
	created_at: '2026-11-25T10:00:00.000Z',
	input: { subject: '<b>hello</b>', customer_email: '<CUSTOMER_EMAIL_1>' },
	pii_redacted: 1,
	pii_kinds: { CUSTOMER_EMAIL: 1 },
	explanation: {},
	response: {
		run_id: 'run_1',
		decision: 'ticket-routing',
		version: 1,
		status: 'pending',
		choice: 'billing',
		probabilities: { billing: 0.25, sales: 0.5, technical: 0.25 },
		confidence: 0.5,
		confidence_source: 'calibrated',
		engine: 'jev',
		model: 'jev-1.4.2',
		latency_ms: 1,
		pii_redacted: 1,
	} as StoredRun['response'],
	...over,
});

const textOf = (html: string) =>
	html
		.replace(/<style>[\s\S]*?<\/style>/, '')
		.replace(/<[^>]+>/g, ' ')
		.replace(/\s+/g, ' ');

describe('the sandbox page of a run in review (review_url)', () => {
	it('says what the run is, where it leans, and where to answer it', () => {
		const text = textOf(reviewPage(run()));
		expect(text).toContain('Review queue: run run_1');
		expect(text).toContain('Decision ticket-routing (version 1)');
		expect(text).toContain('Waiting for a reviewer ; confidence 0.50.');
		expect(text).toMatch(/sales 50%.*billing 25%/);
		expect(text).toContain('No feedback on this run yet.');
		expect(text).toContain(
			'answer the run from n8n, with the Review operation or with Send Feedback',
		);
	});

	it('shows the feedback once received', () => {
		const text = textOf(
			reviewPage(run({ feedback: { feedback: 'technical', note: 'a bug', at: '2026-11-25' } })),
		);
		expect(text).toContain('Feedback received: technical (a bug)');
	});

	it('writes the stored input as text, never as markup', () => {
		const html = reviewPage(run());
		expect(html).not.toContain('<b>hello</b>');
		expect(html).toContain('&lt;b&gt;hello&lt;/b&gt;');
		expect(html).not.toMatch(/<script/);
	});
});

describe("the sandbox page of a created decision's url", () => {
	it('names the decision, its live version and its answers', () => {
		const store = new SandboxStore();
		const decision = store.findDecision('ticket-routing');
		expect(decision).toBeDefined();
		const text = textOf(decisionPage(decision!));
		expect(text).toContain('Ticket routing');
		expect(text).toContain('version 1 is live');
		expect(text).toMatch(/billing .*technical .*sales .*account/);
	});
});

describe("the demo's vague ticket goes to review (issue 30, point 15)", () => {
	const routing = SEED_DECISIONS.find((decision) => decision.slug === 'ticket-routing')!;
	const definition = {
		type: 'route' as const,
		instructions: routing.instructions,
		items: (routing.options as Array<{ key: string; description: string }>).map((option) => ({
			key: option.key,
			description: option.description,
		})),
	};

	it.each([
		['Hello', 'Hi there, just a quick question.'],
		['hello', 'hello'],
	])(
		'"%s / %s": no telling word, under the threshold (pending on Starter and above)',
		(subject, body) => {
			const result = runEngine(definition, flattenText({ subject, body }), 'jev');
			expect(result.explanation).toEqual({});
			expect(result.confidence).toBeLessThan(routing.confidence_threshold!);
		},
	);

	it('a buying question still goes to sales', () => {
		const result = runEngine(
			definition,
			flattenText({ subject: 'Pricing', body: 'A question: can we get a quote for 30 seats?' }),
			'jev',
		);
		expect(result.choice).toBe('sales');
		expect(result.confidence).toBeGreaterThanOrEqual(routing.confidence_threshold!);
	});
});
