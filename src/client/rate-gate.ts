import { RATE_WINDOW_MAX_MS } from './rate-headers';

/** What one response told us of the key's rate window. */
export interface RateWindowInfo {
	limit?: number;
	remaining?: number;
	/** Seconds until the window resets (the service rounds up). */
	resetSeconds?: number;
}

export type Reservation = { ticket: number } | { waitMs: number };

/**
 * The per-key rate window as this process knows it, shared by every client using the same base
 * URL and key, so parallel executions together stay under the plan's rate instead of each
 * discovering the limit by a 429.
 *
 * It spends the window's budget as fast as requests come, then holds new requests until the
 * window resets. The estimate of what is left comes from `X-RateLimit-Remaining`, less requests
 * issued after the one that reported it and still in flight (those were most likely not counted
 * yet); the service's reset is rounded up, so the earliest estimate of the window end is kept.
 */
export class RateGate {
	private limit?: number;
	private remaining?: number;
	private windowEndsAt?: number;
	private readonly inFlight = new Set<number>();
	private nextTicket = 1;
	/** The most recently issued request whose answer set `remaining`: older answers are stale. */
	private newestReported = 0;
	/** How often a request re-checks while the answers that will reveal the new window are in flight. */
	static readonly pollMs = 25;

	constructor(private readonly now: () => number) {}

	/** Takes a slot now, or says how long to wait before asking again. */
	tryReserve(): Reservation {
		const now = this.now();
		if (this.windowEndsAt !== undefined && now >= this.windowEndsAt) {
			// A new window: its budget is the full limit (unknown until a response says), and
			// answers to requests sent in the old window no longer tell what is left.
			this.remaining = this.limit;
			this.windowEndsAt = undefined;
			this.newestReported = this.nextTicket - 1;
		}
		if (this.remaining !== undefined && this.remaining <= 0) {
			if (this.windowEndsAt !== undefined) {
				const untilEnd = Math.max(1, this.windowEndsAt - now);
				// The estimate may be low: a service that writes its headers when it answers has already
				// counted the requests sent after, which release() subtracted again. The answers in
				// flight will tell; until they have, look again soon rather than sleep out the window.
				return { waitMs: this.inFlight.size > 0 ? Math.min(RateGate.pollMs, untilEnd) : untilEnd };
			}
			// Spent, and the window end not known yet: an answer in flight will tell it.
			if (this.inFlight.size > 0) return { waitMs: RateGate.pollMs };
			// Nothing in flight to learn from: let one request probe the service.
			this.remaining = 1;
		}
		if (this.remaining !== undefined) this.remaining -= 1;
		const ticket = this.nextTicket++;
		this.inFlight.add(ticket);
		return { ticket };
	}

	/** Frees a slot taken by tryReserve, learning from the response's headers when there was one. */
	release(ticket: number, info: RateWindowInfo = {}): void {
		this.inFlight.delete(ticket);
		const now = this.now();
		if (info.limit !== undefined) this.limit = info.limit;
		if (info.resetSeconds !== undefined) {
			const estimate = now + info.resetSeconds * 1000;
			const sameWindow = this.windowEndsAt !== undefined && now < this.windowEndsAt;
			this.windowEndsAt = sameWindow ? Math.min(this.windowEndsAt as number, estimate) : estimate;
		}
		if (info.remaining !== undefined && ticket > this.newestReported) {
			// The newest answer wins: it leaves the fewest requests unaccounted for, and when nothing
			// else is in flight it is exact (a stale, lower figure would waste the window's last slots).
			this.newestReported = ticket;
			let issuedLater = 0;
			for (const other of this.inFlight) if (other > ticket) issuedLater += 1;
			this.remaining = Math.max(0, info.remaining - issuedLater);
		}
	}

	/** A 429 rate_limited: nothing more goes until `retryAfterMs` (at most one window) has passed. */
	block(retryAfterMs: number): void {
		this.remaining = 0;
		this.windowEndsAt = this.now() + Math.min(Math.max(retryAfterMs, 1), RATE_WINDOW_MAX_MS);
	}
}

const gates = new Map<string, RateGate>();

/**
 * The gate of one (base URL, key) pair in this process. The map key is only held in memory and
 * never printed; callers may pass a digest instead of the raw key.
 */
export function rateGateFor(identity: string, now: () => number = Date.now): RateGate {
	let gate = gates.get(identity);
	if (!gate) {
		gate = new RateGate(now);
		gates.set(identity, gate);
	}
	return gate;
}
