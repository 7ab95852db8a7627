/**
 * The adaptive in-flight target (src/client/concurrency.ts) on a virtual clock: a simulated key
 * with a fixed rate window and answers whose latency follows a script, and a client that keeps
 * `target()` requests in flight, as the node does. Each scenario asserts the target it settles on
 * (Little's law: rate × latency × 1.5) and how it gets there (no swinging up and down).
 */
import {
	ConcurrencyController,
	ConcurrencyLimiter,
	INITIAL_IN_FLIGHT,
	MAX_IN_FLIGHT,
	forEachBounded,
	type RateWindowInfo,
} from '../../src/client';
import { mulberry32 } from '../../sandbox/faults';

interface Simulation {
	/** Requests allowed per window (X-RateLimit-Limit); changes take effect at once. */
	limit: (atMs: number) => number;
	windowMs: number;
	/** The latency of a request sent at this virtual time. */
	latency: (sentAtMs: number) => number;
	durationMs: number;
	cap?: number;
}

interface Trace {
	/** The target after each answer, with the virtual time of the answer. */
	targets: Array<{ atMs: number; target: number }>;
	/** Requests answered per window. */
	answered: number;
	peakInFlight: number;
}

/** A discrete-event run: requests start while fewer than the target are in flight and the window has budget. */
function simulate(controller: ConcurrencyController, sim: Simulation): Trace {
	const answers: Array<{ atMs: number; sentAtMs: number }> = [];
	const trace: Trace = { targets: [], answered: 0, peakInFlight: 0 };
	let now = 0;
	let windowStart: number | undefined;
	let used = 0;
	const startRequests = () => {
		for (;;) {
			if (windowStart !== undefined && now >= windowStart + sim.windowMs) {
				windowStart = undefined;
				used = 0;
			}
			if (answers.length >= controller.target(sim.cap)) return;
			if (used >= sim.limit(now)) return;
			windowStart ??= now;
			used += 1;
			answers.push({ atMs: now + sim.latency(now), sentAtMs: now });
			trace.peakInFlight = Math.max(trace.peakInFlight, answers.length);
		}
	};
	startRequests();
	while (now < sim.durationMs) {
		// The next event: an answer, or the window's end when the budget is spent.
		answers.sort((a, b) => a.atMs - b.atMs);
		const windowEnd = windowStart === undefined ? Infinity : windowStart + sim.windowMs;
		const next = Math.min(answers[0]?.atMs ?? Infinity, windowEnd);
		if (!Number.isFinite(next)) break;
		now = next;
		if (answers[0] && answers[0].atMs <= now) {
			const answer = answers.shift()!;
			const window: RateWindowInfo = {
				limit: sim.limit(now),
				remaining: Math.max(0, sim.limit(now) - used),
				resetSeconds: Math.ceil(((windowStart ?? now) + sim.windowMs - now) / 1000),
			};
			controller.observe(now - answer.sentAtMs, window);
			trace.answered += 1;
			trace.targets.push({ atMs: now, target: controller.target(sim.cap) });
		}
		startRequests();
	}
	return trace;
}

const targetAt = (trace: Trace, atMs: number) =>
	[...trace.targets].reverse().find((entry) => entry.atMs <= atMs)?.target;

/** How often the target turned from rising to falling or back, between two times. */
function turns(trace: Trace, fromMs = 0, toMs = Infinity): number {
	let direction = 0;
	let count = 0;
	let last: number | undefined;
	for (const { atMs, target } of trace.targets) {
		if (atMs < fromMs || atMs > toMs) continue;
		if (last !== undefined && target !== last) {
			const now = Math.sign(target - last);
			if (direction !== 0 && now !== direction) count += 1;
			direction = now;
		}
		last = target;
	}
	return count;
}

const scale = { limit: () => 600, windowMs: 60_000 };

describe('ConcurrencyController', () => {
	it('starts at 5 and, with no answer yet, stays there', () => {
		const controller = new ConcurrencyController();
		expect(controller.target()).toBe(INITIAL_IN_FLIGHT);
		expect(controller.target(3)).toBe(3);
	});

	it('settles on rate × latency × 1.5: Scale (10/s) at 800 ms keeps 12 in flight', () => {
		const trace = simulate(new ConcurrencyController(), {
			...scale,
			latency: () => 800,
			durationMs: 30_000,
		});
		expect(targetAt(trace, 30_000)).toBe(12);
		expect(trace.peakInFlight).toBe(12);
		// 12 in flight at 0.8 s each would be 15/s: the window's budget is the bound, not the target.
		expect(trace.answered).toBeGreaterThanOrEqual(0.95 * 300);
	});

	it('keeps 1 in flight on Free at 200 ms: the window is the limit, not the latency', () => {
		const trace = simulate(new ConcurrencyController(), {
			limit: () => 30,
			windowMs: 60_000,
			latency: () => 200,
			durationMs: 20_000,
		});
		// 0.5/s × 0.2 s × 1.5 rounds up to 1.
		expect(targetAt(trace, 20_000)).toBe(1);
	});

	it('reads the window’s length from the reset header (a scaled 15 s window is 4× the rate)', () => {
		const trace = simulate(new ConcurrencyController(), {
			limit: () => 600,
			windowMs: 15_000,
			latency: () => 800,
			durationMs: 20_000,
		});
		// 40/s × 0.8 s × 1.5 = 48.
		expect(targetAt(trace, 20_000)).toBe(48);
	});

	it('follows a latency step up at once and a step down without swinging', () => {
		const trace = simulate(new ConcurrencyController(), {
			...scale,
			latency: (sentAt) => (sentAt < 20_000 ? 200 : sentAt < 40_000 ? 800 : 200),
			// Long enough for answers after the first window's budget is spent.
			durationMs: 150_000,
		});
		expect(targetAt(trace, 19_000)).toBe(3); // 10/s × 0.2 s × 1.5
		// Up: as the 64 answers the mean is taken over fill with slow ones.
		expect(targetAt(trace, 30_000)).toBe(12);
		expect(targetAt(trace, 39_000)).toBe(12);
		expect(turns(trace, 20_000, 40_000)).toBe(0);
		// Down again, in steps, never up meanwhile.
		// Back to the need (3) or just above it: the band keeps it where it stops within 1 / 0.6 of it.
		expect(targetAt(trace, 150_000)).toBeGreaterThanOrEqual(3);
		expect(targetAt(trace, 150_000)).toBeLessThanOrEqual(4);
		expect(turns(trace, 40_000, 150_000)).toBe(0);
		expect(Math.max(...trace.targets.map((entry) => entry.target))).toBe(12);
	});

	it('rises for a latency spike, comes back down after it, and turns only once', () => {
		const trace = simulate(new ConcurrencyController(), {
			...scale,
			// Three seconds of 4 s answers among 800 ms ones.
			latency: (sentAt) => (sentAt >= 10_000 && sentAt < 13_000 ? 4_000 : 800),
			durationMs: 60_000,
		});
		const peak = Math.max(...trace.targets.map((entry) => entry.target));
		expect(peak).toBeGreaterThan(12);
		expect(peak).toBeLessThanOrEqual(60); // 10/s × 4 s × 1.5
		expect(targetAt(trace, 60_000)).toBeLessThanOrEqual(14);
		// From 12 up during the spike, then down: a single turn, no up-down-up.
		expect(turns(trace, 5_000, 60_000)).toBe(1);
	});

	it('holds steady under a fallback mix (10 % at 3–5 s) instead of chasing each slow answer', () => {
		const random = mulberry32(7);
		const trace = simulate(new ConcurrencyController(), {
			...scale,
			latency: () => (random() < 0.1 ? 3_000 + 2_000 * random() : 600),
			durationMs: 180_000,
		});
		const settled = trace.targets.filter((entry) => entry.atMs >= 30_000);
		const values = settled.map((entry) => entry.target);
		// Mean latency ≈ 0.94 s: rate × latency ≈ 9.4, × 1.5 ≈ 14; noise moves it little and seldom.
		expect(Math.min(...values)).toBeGreaterThanOrEqual(10);
		expect(Math.max(...values)).toBeLessThanOrEqual(25);
		expect(turns(trace, 30_000)).toBeLessThanOrEqual(8);
		// The rate is used: ≥ 95 % of 10/s over three minutes.
		expect(trace.answered).toBeGreaterThanOrEqual(0.95 * 1_800);
	});

	it('follows a rate change (a plan downgraded from 600 to 120 a minute)', () => {
		const trace = simulate(new ConcurrencyController(), {
			limit: (at) => (at < 30_000 ? 600 : 120),
			windowMs: 60_000,
			latency: () => 800,
			durationMs: 90_000,
		});
		expect(targetAt(trace, 29_000)).toBe(12);
		expect(targetAt(trace, 90_000)).toBe(3); // 2/s × 0.8 s × 1.5
	});

	it('never passes the cap, the window’s budget or the maximum', () => {
		const capped = simulate(new ConcurrencyController(), {
			...scale,
			latency: () => 800,
			durationMs: 10_000,
			cap: 4,
		});
		expect(capped.peakInFlight).toBe(4);
		const tiny = new ConcurrencyController();
		tiny.observe(60_000, { limit: 3, resetSeconds: 60 });
		expect(tiny.target()).toBe(3);
		const unknownRate = new ConcurrencyController();
		unknownRate.observe(100, {});
		expect(unknownRate.target()).toBe(MAX_IN_FLIGHT);
		expect(unknownRate.target(50)).toBe(50);
	});

	it('ignores latencies that are not numbers of milliseconds', () => {
		const controller = new ConcurrencyController();
		controller.observe(Number.NaN, { limit: 600, resetSeconds: 60 });
		controller.observe(-5, { limit: 600, resetSeconds: 60 });
		expect(controller.meanLatencyMs()).toBeUndefined();
		expect(controller.target()).toBe(INITIAL_IN_FLIGHT);
	});
});

describe('a moving in-flight target', () => {
	it('ConcurrencyLimiter lets waiting tasks in when its capacity rises, in order', async () => {
		let capacity = 1;
		const limiter = new ConcurrencyLimiter(() => capacity);
		const started: number[] = [];
		let peak = 0;
		const gates: Array<() => void> = [];
		const tasks = Array.from({ length: 6 }, (_, index) =>
			limiter.run(async () => {
				started.push(index);
				peak = Math.max(peak, limiter.running);
				await new Promise<void>((resolve) => gates.push(resolve));
			}),
		);
		await new Promise((resolve) => setImmediate(resolve));
		expect(started).toEqual([0]);
		capacity = 3;
		gates.shift()!();
		await new Promise((resolve) => setImmediate(resolve));
		expect(started).toEqual([0, 1, 2, 3]);
		capacity = 1;
		while (gates.length) {
			gates.shift()!();
			await new Promise((resolve) => setImmediate(resolve));
		}
		await Promise.all(tasks);
		expect(started).toEqual([0, 1, 2, 3, 4, 5]);
		expect(peak).toBe(3);
	});

	it('forEachBounded starts more tasks when the limit rises and none after stop', async () => {
		let limit = 2;
		let running = 0;
		const peaks: number[] = [];
		const ran: number[] = [];
		await forEachBounded(
			20,
			() => limit,
			async (index) => {
				running += 1;
				peaks.push(running);
				ran.push(index);
				await new Promise((resolve) => setImmediate(resolve));
				if (index === 3) limit = 6;
				running -= 1;
			},
			() => ran.length >= 15,
		);
		expect(Math.max(...peaks.slice(0, 4))).toBe(2);
		expect(Math.max(...peaks)).toBe(6);
		expect(ran).toHaveLength(15);
	});
});
