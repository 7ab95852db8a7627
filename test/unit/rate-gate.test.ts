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
		// Spent; while answers are in flight it looks again soon (they may show budget left).
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.pollMs });
		for (const ticket of inFlight) gate.release(ticket, { limit: 3, remaining: 0 });
		expect(gate.tryReserve()).toEqual({ waitMs: 10_000 });
		clock.advance(10_000);
		// A new window: the full limit again, and no more until an answer tells the new window's end.
		const tickets = [reserveTicket(gate), reserveTicket(gate), reserveTicket(gate)];
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.pollMs });
		gate.release(tickets[0], { limit: 3, remaining: 0, resetSeconds: 9 });
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.pollMs });
		gate.release(tickets[1], { remaining: 0 });
		gate.release(tickets[2], { remaining: 0 });
		expect(gate.tryReserve()).toEqual({ waitMs: 9_000 });
	});

	it('spends budget the estimate missed once the answers in flight show it (headers written at answer time)', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		const tickets = [reserveTicket(gate), reserveTicket(gate), reserveTicket(gate)];
		// A service that counts on arrival and writes its headers when it answers: the first answer
		// already counts the two requests sent after it, and the gate subtracts them again.
		gate.release(tickets[0], { limit: 5, remaining: 2, resetSeconds: 20 });
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.pollMs });
		// The newest answer tells the truth: 2 left, nothing else in flight.
		gate.release(tickets[1], { limit: 5, remaining: 2, resetSeconds: 20 });
		gate.release(tickets[2], { limit: 5, remaining: 2, resetSeconds: 20 });
		reserveTicket(gate);
		reserveTicket(gate);
		expect(gate.tryReserve()).toEqual({ waitMs: RateGate.pollMs });
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

	it('blocks everything for Retry-After after a 429', () => {
		const clock = manualClock();
		const gate = new RateGate(clock.now);
		gate.block(3_000);
		expect(gate.tryReserve()).toEqual({ waitMs: 3_000 });
		clock.advance(3_000);
		expect('ticket' in gate.tryReserve()).toBe(true);
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
