/** Rate limit, monthly quota, retention and feedback, on the virtual clock. */
import {
	quotaExceededDetailsSchema,
	RATE_LIMIT_HEADERS,
	rateLimitedDetailsSchema,
} from '../../src/contract';
import { DEMO_KEYS, useHarness, type Answer } from './helpers';

const h = useHarness();

const DAY = 24 * 60 * 60 * 1000;
const ticket = { input: { subject: 'Invoice', body: 'I was charged twice on my invoice' } };

function rateHeaders(answer: Answer): { limit: number; remaining: number; reset: number } {
	for (const header of [
		RATE_LIMIT_HEADERS.limit,
		RATE_LIMIT_HEADERS.remaining,
		RATE_LIMIT_HEADERS.reset,
	]) {
		expect(answer.headers[header]).toMatch(/^\d+$/);
	}
	return {
		limit: Number(answer.headers[RATE_LIMIT_HEADERS.limit]),
		remaining: Number(answer.headers[RATE_LIMIT_HEADERS.remaining]),
		reset: Number(answer.headers[RATE_LIMIT_HEADERS.reset]),
	};
}

describe('rate limit (fixed window per key)', () => {
	it('Free: 30 decides pass with counting headers, the 31st is 429 rate_limited with Retry-After and details', async () => {
		for (let index = 0; index < 30; index += 1) {
			const answer = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
			expect(answer.status).toBe(200);
			const headers = rateHeaders(answer);
			expect(headers).toMatchObject({ limit: 30, remaining: 29 - index });
			expect(headers.reset).toBeGreaterThanOrEqual(1);
			expect(headers.reset).toBeLessThanOrEqual(60);
		}
		const refused = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		expect(refused.status).toBe(429);
		expect(refused.json.error.code).toBe('rate_limited');
		const details = rateLimitedDetailsSchema.parse(refused.json.error.details);
		const retryAfter = Number(refused.headers[RATE_LIMIT_HEADERS.retryAfter]);
		expect(Number.isInteger(retryAfter)).toBe(true);
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(60);
		expect(details).toEqual({ limit: 30, retry_after: retryAfter });
		expect(rateHeaders(refused)).toMatchObject({ limit: 30, remaining: 0 });
		// The limit is per key, on the metered routes: creating is refused too, reading is not
		// (and carries no rate headers); another key is not affected.
		expect(
			(
				await h.api('POST', '/decisions', {
					key: DEMO_KEYS.free,
					body: { template: 'sentiment', name: 'Mood' },
				})
			).status,
		).toBe(429);
		const read = await h.api('GET', '/decisions', { key: DEMO_KEYS.free });
		expect(read.status).toBe(200);
		expect(read.headers[RATE_LIMIT_HEADERS.limit]).toBeUndefined();
		expect((await h.decide(DEMO_KEYS.starter, 'ticket-routing', ticket)).status).toBe(200);
		// The 429s did not consume the quota.
		expect((await h.usage(DEMO_KEYS.free)).used).toBe(30);
		// When the window ends (virtual clock), the budget is back.
		await h.control('POST', '/clock', { advance_ms: 60_000 });
		const after = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		expect(after.status).toBe(200);
		expect(rateHeaders(after).remaining).toBe(29);
	});

	it('a scaled-down window (rate_window_ms) refills in real time', async () => {
		expect(await h.control('POST', '/clock', { rate_window_ms: 1_500 })).toMatchObject({
			rate_window_ms: 1_500,
		});
		for (let index = 0; index < 30; index += 1)
			await h.decide(DEMO_KEYS.free, 'content-labels', { input: { text: `hi ${index}` } });
		const refused = await h.decide(DEMO_KEYS.free, 'content-labels', {
			input: { text: 'one too many' },
		});
		expect(refused.status).toBe(429);
		expect(['1', '2']).toContain(refused.headers['retry-after']);
		expect(rateHeaders(refused).reset).toBe(Number(refused.headers['retry-after']));
		await new Promise((resolve) => setTimeout(resolve, 1_600));
		expect(
			(await h.decide(DEMO_KEYS.free, 'content-labels', { input: { text: 'next window' } })).status,
		).toBe(200);
	});

	it('every decide answer carries the headers: 200, 400, 404, 409 and 429; a 401 does not', async () => {
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
		const answers = [
			await h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket),
			await h.decide(DEMO_KEYS.pro, 'ticket-routing', { input: { body: 'no subject' } }),
			await h.decide(DEMO_KEYS.pro, 'unknown', ticket),
			await h.decide(DEMO_KEYS.pro, 'draft', ticket),
		];
		expect(answers.map((answer) => answer.status)).toEqual([200, 400, 404, 409]);
		for (const answer of answers) expect(rateHeaders(answer).limit).toBe(120);
		await h.control('POST', '/usage', { key: DEMO_KEYS.pro, used: 50_000 });
		const quota = await h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket);
		expect(quota.status).toBe(429);
		expect(rateHeaders(quota).limit).toBe(120);
		const unauthorized = await h.decide('dsk_test_nobody', 'ticket-routing', ticket);
		expect(unauthorized.status).toBe(401);
		expect(unauthorized.headers[RATE_LIMIT_HEADERS.limit]).toBeUndefined();
	});

	it('error answers count against neither the rate nor the quota', async () => {
		const first = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		const remaining = rateHeaders(first).remaining;
		const used = (await h.usage(DEMO_KEYS.free)).used;
		expect(used).toBe(1);
		const errors = [
			await h.decide(DEMO_KEYS.free, 'ticket-routing', { input: { body: 'no subject' } }),
			await h.decide(DEMO_KEYS.free, 'nope', ticket),
			await h.decide(DEMO_KEYS.free, 'ticket-routing', { input: 'x', options: { version: 9 } }),
			await h.api('POST', '/decide/ticket-routing', { key: DEMO_KEYS.free, raw: '{not json' }),
			await h.api('POST', '/decisions', {
				key: DEMO_KEYS.free,
				body: { template: 'no-such-template' },
			}),
		];
		expect(errors.map((answer) => answer.status)).toEqual([400, 404, 404, 400, 404]);
		for (const answer of errors) expect(rateHeaders(answer).remaining).toBe(remaining);
		const usage = await h.usage(DEMO_KEYS.free);
		expect(usage.used).toBe(used);
		expect(usage.rate.remaining).toBe(remaining);
		// A success does consume both.
		const next = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		expect(rateHeaders(next).remaining).toBe(remaining - 1);
		expect((await h.usage(DEMO_KEYS.free)).used).toBe(used + 1);
	});

	it('the unlimited plan has no rate limit, no quota and no rate headers', async () => {
		for (let index = 0; index < 70; index += 1) {
			const answer = await h.api('GET', '/decisions', { key: DEMO_KEYS.unlimited });
			expect(answer.status).toBe(200);
			expect(answer.headers[RATE_LIMIT_HEADERS.limit]).toBeUndefined();
		}
		await h.control('POST', '/usage', { key: DEMO_KEYS.unlimited, used: 10_000_000 });
		expect((await h.decide(DEMO_KEYS.unlimited, 'ticket-routing', ticket)).status).toBe(200);
		expect(await h.usage(DEMO_KEYS.unlimited)).toMatchObject({
			plan: 'unlimited',
			quota: null,
			used: 10_000_001,
			rate: { limit: null },
		});
	});
});

describe('monthly quota (per account, UTC calendar month)', () => {
	it('only decide 200s count, one unit each whatever the status; at the quota 429 quota_exceeded with details', async () => {
		await h.api('GET', '/decisions', { key: DEMO_KEYS.free });
		await h.api('GET', '/templates', { key: DEMO_KEYS.free });
		expect((await h.usage(DEMO_KEYS.free)).used).toBe(0);
		await h.control('POST', '/usage', { key: DEMO_KEYS.free, used: 98 });
		expect((await h.decide(DEMO_KEYS.free, 'ticket-routing', { input: 'hello' })).json.status).toBe(
			'uncertain',
		);
		expect((await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket)).json.status).toBe('ok');
		expect((await h.usage(DEMO_KEYS.free)).used).toBe(100);

		const refused = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		expect(refused.status).toBe(429);
		expect(refused.json.error.code).toBe('quota_exceeded');
		const details = quotaExceededDetailsSchema.parse(refused.json.error.details);
		expect(details).toMatchObject({ used: 100, quota: 100 });
		expect(details.upgrade_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
		expect(refused.headers['retry-after']).toBe(String(details.retry_after));
		const { now } = await h.control('GET', '/clock');
		const date = new Date(now);
		const nextMonth = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
		expect(
			Math.abs(details.retry_after - Math.ceil((nextMonth - date.getTime()) / 1000)),
		).toBeLessThanOrEqual(2);
		// Reads still work at the quota; the refusal consumed no rate budget.
		expect((await h.api('GET', '/decisions', { key: DEMO_KEYS.free })).status).toBe(200);
		expect((await h.usage(DEMO_KEYS.free)).used).toBe(100);
		// Accounts are separate.
		expect((await h.decide(DEMO_KEYS.starter, 'ticket-routing', ticket)).status).toBe(200);
	});

	it('the quota resets on the first day of the next UTC month', async () => {
		await h.control('POST', '/clock', { set: '2031-01-31T23:59:50Z' });
		await h.control('POST', '/usage', { key: DEMO_KEYS.free, used: 100 });
		const refused = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		expect(refused.status).toBe(429);
		expect(refused.json.error.details.retry_after).toBeGreaterThanOrEqual(1);
		expect(refused.json.error.details.retry_after).toBeLessThanOrEqual(11);
		expect((await h.usage(DEMO_KEYS.free)).period).toBe('2031-01');

		await h.control('POST', '/clock', { advance_ms: 15_000 });
		const after = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		expect(after.status).toBe(200);
		expect(await h.usage(DEMO_KEYS.free)).toMatchObject({ period: '2031-02', used: 1, quota: 100 });
	});
});

describe('feedback and retention', () => {
	it('feedback on a run: 200 with the record, stored on the run; note optional; empty feedback 400', async () => {
		const run = await h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket);
		const path = `/runs/${run.json.run_id}/feedback`;
		const answer = await h.api('POST', path, {
			key: DEMO_KEYS.pro,
			body: { feedback: 'correct', note: 'checked' },
		});
		expect(answer.status).toBe(200);
		expect(answer.json).toEqual({ run_id: run.json.run_id, feedback: 'correct', note: 'checked' });
		const stored = await h.control('GET', `/runs/${run.json.run_id}?key=${DEMO_KEYS.pro}`);
		expect(stored.feedback).toMatchObject({ feedback: 'correct', note: 'checked' });
		expect(stored.response.run_id).toBe(run.json.run_id);

		const noNote = await h.api('POST', path, {
			key: DEMO_KEYS.pro,
			body: { feedback: 'technical' },
		});
		expect(noNote.json).toEqual({ run_id: run.json.run_id, feedback: 'technical' });
		const empty = await h.api('POST', path, {
			key: DEMO_KEYS.pro,
			body: { feedback: '  ', note: 'x' },
		});
		expect(empty.status).toBe(400);
		expect(empty.json.error.details[0].field).toBe('feedback');
	});

	it('unknown run, or a run of another account, is 404 run_not_found', async () => {
		const run = await h.decide(DEMO_KEYS.pro, 'ticket-routing', ticket);
		const unknown = await h.api('POST', '/runs/run_nope/feedback', {
			key: DEMO_KEYS.pro,
			body: { feedback: 'correct' },
		});
		expect(unknown.status).toBe(404);
		expect(unknown.json.error.code).toBe('run_not_found');
		const other = await h.api('POST', `/runs/${run.json.run_id}/feedback`, {
			key: DEMO_KEYS.scale,
			body: { feedback: 'correct' },
		});
		expect(other.status).toBe(404);
	});

	it('runs are purged after 7 days on Free and 30 days on paid plans', async () => {
		const free = await h.decide(DEMO_KEYS.free, 'ticket-routing', ticket);
		const starter = await h.decide(DEMO_KEYS.starter, 'ticket-routing', ticket);
		const feedback = (key: string, runId: string) =>
			h.api('POST', `/runs/${runId}/feedback`, { key, body: { feedback: 'correct' } });

		await h.control('POST', '/clock', { advance_ms: 6 * DAY });
		expect((await feedback(DEMO_KEYS.free, free.json.run_id)).status).toBe(200);
		await h.control('POST', '/clock', { advance_ms: 2 * DAY });
		const purged = await feedback(DEMO_KEYS.free, free.json.run_id);
		expect(purged.status).toBe(404);
		expect(purged.json.error.code).toBe('run_not_found');
		expect(h.sandbox.store.findRun(free.json.run_id)).toBeUndefined();
		expect((await feedback(DEMO_KEYS.starter, starter.json.run_id)).status).toBe(200);

		await h.control('POST', '/clock', { advance_ms: 23 * DAY });
		expect((await feedback(DEMO_KEYS.starter, starter.json.run_id)).status).toBe(404);
	});
});
