import { ConcurrencyLimiter, RateGate } from '../../src/client';

/** A clock the test moves by hand: the gate's arithmetic, without waiting. */
function manualClock(start = 1_000_000) {
	let now = start;
	return { now: () => now, advance: (ms: number) => (now += ms) };
}

function reserveTicket(gate: RateGate): number {
	const reservation = gate.tryReserve();
	if (!('ticket' in reservation))
		throw new Error(`expected a slot, got a wait of ${reservation.waitMs} ms`);
	return reservation.ticket;
}

describe('RateGate', () => {
	it('lets requests through until the reported budget is spent, then waits for the reset', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		gate.release(reserveTicket(gate), { limit: 3, remaining: 2, resetSeconds: 10 });
		const inFlight = [reserveTicket(gate), reserveTicket(gate)];
		// Spent, and exactly so (nothing was sent after the answer that said 2): it waits for the
		// reset, looking again each second in case an answer tells an earlier end.
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.maxWaitSliceMs });
		for (const ticket of inFlight) gate.release(ticket, { limit: 3, remaining: 0 });
		clock.advance(9_000);
		expect(gate.tryReserve()).toEqual({ waitMs: 1_000 });
		clock.advance(1_000);
		// A new window: the full limit again (its first request alone, as requests waited for it),
		// then a wait for its end (its first request + 10 s).
		const tickets = [reserveTicket(gate)];
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.firstAloneMs });
		clock.advance(RateGate.firstAloneMs);
		tickets.push(reserveTicket(gate), reserveTicket(gate));
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.maxWaitSliceMs });
		gate.release(tickets[0], { limit: 3, remaining: 0, resetSeconds: 9 });
		gate.release(tickets[1], { remaining: 0 });
		gate.release(tickets[2], { remaining: 0 });
		// The service said 9 s, rounded up: the window ends within (8 s, 9 s], the gate waits for 9 s.
		clock.advance(8_500);
		expect(gate.tryReserve()).toEqual({ waitMs: 500 });
	});

	it('spends the whole budget at once when the answers count the later requests (headers written at answer time)', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		const tickets = [reserveTicket(gate), reserveTicket(gate), reserveTicket(gate)];
		// A service that counts on arrival and writes its headers when it answers: the first answer
		// already counts the two requests sent after it. It counted 3, as many as this process sent
		// in the window: nothing is uncounted, 2 are left, and they go now (not as answers come back).
		gate.release(tickets[0], { limit: 5, remaining: 2, resetSeconds: 20 });
		reserveTicket(gate);
		reserveTicket(gate);
		// That figure was exact: no need to look again soon.
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.maxWaitSliceMs });
		gate.release(tickets[1], { limit: 5, remaining: 0, resetSeconds: 20 });
		gate.release(tickets[2], { limit: 5, remaining: 0, resetSeconds: 20 });
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.maxWaitSliceMs });
	});

	it('with another client on the key, counts the later requests still in flight as uncounted and looks again soon', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		const tickets = [reserveTicket(gate), reserveTicket(gate), reserveTicket(gate)];
		// The service counted 4 where this process sent 3: someone else uses the key, so the two sent
		// after the answered one may not be counted yet: 3 − 2 = 1 left for sure.
		gate.release(tickets[0], { limit: 7, remaining: 3, resetSeconds: 20 });
		reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.pollMs });
		// The newest answers tell the truth: 2 left, nothing else in flight but the fourth.
		gate.release(tickets[1], { limit: 7, remaining: 2, resetSeconds: 20 });
		gate.release(tickets[2], { limit: 7, remaining: 2, resetSeconds: 20 });
		expect('ticket' in gate.tryReserve()).toBe(true);
	});

	it('takes the window’s end from the first request it sent in it, inside the Reset header’s second', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const first = reserveTicket(gate);
		clock.advance(800);
		// Reset says 60 s (59.2 s rounded up): the end is in (59.8 s, 60.8 s]; the window is 60 s long
		// and this process opened it at 0, so it ends at 60 s.
		gate.release(first, { limit: 1, remaining: 0, resetSeconds: 60 }, true);
		clock.advance(59_000);
		// Before the end less the margin: wait for the end plus the margin, in one-second looks.
		expect(gate.tryReserve()).toEqual({ waitMs: 250 });
		clock.advance(250);
		expect('ticket' in gate.tryReserve()).toBe(true);
		expect(gate.progressAt).toBe(800);
	});

	it('does not spend what is left of a window in its last moments (it could land in the next)', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const first = reserveTicket(gate);
		clock.advance(100);
		gate.release(first, { limit: 10, remaining: 9, resetSeconds: 60 });
		clock.advance(59_880);
		expect(gate.tryReserve()).toEqual({ waitMs: 70 });
		clock.advance(70);
		// A new window: the full budget, its first request ahead of the rest.
		reserveTicket(gate);
		clock.advance(RateGate.firstAloneMs);
		for (let index = 1; index < 10; index++) reserveTicket(gate);
	});

	it('sends a single probe when the budget is spent and nothing in flight can tell the reset', () => {
		const gate = new RateGate(manualClock().now);
		gate.release(reserveTicket(gate), { limit: 1, remaining: 0 });
		const probe = reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.pollMs });
		gate.release(probe, { remaining: 0, resetSeconds: 1 });
		expect(gate.tryReserve()).toEqual({ waitMs: 1_000 });
	});

	it('counts requests issued later and still in flight against the reported remaining', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		const first = reserveTicket(gate);
		reserveTicket(gate);
		reserveTicket(gate);
		// The first answer says 3 left; two requests went out after it and are not counted yet.
		gate.release(first, { limit: 10, remaining: 3, resetSeconds: 30 });
		reserveTicket(gate);
		expect('waitMs' in gate.tryReserve()).toBe(true);
	});

	it('lets the newest answer set the budget, so an answer that overtook another does not waste slots', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		const tickets = [reserveTicket(gate), reserveTicket(gate), reserveTicket(gate)];
		// The third request's answer is the newest news: 7 left, nothing issued after it in flight.
		gate.release(tickets[0], { limit: 10, remaining: 9, resetSeconds: 30 });
		gate.release(tickets[2], { limit: 10, remaining: 7, resetSeconds: 30 });
		// The second's late answer is older news and does not lower it. (Had the service taken the
		// third before the second, one request too many goes out: its 429 costs nothing and is
		// retried when the window opens, where a stale, lower figure would leave slots unused.)
		gate.release(tickets[1], { limit: 10, remaining: 8, resetSeconds: 30 });
		for (let index = 0; index < 7; index++) reserveTicket(gate);
		expect('waitMs' in gate.tryReserve()).toBe(true);
	});

	it('ignores answers to requests sent in a window that has ended', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		gate.release(reserveTicket(gate), { limit: 3, remaining: 2, resetSeconds: 1 });
		const late = reserveTicket(gate);
		clock.advance(1_000);
		const fresh = reserveTicket(gate);
		// An answer from the old window arrives after the new one opened: it says nothing of the new budget.
		gate.release(late, { limit: 3, remaining: 0, resetSeconds: 1 });
		expect('ticket' in gate.tryReserve()).toBe(true);
		gate.release(fresh, { limit: 3, remaining: 1, resetSeconds: 1 });
		expect('waitMs' in gate.tryReserve()).toBe(true);
	});

	it('keeps the earliest estimate of the window end, as the service rounds up', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		gate.release(reserveTicket(gate), { limit: 5, remaining: 1, resetSeconds: 2 });
		clock.advance(1_500);
		gate.release(reserveTicket(gate), { limit: 5, remaining: 0, resetSeconds: 1 });
		expect(gate.tryReserve()).toEqual({ waitMs: 500 });
	});

	it('blocks everything for Retry-After after a 429, without looking again meanwhile', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		reserveTicket(gate);
		gate.block(3_000);
		expect(gate.tryReserve()).toEqual({ waitMs: 3_000 });
		clock.advance(3_000);
		expect('ticket' in gate.tryReserve()).toBe(true);
	});

	it('after opening a window a little early (a 429 for its first requests), looks again soon with a larger margin', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const first = reserveTicket(gate);
		clock.advance(800);
		gate.release(first, { limit: 1, remaining: 0, resetSeconds: 10 }, true);
		clock.advance(9_250);
		// Opened on the estimate (10 s + 50 ms); the service's window had started 80 ms late.
		const early = reserveTicket(gate);
		gate.release(early, { limit: 1, remaining: 0, resetSeconds: 1 });
		gate.block(1_000, 0, early);
		expect(gate.tryReserve()).toEqual({ waitMs: 2 * RateGate.endMarginMs });
		clock.advance(100);
		const next = reserveTicket(gate);
		clock.advance(800);
		gate.release(next, { limit: 1, remaining: 0, resetSeconds: 10 }, true);
		// The next window's end: its first request plus 10 s plus the doubled margin.
		clock.advance(9_150);
		expect(gate.tryReserve()).toEqual({ waitMs: 50 + 2 * RateGate.endMarginMs });
	});

	it('opens a window requests waited for with its first request alone: the rest follow 25 ms later, or at its answer', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const first = reserveTicket(gate);
		clock.advance(200);
		gate.release(first, { limit: 5, remaining: 4, resetSeconds: 10 }, true);
		for (let index = 0; index < 4; index++) reserveTicket(gate);
		// Spent: the run waits for the end (10 s + the margin).
		clock.advance(9_000);
		expect(gate.tryReserve()).toEqual({ waitMs: 800 + RateGate.endMarginMs });
		clock.advance(800 + RateGate.endMarginMs);
		const opener = reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.firstAloneMs });
		clock.advance(10);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.firstAloneMs - 10 });
		clock.advance(RateGate.firstAloneMs - 10);
		for (let index = 0; index < 4; index++) reserveTicket(gate);
		expect('waitMs' in gate.tryReserve()).toBe(true);
		// Its answer lets the others go at once, when it comes first.
		gate.release(opener, { limit: 5, remaining: 0, resetSeconds: 10 }, true);
		clock.advance(10_000 + RateGate.endMarginMs);
		const next = reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.firstAloneMs });
		gate.release(next, { limit: 5, remaining: 4, resetSeconds: 10 }, true);
		for (let index = 0; index < 4; index++) reserveTicket(gate);
	});

	it('lets a run that starts after a pause go at once: nothing waited for its window', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		gate.release(reserveTicket(gate), { limit: 5, remaining: 4, resetSeconds: 10 }, true);
		clock.advance(30_000);
		for (let index = 0; index < 5; index++) reserveTicket(gate);
	});

	it('lets the next run go at once after a pause even when the last run waited for its windows', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const first = reserveTicket(gate);
		clock.advance(200);
		gate.release(first, { limit: 2, remaining: 1, resetSeconds: 10 }, true);
		gate.release(reserveTicket(gate), { limit: 2, remaining: 0, resetSeconds: 10 }, true);
		// The last run's third item waits for the end, opens the next window alone, and the fourth
		// follows it (its wait for the first request is not a wait for the window's end).
		expect('waitMs' in gate.tryReserve()).toBe(true);
		clock.advance(9_800 + RateGate.endMarginMs);
		const third = reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.firstAloneMs });
		clock.advance(RateGate.firstAloneMs);
		const fourth = reserveTicket(gate);
		clock.advance(200);
		gate.release(third, { limit: 2, remaining: 0, resetSeconds: 10 }, true);
		gate.release(fourth, { limit: 2, remaining: 0, resetSeconds: 10 }, true);
		// A run a minute later: its two go together.
		clock.advance(60_000);
		reserveTicket(gate);
		reserveTicket(gate);
	});

	it('a lone first request refused (the window had not turned yet): looks again after the margin with one request, the opening’s other refusals change nothing', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		// A first window sent as a burst: its first request reached the service 300 ms late.
		const burst = [reserveTicket(gate), reserveTicket(gate)];
		clock.advance(800);
		for (const ticket of burst)
			gate.release(ticket, { limit: 2, remaining: 0, resetSeconds: 10 }, true);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.maxWaitSliceMs });
		clock.advance(9_200 + RateGate.endMarginMs);
		const opener = reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.firstAloneMs });
		// Refused: Retry-After 1 s (0.25 s rounded up). The burst's start was not pinned, so the
		// margin stays: one request again in 50 ms.
		gate.release(opener, { limit: 2, remaining: 0, resetSeconds: 1 });
		gate.block(1_000, 0, opener);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.endMarginMs });
		// Another refusal of the same opening (one sent before the first 429 came back) waits no longer.
		gate.block(2_000, 2_000, opener + 1);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.endMarginMs });
		clock.advance(RateGate.endMarginMs);
		const again = reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.firstAloneMs });
		// Refused again: that request's own Retry-After has grown (2 s, repeated 429s back off),
		// but the first refusal said the window turns within 1 s: again in 50 ms.
		gate.block(2_000, 2_000, again);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.endMarginMs });
		clock.advance(RateGate.endMarginMs);
		const opened = reserveTicket(gate);
		clock.advance(200);
		gate.release(opened, { limit: 2, remaining: 1, resetSeconds: 10 }, true);
		reserveTicket(gate);
		// The window this lone request opened ends 10 s (and the margin) after it was sent.
		clock.advance(9_000);
		expect(gate.tryReserve()).toEqual({ waitMs: 800 + RateGate.endMarginMs });
	});

	it('lets the first request go alone longer when a refusal of one took longer to come back (a distant service)', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const burst = [reserveTicket(gate), reserveTicket(gate)];
		for (const ticket of burst)
			gate.release(ticket, { limit: 2, remaining: 0, resetSeconds: 10 }, true);
		expect('waitMs' in gate.tryReserve()).toBe(true);
		clock.advance(10_000 + RateGate.endMarginMs);
		const opener = reserveTicket(gate);
		// Its refusal comes back 120 ms after it was sent: the others would have gone meanwhile.
		clock.advance(120);
		gate.block(1_000, 0, opener);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.endMarginMs });
		clock.advance(RateGate.endMarginMs);
		reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: 180 });
	});

	it('past the first refusal’s bound, a look again refused waits its full Retry-After', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const burst = [reserveTicket(gate), reserveTicket(gate)];
		for (const ticket of burst)
			gate.release(ticket, { limit: 2, remaining: 0, resetSeconds: 10 }, true);
		clock.advance(10_000 + RateGate.endMarginMs);
		const opener = reserveTicket(gate);
		gate.block(1_000, 0, opener);
		for (let step = 0; step < 20; step++) {
			clock.advance(RateGate.endMarginMs);
			gate.block(2_000, 2_000, reserveTicket(gate));
		}
		// 1 050 ms after the first refusal: its bound has passed, the service still refuses.
		expect(gate.tryReserve()).toEqual({ waitMs: 2_000 });
	});

	it('doubles the margin only when the last window’s first request reached the service alone', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		// Window 1: a lone request (nothing else sent with it).
		const first = reserveTicket(gate);
		clock.advance(30);
		reserveTicket(gate);
		gate.release(first, { limit: 2, remaining: 0, resetSeconds: 10 }, true);
		expect('waitMs' in gate.tryReserve()).toBe(true);
		clock.advance(10_000 + RateGate.endMarginMs - 30);
		const early = reserveTicket(gate);
		gate.block(1_000, 0, early);
		// Its start was exact to the request, yet the service opened later: a larger margin.
		expect(gate.tryReserve()).toEqual({ waitMs: 2 * RateGate.endMarginMs });
	});

	it('takes its own estimate of the end within the second a first 429’s Retry-After rounds up', () => {
		const clock = manualClock(0);
		const gate = new RateGate(clock.now);
		const first = reserveTicket(gate);
		clock.advance(300);
		gate.release(first, { limit: 1, remaining: 0, resetSeconds: 10 }, true);
		// Ends at 10 s (opened at 0, 10 s long); a 429 at 9.5 s says "1 s": 9.5–10.5 s. The gate
		// waits for 10 s and the margin, not 10.5 s.
		clock.advance(9_200);
		gate.block(1_000, 0);
		expect(gate.tryReserve()).toEqual({ waitMs: 500 + RateGate.endMarginMs });
	});
});

describe('ConcurrencyLimiter', () => {
	it('never runs more than its capacity at once and runs every task', async () => {
		const limiter = new ConcurrencyLimiter(3);
		let active = 0;
		let peak = 0;
		const results = await Promise.all(
			Array.from({ length: 20 }, (_, index) =>
				limiter.run(async () => {
					active += 1;
					peak = Math.max(peak, active);
					await new Promise((resolve) => setImmediate(resolve));
					active -= 1;
					return index;
				}),
			),
		);
		expect(peak).toBe(3);
		expect(results).toEqual(Array.from({ length: 20 }, (_, index) => index));
	});

	it('refuses a capacity below 1', () => {
		expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
	});
});
