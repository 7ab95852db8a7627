/**
 * Injected latency drawn from a range (`latency_max_ms`): the draws, a fallback mix, and answers
 * left as they were. Holds (`hold_until`): requests held until enough arrived, or the max wait.
 */
import { RATE_LIMIT_HEADERS } from '../../src/contract';
import { FaultInjector, type FaultRule } from '../../sandbox/faults';
import { startSandbox } from '../../sandbox/server';
import { DEMO_KEYS, Harness, useHarness, type Answer } from './helpers';

const h = useHarness();

/** The waits the injector gives `count` decides, in order (0 when no rule fires). */
function waits(rules: FaultRule[], seed: number, count: number): number[] {
	const injector = new FaultInjector();
	injector.set(rules, seed);
	return Array.from(
		{ length: count },
		() => injector.next('POST', '/v1/decide/ticket-routing')?.latencyMs ?? 0,
	);
}

/** 10 % of decides wait 3–5 s (a fallback after a primary-engine timeout), the others 600 ms. */
const FALLBACK_MIX: FaultRule[] = [
	{
		method: 'POST',
		path: '^/v1/decide/',
		probability: 0.1,
		latency_ms: 3000,
		latency_max_ms: 5000,
	},
	{ method: 'POST', path: '^/v1/decide/', latency_ms: 600 },
];

describe('latency drawn from a range', () => {
	it('latency_max_ms draws whole milliseconds across [latency_ms, latency_max_ms]; the seed repeats them', () => {
		const rule: FaultRule = { latency_ms: 3000, latency_max_ms: 5000 };
		const drawn = waits([rule], 7, 2000);
		for (const wait of drawn) {
			expect(Number.isInteger(wait)).toBe(true);
			expect(wait).toBeGreaterThanOrEqual(3000);
			expect(wait).toBeLessThanOrEqual(5000);
		}
		// Spread over the range, not stuck at one end: each quarter of it gets a share.
		for (let quarter = 0; quarter < 4; quarter += 1) {
			const inQuarter = drawn.filter(
				(wait) =>
					wait >= 3000 + quarter * 500 &&
					wait < 3000 + (quarter + 1) * 500 + (quarter === 3 ? 1 : 0),
			).length;
			expect(inQuarter).toBeGreaterThan(400);
			expect(inQuarter).toBeLessThan(600);
		}
		expect(waits([rule], 7, 2000)).toEqual(drawn);
		expect(waits([rule], 8, 2000)).not.toEqual(drawn);
	});

	it('without latency_max_ms the wait is latency_ms every time; alone, latency_max_ms draws from 0', () => {
		expect(new Set(waits([{ latency_ms: 600 }], 1, 100))).toEqual(new Set([600]));
		const fromZero = waits([{ latency_max_ms: 10 }], 1, 500);
		expect(Math.min(...fromZero)).toBe(0);
		expect(Math.max(...fromZero)).toBe(10);
	});

	it('two rules make the fallback mix: about 10 % at 3–5 s, every other decide at 600 ms', () => {
		const drawn = waits(FALLBACK_MIX, 1, 5000);
		const slow = drawn.filter((wait) => wait !== 600);
		for (const wait of slow) {
			expect(wait).toBeGreaterThanOrEqual(3000);
			expect(wait).toBeLessThanOrEqual(5000);
		}
		expect(slow.length / drawn.length).toBeGreaterThan(0.08);
		expect(slow.length / drawn.length).toBeLessThan(0.12);
		// Only decides: the rules name their method and path.
		const injector = new FaultInjector();
		injector.set(FALLBACK_MIX, 1);
		expect(injector.next('GET', '/v1/decisions')).toBeUndefined();
	});

	it('the control surface keeps latency_max_ms and refuses one below latency_ms, naming the field', async () => {
		const set = await h.control('POST', '/faults', { seed: 3, rules: FALLBACK_MIX });
		expect(set.rules[0]).toMatchObject({ latency_ms: 3000, latency_max_ms: 5000, fired: 0 });
		const bad = await h.call('POST', `${h.sandbox.origin}/_control/faults`, {
			body: { rules: [{ latency_ms: 800, latency_max_ms: 600 }] },
		});
		expect(bad.status).toBe(400);
		expect(bad.json.error.code).toBe('invalid_request');
		expect(bad.json.error.details[0].field).toBe('rules.0.latency_max_ms');
		const tooLong = await h.call('POST', `${h.sandbox.origin}/_control/faults`, {
			body: { rules: [{ latency_max_ms: 120_001 }] },
		});
		expect(tooLong.status).toBe(400);
		expect(tooLong.json.error.details[0].field).toBe('rules.0.latency_max_ms');
	});

	it.each(['arrival', 'engine'] as const)(
		'latency_at %s changes neither the answers nor the rate-limit headers nor what is counted',
		async (latencyAt) => {
			const inputs = ['export my data', 'limited offer inside', 'where is my invoice'].map(
				(text) => ({ input: { text } }),
			);
			// A one-minute window holds the Starter plan's 60: the 61st decide is refused.
			const sixtyOne = async (): Promise<Answer[]> => {
				const answers: Answer[] = [];
				for (let index = 0; index < 61; index += 1)
					answers.push(await h.decide(DEMO_KEYS.starter, 'content-labels', inputs[index % 3]));
				return answers;
			};
			const comparable = (answer: Answer) => {
				// What differs between any two runs of the same input: its id, its time, its measured latency.
				const rest = { ...(answer.json as Record<string, unknown>) };
				for (const field of ['run_id', 'created_at', 'latency_ms']) delete rest[field];
				return {
					status: answer.status,
					limit: answer.headers[RATE_LIMIT_HEADERS.limit],
					remaining: answer.headers[RATE_LIMIT_HEADERS.remaining],
					hasReset: RATE_LIMIT_HEADERS.reset in answer.headers,
					retryAfter: RATE_LIMIT_HEADERS.retryAfter in answer.headers,
					body: answer.status === 200 ? rest : (rest.error as { code: string }).code,
				};
			};
			const plain = (await sixtyOne()).map(comparable);
			await h.reset();
			// Short waits, so that the test stays quick; the draw is the same code as for seconds.
			await h.control('POST', '/faults', {
				seed: 5,
				rules: [
					{
						method: 'POST',
						path: '^/v1/decide/',
						probability: 0.3,
						latency_ms: 2,
						latency_max_ms: 6,
						latency_at: latencyAt,
					},
					{ method: 'POST', path: '^/v1/decide/', latency_ms: 1, latency_at: latencyAt },
				],
			});
			const delayed = (await sixtyOne()).map(comparable);
			expect(delayed).toEqual(plain);
			expect(plain[59]).toMatchObject({ status: 200, limit: '60', remaining: '0' });
			expect(plain[60]).toMatchObject({ status: 429, body: 'rate_limited', retryAfter: true });
			expect((await h.usage(DEMO_KEYS.starter)).used).toBe(60);
			const fired = (await h.control('GET', '/faults')).rules.map(
				(rule: { fired: number }) => rule.fired,
			);
			expect(fired[0]).toBeGreaterThan(0);
			expect(fired[0] + fired[1]).toBe(61);
		},
	);

	it('latency_at engine: a decide takes its rate unit on arrival; a 429 and an invalid body come back while it waits', async () => {
		// Only the first decide waits, long enough that everything below happens meanwhile.
		await h.control('POST', '/faults', {
			rules: [
				{ method: 'POST', path: '^/v1/decide/', latency_ms: 8_000, latency_at: 'engine', times: 1 },
			],
		});
		let slowAnswered = false;
		const slow = h
			.decide(DEMO_KEYS.starter, 'content-labels', { input: { text: 'export my data' } })
			.finally(() => (slowAnswered = true));
		// Counted once it arrived, not once it is answered (polled: the request is on its way).
		for (let attempt = 0; attempt < 200; attempt += 1) {
			if ((await h.usage(DEMO_KEYS.starter)).rate.remaining === 59) break;
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		expect((await h.usage(DEMO_KEYS.starter)).rate.remaining).toBe(59);
		expect(slowAnswered).toBe(false);
		const invalid = await h.decide(DEMO_KEYS.starter, 'content-labels', { nope: true });
		expect(invalid.status).toBe(400);
		for (let index = 0; index < 59; index += 1)
			expect(
				(await h.decide(DEMO_KEYS.starter, 'content-labels', { input: { text: `n ${index}` } }))
					.status,
			).toBe(200);
		const refused = await h.decide(DEMO_KEYS.starter, 'content-labels', {
			input: { text: 'one too many' },
		});
		expect(refused.status).toBe(429);
		expect(slowAnswered).toBe(false);
		const answer = await slow;
		expect(answer.status).toBe(200);
		expect(answer.headers[RATE_LIMIT_HEADERS.remaining]).toBe('0');
		expect((await h.usage(DEMO_KEYS.starter)).used).toBe(60);
	});

	it('latency_at arrival (the default): the rate unit is taken after the wait', async () => {
		await h.control('POST', '/faults', {
			rules: [{ method: 'POST', path: '^/v1/decide/', latency_ms: 2_000, times: 1 }],
		});
		const slow = h.decide(DEMO_KEYS.starter, 'content-labels', {
			input: { text: 'export my data' },
		});
		// While it waits, nothing is counted; once answered, its unit is.
		expect((await h.usage(DEMO_KEYS.starter)).rate.remaining).toBe(60);
		expect((await slow).headers[RATE_LIMIT_HEADERS.remaining]).toBe('59');
		expect((await h.control('GET', '/faults')).rules[0].latency_at).toBeUndefined();
	});
});

describe('hold_until: requests held until enough arrived', () => {
	const DECIDES = { method: 'POST', path: '^/v1/decide/' };
	const labels = (text: string) => ({ input: { text } });

	/** Polls the control surface until rule 0 holds `count` requests (bounded: they are on their way). */
	async function untilHeld(harness: Harness, count: number): Promise<void> {
		for (let attempt = 0; attempt < 3000; attempt += 1) {
			if ((await harness.control('GET', '/faults')).rules[0].held === count) return;
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		throw new Error(`rule 0 never held ${count} requests`);
	}

	/**
	 * Watches the timers of holds whose max wait is `maxWaitMs` (told from others by their delay:
	 * the harness's own sockets set timers too): how many were set and not cleared.
	 */
	function watchHoldTimers(maxWaitMs: number): { pending(): number; restore(): void } {
		const set = jest.spyOn(global, 'setTimeout');
		const clear = jest.spyOn(global, 'clearTimeout');
		return {
			pending: () =>
				set.mock.calls.filter(
					(call, index) =>
						call[1] === maxWaitMs &&
						!clear.mock.calls.some(([handle]) => handle === set.mock.results[index].value),
				).length,
			restore() {
				set.mockRestore();
				clear.mockRestore();
			},
		};
	}

	it('N-1 decides stay unanswered until the Nth arrives, then all are answered; later ones pass', async () => {
		// The max wait is never reached: it is longer than the test's own timeout.
		await h.control('POST', '/faults', {
			rules: [{ ...DECIDES, hold_until: { arrivals: 5, max_wait_ms: 120_000 } }],
		});
		const events: string[] = [];
		const first = [1, 2, 3, 4].map((index) =>
			h.decide(DEMO_KEYS.starter, 'content-labels', labels(`n ${index}`)).then((answer) => {
				events.push(`answer ${index}`);
				return answer;
			}),
		);
		await untilHeld(h, 4);
		expect(events).toEqual([]);
		// Held on arrival, before the rate limit: nothing counted yet.
		expect((await h.usage(DEMO_KEYS.starter)).rate.remaining).toBe(60);
		expect((await h.control('GET', '/faults')).rules[0]).toMatchObject({
			fired: 4,
			held: 4,
			released_by: null,
		});

		events.push('fifth sent');
		const fifth = await h.decide(DEMO_KEYS.starter, 'content-labels', labels('n 5'));
		const answers = [...(await Promise.all(first)), fifth];
		expect(events[0]).toBe('fifth sent');
		expect([...events.slice(1)].sort()).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 4']);
		expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
		expect((await h.usage(DEMO_KEYS.starter)).used).toBe(5);
		expect((await h.control('GET', '/faults')).rules[0]).toMatchObject({
			fired: 5,
			held: 0,
			released_by: 'arrivals',
		});

		// The hold is over: a sixth decide is answered without waiting for the (two-minute) max wait.
		expect((await h.decide(DEMO_KEYS.starter, 'content-labels', labels('n 6'))).status).toBe(200);
		expect((await h.control('GET', '/faults')).rules[0]).toMatchObject({ fired: 6, held: 0 });
	});

	it('max_wait_ms releases the held requests when the count is never reached: answered as without the hold', async () => {
		await h.control('POST', '/faults', {
			rules: [{ ...DECIDES, hold_until: { arrivals: 10, max_wait_ms: 50 } }],
		});
		const answers = await Promise.all(
			['export my data', 'limited offer inside'].map((text) =>
				h.decide(DEMO_KEYS.starter, 'content-labels', labels(text)),
			),
		);
		expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
		expect((await h.usage(DEMO_KEYS.starter)).used).toBe(2);
		expect((await h.control('GET', '/faults')).rules[0]).toMatchObject({
			fired: 2,
			held: 0,
			released_by: 'max_wait',
		});
		await h.control('DELETE', '/faults');
		const unheld = await h.decide(DEMO_KEYS.starter, 'content-labels', labels('export my data'));
		expect(answers[0].json.labels).toEqual(unheld.json.labels);
	});

	it('counted per rule; the max wait runs from the first held request (virtual timers)', async () => {
		jest.useFakeTimers();
		const timers = watchHoldTimers(1_000);
		try {
			const injector = new FaultInjector();
			injector.set([
				{ ...DECIDES, hold_until: { arrivals: 2, max_wait_ms: 1_000 } },
				{ method: 'GET', hold_until: { arrivals: 2, max_wait_ms: 2_000 } },
			]);
			const released: string[] = [];
			const arrive = (method: string, path: string, name: string) =>
				injector.next(method, path)?.hold?.then(() => released.push(name));
			const settle = () => jest.advanceTimersByTimeAsync(0);

			arrive('POST', '/v1/decide/content-labels', 'decide 1');
			arrive('GET', '/v1/decisions', 'get 1');
			await settle();
			expect(released).toEqual([]);
			expect(timers.pending()).toBe(1);
			// The second decide reaches the decides' count; the GET rule still holds its one.
			arrive('POST', '/v1/decide/content-labels', 'decide 2');
			await settle();
			expect(released).toEqual(['decide 1', 'decide 2']);
			expect(timers.pending()).toBe(0);
			expect(injector.describe().rules.map((rule) => [rule.held, rule.released_by])).toEqual([
				[0, 'arrivals'],
				[1, null],
			]);
			await jest.advanceTimersByTimeAsync(1_999);
			expect(released).toEqual(['decide 1', 'decide 2']);
			await jest.advanceTimersByTimeAsync(1);
			expect(released).toEqual(['decide 1', 'decide 2', 'get 1']);
			expect(injector.describe().rules[1]).toMatchObject({ held: 0, released_by: 'max_wait' });
			// The hold is over: a later GET passes at once.
			arrive('GET', '/v1/decisions', 'get 2');
			await settle();
			expect(released).toEqual(['decide 1', 'decide 2', 'get 1', 'get 2']);
		} finally {
			timers.restore();
			jest.useRealTimers();
		}
	});

	it('replacing the rules or closing releases the held requests and leaves no timer behind (virtual timers)', async () => {
		jest.useFakeTimers();
		const timers = watchHoldTimers(60_000);
		try {
			const injector = new FaultInjector();
			const rule = { ...DECIDES, hold_until: { arrivals: 3, max_wait_ms: 60_000 } };
			const released: string[] = [];
			const arrive = (name: string) =>
				injector.next('POST', '/v1/decide/x')?.hold?.then(() => released.push(name));
			const settle = () => jest.advanceTimersByTimeAsync(0);

			injector.set([rule]);
			arrive('before set');
			await settle();
			expect(released).toEqual([]);
			expect(timers.pending()).toBe(1);
			injector.set([rule]);
			await settle();
			expect(released).toEqual(['before set']);
			expect(timers.pending()).toBe(0);

			arrive('before close');
			await settle();
			expect(timers.pending()).toBe(1);
			injector.close();
			await settle();
			expect(released).toEqual(['before set', 'before close']);
			expect(timers.pending()).toBe(0);
			// Once closed, nothing is held, even under rules set afterwards.
			injector.set([rule]);
			arrive('after close');
			await settle();
			expect(released).toEqual(['before set', 'before close', 'after close']);
			expect(timers.pending()).toBe(0);
		} finally {
			timers.restore();
			jest.useRealTimers();
		}
	});

	it('DELETE /_control/faults and closing the sandbox release held requests and stop their timers', async () => {
		const timers = watchHoldTimers(120_000);
		const own = new Harness(await startSandbox({ port: 0 }));
		let closed = false;
		try {
			await h.control('POST', '/faults', {
				rules: [{ ...DECIDES, hold_until: { arrivals: 10, max_wait_ms: 120_000 } }],
			});
			const held = [1, 2].map((index) =>
				h.decide(DEMO_KEYS.starter, 'content-labels', labels(`n ${index}`)),
			);
			await untilHeld(h, 2);
			expect(timers.pending()).toBe(1);
			await h.control('DELETE', '/faults');
			expect((await Promise.all(held)).map((answer) => answer.status)).toEqual([200, 200]);
			expect(timers.pending()).toBe(0);

			await own.control('POST', '/faults', {
				rules: [{ ...DECIDES, hold_until: { arrivals: 10, max_wait_ms: 120_000 } }],
			});
			const pending = own.decide(DEMO_KEYS.starter, 'content-labels', labels('n 1'));
			await untilHeld(own, 1);
			expect(timers.pending()).toBe(1);
			await own.close();
			closed = true;
			// Answered or cut off by the close, but settled, and no timer keeps the process alive.
			await Promise.allSettled([pending]);
			expect(timers.pending()).toBe(0);
		} finally {
			timers.restore();
			if (!closed) await own.close();
		}
	});

	it.each([
		[{ arrivals: 0, max_wait_ms: 1000 }, 'rules.0.hold_until.arrivals'],
		[{ arrivals: 2.5, max_wait_ms: 1000 }, 'rules.0.hold_until.arrivals'],
		[{ max_wait_ms: 1000 }, 'rules.0.hold_until.arrivals'],
		[{ arrivals: 5 }, 'rules.0.hold_until.max_wait_ms'],
		[{ arrivals: 5, max_wait_ms: 0 }, 'rules.0.hold_until.max_wait_ms'],
		[{ arrivals: 5, max_wait_ms: 120_001 }, 'rules.0.hold_until.max_wait_ms'],
		[{ arrivals: 5, max_wait_ms: '1000' }, 'rules.0.hold_until.max_wait_ms'],
		[100, 'rules.0.hold_until'],
	])('refuses hold_until %j, naming %s', async (holdUntil, field) => {
		const bad = await h.call('POST', `${h.sandbox.origin}/_control/faults`, {
			body: { rules: [{ ...DECIDES, hold_until: holdUntil }] },
		});
		expect(bad.status).toBe(400);
		expect(bad.json.error.code).toBe('invalid_request');
		expect(bad.json.error.details.map((detail: { field: string }) => detail.field)).toEqual([
			field,
		]);
		// The rules in place are kept.
		expect((await h.control('GET', '/faults')).rules).toEqual([]);
	});

	it('refuses more arrivals than the rule fires for (times)', async () => {
		const bad = await h.call('POST', `${h.sandbox.origin}/_control/faults`, {
			body: { rules: [{ ...DECIDES, times: 3, hold_until: { arrivals: 4, max_wait_ms: 1000 } }] },
		});
		expect(bad.status).toBe(400);
		expect(bad.json.error.details[0]).toEqual({
			field: 'rules.0.hold_until.arrivals',
			message: 'must be at most times: the rule fires for no more requests than that',
		});
		const fine = await h.control('POST', '/faults', {
			rules: [{ ...DECIDES, times: 4, hold_until: { arrivals: 4, max_wait_ms: 1000 } }],
		});
		expect(fine.rules[0]).toMatchObject({
			hold_until: { arrivals: 4, max_wait_ms: 1000 },
			fired: 0,
			held: 0,
			released_by: null,
		});
	});
});
