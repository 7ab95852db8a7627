/**
 * The scheduler (src/client/rate-gate.ts under the client and forEachBounded, as the node runs
 * them) on a virtual clock, against a simulated fixed-window service that counts a request when it
 * arrives and writes its headers when it answers, as the sandbox does. Each scenario asserts what
 * is sent when: the virtual times of the requests, per window, never a wall-clock duration.
 */
import {
	ConcurrencyLimiter,
	DEFAULT_MAX_CONCURRENCY,
	DecisionClient,
	MAX_IN_FLIGHT,
	RateGate,
	RateLimitedError,
	forEachBounded,
	type Transport,
} from '../../src/client';

/** Timers on a virtual clock: time moves only when every promise has settled. */
class VirtualTime {
	now = 0;
	private timers: Array<{ at: number; seq: number; fire: () => void }> = [];
	private seq = 0;

	sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
		new Promise((resolve, reject) => {
			const timer = { at: this.now + Math.max(0, ms), seq: this.seq++, fire: resolve };
			this.timers.push(timer);
			signal?.addEventListener('abort', () => {
				this.timers = this.timers.filter((other) => other !== timer);
				reject(new Error('aborted'));
			});
		});

	/** Runs the clock until `work` settles; throws if it waits with nothing scheduled. */
	async run<T>(work: Promise<T>): Promise<T> {
		let settled = false;
		const watched = work.finally(() => (settled = true));
		watched.catch(() => undefined);
		for (;;) {
			for (let index = 0; index < 4; index++) await new Promise((done) => setImmediate(done));
			if (settled) return watched;
			if (!this.timers.length) throw new Error(`nothing scheduled at ${this.now} ms`);
			this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
			const at = this.timers[0].at;
			this.now = at;
			while (this.timers.length && this.timers[0].at === at) this.timers.shift()!.fire();
		}
	}
}

interface Sent {
	at: number;
	status: number;
}

/**
 * A key's fixed window as the sandbox keeps it: a window starts at the first request after the
 * previous one ended; a request over the budget gets 429 at once (Retry-After: seconds to the
 * reset, rounded up); an accepted one is answered after `latency`, with X-RateLimit-* as of then.
 */
class FixedWindowService {
	readonly sent: Sent[] = [];
	private start?: number;
	private count = 0;

	/** How many requests were sent at each virtual instant, and its order among them (for sendCostMs). */
	private readonly sentAtInstant = new Map<number, { count: number; ordinal: number }>();

	constructor(
		private readonly time: VirtualTime,
		private readonly limit: number,
		private readonly windowMs: number,
		private readonly latency: (index: number) => number = () => 800,
		/**
		 * As in n8n, a request reaches the service only after the synchronous work of every request
		 * sent with it: each request sent at one instant arrives at that instant + their number ×
		 * this (ms per request; `instant`: 0 for the first instant requests were sent at, 1 for the
		 * next…, as a process's first burst runs colder code).
		 */
		private readonly sendCostMs: (instant: number) => number = () => 0,
	) {}

	/** Requests from elsewhere (another process on the key), counted like ours. */
	spend(count: number): void {
		for (let index = 0; index < count; index++) this.take();
	}

	transport: Transport = async () => {
		const sentAt = this.time.now;
		let instant = this.sentAtInstant.get(sentAt);
		if (!instant) {
			instant = { count: 0, ordinal: this.sentAtInstant.size };
			this.sentAtInstant.set(sentAt, instant);
		}
		instant.count += 1;
		const costMs = this.sendCostMs(instant.ordinal);
		if (costMs > 0) {
			await this.time.sleep(0); // every request of this instant is counted first
			await this.time.sleep(instant.count * costMs);
		}
		const at = this.time.now;
		const index = this.sent.length;
		if (!this.take()) {
			const retryAfter = String(Math.max(1, Math.ceil(this.resetMs() / 1000)));
			this.sent.push({ at, status: 429 });
			return {
				status: 429,
				headers: { ...this.headers(), 'retry-after': retryAfter },
				body: JSON.stringify({
					error: { code: 'rate_limited', message: 'Rate limit reached.', details: {} },
				}),
			};
		}
		this.sent.push({ at, status: 200 });
		await this.time.sleep(this.latency(index));
		return {
			status: 200,
			headers: this.headers(),
			body: JSON.stringify({ run_id: `run_${index}`, status: 'ok' }),
		};
	};

	private active(): boolean {
		return this.start !== undefined && this.time.now < this.start + this.windowMs;
	}

	private take(): boolean {
		if (!this.active()) {
			this.start = this.time.now;
			this.count = 0;
		}
		if (this.count >= this.limit) return false;
		this.count += 1;
		return true;
	}

	private resetMs(): number {
		return this.active() ? this.start! + this.windowMs - this.time.now : this.windowMs;
	}

	private headers(): Record<string, string> {
		const remaining = this.active() ? this.limit - this.count : this.limit;
		return {
			'x-ratelimit-limit': String(this.limit),
			'x-ratelimit-remaining': String(remaining),
			'x-ratelimit-reset': String(Math.max(1, Math.ceil(this.resetMs() / 1000))),
		};
	}
}

let keys = 0;

/** A client of a fresh key's gate on the virtual clock, with the node's defaults. */
function clientOf(
	time: VirtualTime,
	service: FixedWindowService,
	options: { key?: string; concurrency?: number; maxRateLimitWaitMs?: number } = {},
) {
	return new DecisionClient({
		baseUrl: 'https://decisions.example/v1',
		transport: service.transport,
		sleep: time.sleep,
		now: () => time.now,
		random: () => 0.5,
		rateGateKey: options.key ?? `virtual-${++keys}`,
		concurrency: options.concurrency,
		maxRateLimitWaitMs: options.maxRateLimitWaitMs,
	});
}

/** Decides `items` as the node does: up to Max Concurrency at a time; returns the failures. */
async function decideAll(client: DecisionClient, items: number, signal?: AbortSignal) {
	const failures: unknown[] = [];
	await forEachBounded(
		items,
		client.maxConcurrency,
		async (index) => {
			try {
				await client.decide('ticket-routing', `item ${index}`, { signal });
			} catch (error) {
				failures.push(error);
			}
		},
		() => signal?.aborted === true,
	);
	return failures;
}

/**
 * Requests accepted per window of the service, rebuilt as it counts them: a window starts at the
 * first accepted request after the previous one ended.
 */
function perWindow(sent: Sent[], windowMs: number): number[] {
	const counts: number[] = [];
	let end = -Infinity;
	for (const request of sent.filter((each) => each.status === 200)) {
		if (request.at >= end) {
			counts.push(0);
			end = request.at + windowMs;
		}
		counts[counts.length - 1] += 1;
	}
	return counts;
}

const times = (sent: Sent[]) => [...new Set(sent.map((request) => request.at))];
const MINUTE = 60_000;
const MARGIN = 50;
/** A window requests waited for opens with its first request alone, the rest this much later. */
const ALONE = RateGate.firstAloneMs;

describe('Max Concurrency', () => {
	it('defaults to the largest plan’s window budget, within the ceiling', () => {
		expect(DEFAULT_MAX_CONCURRENCY).toBe(600);
		expect(MAX_IN_FLIGHT).toBeGreaterThanOrEqual(DEFAULT_MAX_CONCURRENCY);
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 600, MINUTE);
		expect(clientOf(time, service).maxConcurrency).toBe(600);
		expect(clientOf(time, service, { concurrency: 5_000 }).maxConcurrency).toBe(MAX_IN_FLIGHT);
		expect(() => clientOf(time, service, { concurrency: 0 })).toThrow(RangeError);
	});
});

describe('the scheduler: budget left in the window', () => {
	it('a run of 1 item: one request at once, done in one answer’s time', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 600, MINUTE);
		const client = clientOf(time, service);
		expect(await time.run(decideAll(client, 1))).toEqual([]);
		expect(service.sent).toEqual([{ at: 0, status: 200 }]);
		expect(time.now).toBe(800);
	});

	it('the budget covers the run: all 10, then all 100, sent before any answer, even with nothing known', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 600, MINUTE);
		const client = clientOf(time, service);
		await time.run(decideAll(client, 10));
		expect(times(service.sent)).toEqual([0]);
		expect(service.sent).toHaveLength(10);
		const second = new FixedWindowService(time, 600, MINUTE);
		const fresh = clientOf(time, second);
		const started = time.now;
		expect(await time.run(decideAll(fresh, 100))).toEqual([]);
		expect(times(second.sent)).toEqual([started]);
		expect(second.sent.every((request) => request.status === 200)).toBe(true);
		expect(time.now - started).toBe(800);
	});

	it('one window’s budget (600) at once, with the default Max Concurrency', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 600, MINUTE);
		expect(await time.run(decideAll(clientOf(time, service), 600))).toEqual([]);
		expect(times(service.sent)).toEqual([0]);
		expect(service.sent.filter((request) => request.status === 200)).toHaveLength(600);
		expect(time.now).toBe(800);
	});

	it('the budget does not cover the run: the window’s budget now, the rest at each reset, window by window', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 30, MINUTE);
		const client = clientOf(time, service, { key: 'free-run' });
		// The plan is learned on a first, small run; then 100 items on a Free key (30 a window).
		await time.run(decideAll(client, 1));
		time.now = MINUTE + MARGIN; // the window of that run has ended
		const start = time.now;
		expect(await time.run(decideAll(client, 100))).toEqual([]);
		const ours = service.sent.slice(1);
		// 30, 30, 30 and 10, each batch when its window opens (its first request alone, the rest
		// 25 ms later); not one 429.
		expect(ours.every((request) => request.status === 200)).toBe(true);
		expect(times(ours).map((at) => at - start)).toEqual([
			0,
			MINUTE + MARGIN,
			MINUTE + MARGIN + ALONE,
			2 * (MINUTE + MARGIN),
			2 * (MINUTE + MARGIN) + ALONE,
			3 * (MINUTE + MARGIN),
			3 * (MINUTE + MARGIN) + ALONE,
		]);
		expect(perWindow(ours, MINUTE)).toEqual([30, 30, 30, 10]);
		// Makespan: (windows − 1) × window + one answer, plus the margin and the first request's
		// lead at each reset.
		expect(time.now - start).toBe(3 * (MINUTE + MARGIN) + ALONE + 800);
	});

	it('with nothing known, the excess over a small plan’s budget gets a free 429, waited out to the reset', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 30, MINUTE);
		const client = clientOf(time, service);
		expect(await time.run(decideAll(client, 100))).toEqual([]);
		const first = service.sent.filter((request) => request.at === 0);
		expect(first).toHaveLength(100);
		expect(first.filter((request) => request.status === 200)).toHaveLength(30);
		// Nothing more until the window resets; then the budget at once, window by window.
		const later = service.sent.filter((request) => request.at > 0);
		expect(Math.min(...later.map((request) => request.at))).toBeGreaterThanOrEqual(MINUTE);
		expect(later.every((request) => request.status === 200)).toBe(true);
		expect(perWindow(service.sent, MINUTE)).toEqual([30, 30, 30, 10]);
		expect(time.now).toBeLessThanOrEqual(3 * (MINUTE + MARGIN) + 800);
	});

	it('several runs at once share the key’s budget: never more than it per window, no 429', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 60, MINUTE);
		const key = 'shared-starter';
		await time.run(decideAll(clientOf(time, service, { key }), 1));
		time.now = MINUTE + MARGIN;
		const start = time.now;
		const runs = [40, 40, 25].map((items) => decideAll(clientOf(time, service, { key }), items));
		const failures = await time.run(Promise.all(runs));
		expect(failures.flat()).toEqual([]);
		const ours = service.sent.slice(1);
		expect(ours).toHaveLength(105);
		expect(ours.every((request) => request.status === 200)).toBe(true);
		expect(times(ours).map((at) => at - start)).toEqual([
			0,
			MINUTE + MARGIN,
			MINUTE + MARGIN + ALONE,
		]);
		expect(perWindow(ours, MINUTE)).toEqual([60, 45]);
	});

	it('a 429 arrives anyway (another process spent the budget): waited out, nothing reaches the caller', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 60, MINUTE);
		const key = 'other-process';
		const client = clientOf(time, service, { key });
		await time.run(decideAll(client, 1));
		time.now = MINUTE + MARGIN;
		const start = time.now;
		// Another process takes 50 of the window's 60 before our run: ours expects 60 left.
		service.spend(50);
		const failures = await time.run(decideAll(client, 30));
		expect(failures).toEqual([]);
		const ours = service.sent.slice(1);
		expect(ours.filter((request) => request.status === 200)).toHaveLength(30);
		expect(ours.filter((request) => request.status === 429)).toHaveLength(20);
		// The 429s hold every request of the key until the window resets (Retry-After: 60 s).
		expect(times(ours.filter((request) => request.status === 429))).toEqual([start]);
		const retried = ours.filter((request) => request.at > start);
		expect(Math.min(...retried.map((request) => request.at))).toBe(start + MINUTE);
		expect(retried.every((request) => request.status === 200)).toBe(true);
	});

	it('a burst that takes long to leave (n8n’s work per request): the next window opens with one request, refused alone until the service’s turns', async () => {
		const time = new VirtualTime();
		// Requests sent at once reach the service 0.1 ms × their number after they were sent; the
		// run's first burst (colder code) 1 ms × their number: its 600 arrive 600 ms late, later
		// windows' 60 ms late. The key's budget is known from an earlier run. (Sent with the rest,
		// the second window's first request would arrive 60 ms after it was sent: the whole burst
		// would be refused, as the gate's estimate of the end is 150 ms early here.)
		const service = new FixedWindowService(
			time,
			600,
			MINUTE,
			() => 800,
			(instant) => (instant === 1 ? 1 : 0.1),
		);
		const client = clientOf(time, service);
		await time.run(decideAll(client, 1));
		time.now = 2 * MINUTE;
		const start = time.now;
		expect(await time.run(decideAll(client, 1_800))).toEqual([]);
		const ours = service.sent.slice(1);
		const accepted = ours.filter((request) => request.status === 200);
		expect(accepted).toHaveLength(1_800);
		expect(perWindow(ours, MINUTE)).toEqual([600, 600, 600]);
		expect(accepted[0].at).toBe(start + 600);
		// The first burst reached the service 600 ms late, so the gate's estimate of that window's
		// end came too soon: the second window's first request is refused, alone, every 50 ms until
		// the service's window turns (each 429 costs nothing), never a whole burst.
		const refused = ours.filter((request) => request.status === 429);
		expect(refused.length).toBeGreaterThan(0);
		expect(refused.length).toBeLessThanOrEqual(600 / MARGIN + 1);
		expect(new Set(times(refused)).size).toBe(refused.length);
		const second = accepted[600].at;
		expect(second).toBeGreaterThanOrEqual(start + MINUTE + 600);
		expect(second).toBeLessThan(start + MINUTE + 600 + MARGIN + 1);
		// That window's first request went alone, so its start is exact: the third opens without a 429.
		expect(refused.every((request) => request.at < second)).toBe(true);
		expect(accepted[1_200].at - second).toBeLessThanOrEqual(MINUTE + MARGIN + 1);
	});

	it('a long run is not failed by Max Wait on Rate Limit while its key moves window by window', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 30, MINUTE);
		const client = clientOf(time, service, { maxRateLimitWaitMs: 90_000 });
		// 150 items: the last ones wait four windows, longer than the 90 s wait budget.
		expect(await time.run(decideAll(client, 150))).toEqual([]);
		expect(service.sent.filter((request) => request.status === 200)).toHaveLength(150);
	});

	it('a key that lets nothing through fails after Max Wait on Rate Limit, as rate_limited', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 30, MINUTE);
		service.spend(30);
		const client = clientOf(time, service, { maxRateLimitWaitMs: 30_000 });
		const failures = await time.run(decideAll(client, 3));
		expect(failures).toHaveLength(3);
		for (const failure of failures) expect(failure).toBeInstanceOf(RateLimitedError);
	});

	it('Stop while requests wait for the reset: nothing more is sent', async () => {
		const time = new VirtualTime();
		const service = new FixedWindowService(time, 30, MINUTE);
		const client = clientOf(time, service);
		const stop = new AbortController();
		const run = decideAll(client, 100, stop.signal);
		void time.sleep(10_000).then(() => stop.abort());
		const failures = await time.run(run);
		expect(failures).toHaveLength(70);
		expect(service.sent.filter((request) => request.at > 0)).toEqual([]);
	});
});

describe('ConcurrencyLimiter and forEachBounded', () => {
	it('ConcurrencyLimiter lets waiting tasks in as others end, in order', async () => {
		const limiter = new ConcurrencyLimiter(3);
		const started: number[] = [];
		const gates: Array<() => void> = [];
		const tasks = Array.from({ length: 6 }, (_, index) =>
			limiter.run(async () => {
				started.push(index);
				await new Promise<void>((resolve) => gates.push(resolve));
			}),
		);
		await new Promise((resolve) => setImmediate(resolve));
		expect(started).toEqual([0, 1, 2]);
		gates.shift()!();
		await new Promise((resolve) => setImmediate(resolve));
		expect(started).toEqual([0, 1, 2, 3]);
		while (gates.length) {
			gates.shift()!();
			await new Promise((resolve) => setImmediate(resolve));
		}
		await Promise.all(tasks);
		expect(started).toEqual([0, 1, 2, 3, 4, 5]);
	});

	it('forEachBounded keeps at most its limit running and starts none after stop', async () => {
		let running = 0;
		let peak = 0;
		const ran: number[] = [];
		await forEachBounded(
			20,
			4,
			async (index) => {
				running += 1;
				peak = Math.max(peak, running);
				ran.push(index);
				await new Promise((resolve) => setImmediate(resolve));
				running -= 1;
			},
			() => ran.length >= 15,
		);
		expect(peak).toBe(4);
		expect(ran).toHaveLength(15);
		expect(() => forEachBounded(1, 0, async () => undefined)).rejects.toThrow(RangeError);
	});
});
