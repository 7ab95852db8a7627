/**
 * Long because the gate is one state machine: every method reads and changes the same fields.
 *
 * The scheduler of a key's decides in this process: a run goes as fast as the key's plan allows,
 * not at a steady pace, and no 429 reaches the user. The plans are fixed windows: a budget per
 * window, back in full when the window resets. So the fastest legal schedule spends what the
 * window has left as soon as requests come (up to Max Concurrency, the callers' cap), then holds
 * new requests until the reset; a long run goes window by window at the budget.
 *
 * - Nothing known yet (the first request of the process to a key): every request goes. A run that
 *   fits a small plan's budget goes at once; the excess over it gets a 429 that costs nothing, is
 *   waited out, and tells the budget (every answer carries X-RateLimit-*). Sending fewer first
 *   would cost every run a whole answer's time to learn what the first answer says anyway.
 * - The budget left: `X-RateLimit-Remaining` of the newest answer, less the requests issued after
 *   it and still in flight (most likely not counted when it was written).
 * - The window's end: the service says `X-RateLimit-Reset` in whole seconds, so one answer puts
 *   the end within a second: (now + reset − 1 s, now + reset]. Inside those bounds the gate takes
 *   the first request it sent in the window plus the window's length (the longest reset seen) and
 *   a margin, which is exact when this process opened the window. A second's rounding would cost
 *   up to a sixtieth of every minute; a request that arrives a little early gets a free 429.
 * - A window requests waited for opens with its first request alone; the rest follow
 *   `firstAloneMs` later, or once it is answered (longer when a refusal of a lone request took
 *   longer to come back, as from a distant service, so that a refusal comes before the rest go).
 *   The service opens its window when that request arrives, and the gate takes the next end from
 *   when it sent it: sent alone, it arrives within one request's transit. Sent with a
 *   window's budget, it would arrive only after n8n's synchronous work for every request of the
 *   burst (hundreds of ms for 600), and the next window would open that much too early. A window
 *   the gate opens a little early then costs one refused request, not a refused burst.
 * - A 429: nothing goes until its Retry-After (bounded like the headers, rate-headers.ts). When the
 *   first request of a window the gate opened on its estimate is refused within Retry-After's
 *   rounding, the window is about to turn: it looks again after the margin, with one request.
 *
 * Shared by every client of one base URL and key in the process (parallel executions share the
 * budget); across processes the service's 429s are the shared truth. No timers: callers wait
 * with their own sleep for the time tryReserve says. A request holds its key's gate from start to
 * end (`acquire`), so the process keeps it while it is used and may drop it once idle (RateGates).
 */
import { BoundedCache } from './bounded-cache';
import { RATE_WINDOW_MAX_MS, type RateWindowInfo } from './rate-headers';

export type Reservation = { ticket: number } | { waitMs: number };

export class RateGate {
	private limit?: number;
	private remaining?: number;
	/** When the next window's budget may be spent (the estimated end, plus a margin); undefined while unknown. */
	private windowEndsAt?: number;
	/** The current window's budget must be sent before this (the estimated end, less a margin). */
	private spendUntil?: number;
	/** The bounds the Reset headers of this window's answers put on its end. */
	private endNoEarlierThan?: number;
	private endNoLaterThan?: number;
	/** When this process sent the first request of the current window, and its ticket. */
	private firstSentAt?: number;
	private firstTicket = 1;
	/** The window's length: the longest Reset seen (at most a minute). */
	private windowMs?: number;
	/** A 429 said the window is spent until windowEndsAt: no looking again before. */
	private blocked = false;
	/** This window was opened on the gate's own estimate of the last one's end (not after a 429's full hold). */
	private openedOnEstimate = false;
	/** The first request of this window went out alone; the others wait until this time or its answer. */
	private aloneUntil?: number;
	/** This window's first request reached the service ahead of the others (sent alone, or by itself). */
	private startPinned = false;
	/** The same of the window whose start the current estimate of the end was taken from. */
	private previousStartPinned = false;
	/** Requests waited for the current window's end: the next one opens with its first request alone (when they are still there). */
	private held = false;
	/** This window's first request is to go alone (requests waited for it). */
	private firstGoesAlone = false;
	/** Blocked by a 429 that said the gate opened this window a little early: it looks again soon. */
	private blockedEarly = false;
	/** The latest end the first of those refusals allowed: looking again soon stops there. */
	private earlyLookUntil?: number;
	/** This window is such a look again. */
	private reopenedSoon = false;
	/** Blocked by a 429 until the gate's own estimate of the end, inside Retry-After's bounds. */
	private blockedUntilEstimate = false;
	/** The margin after the estimated end; doubles (to a second) each time a window opened too early. */
	private margin = 50;
	/** The newest answer's Remaining was above 0 and requests sent after it were subtracted. */
	private mayBeLow = false;
	private readonly inFlight = new Set<number>();
	private nextTicket = 1;
	/** The most recently issued request whose answer set `remaining`: older answers are stale. */
	private newestReported = 0;
	private lastProgressAt?: number;
	/** Requests of the previous window still in flight when this one opened: they may land in it. */
	private carriedOver = 0;
	/** How often a request re-checks while answers in flight may show budget the estimate missed. */
	static readonly pollMs = 25;
	/** Longest single wait: a window end learned meanwhile is taken within this. */
	static readonly maxWaitSliceMs = 1_000;
	/** Added to the window's end as this process opened it, at first: the jitter of one request's transit. */
	static readonly endMarginMs = 50;
	/** How long a new window's first request goes alone (see the top of this file). */
	static readonly firstAloneMs = 25;
	/** The longest a first request goes alone, whatever its refusals took. */
	static readonly maxAloneMs = 500;
	/** How long the window's first request goes alone: 1.5 × the last refusal of a lone one took. */
	private aloneMs = RateGate.firstAloneMs;
	/** Requests of this key under way (waiting, in flight, or between retries). */
	private holders = 0;

	constructor(private readonly now: () => number) {}

	/** A request of this key is under way: the gate is not dropped until the returned release. */
	acquire(): () => void {
		this.holders += 1;
		let released = false;
		return () => {
			if (released) return;
			released = true;
			this.holders -= 1;
		};
	}

	/** Held by a request under way: its process must keep it. */
	get inUse(): boolean {
		return this.holders > 0;
	}

	/** When a request of this key was last answered 2xx: the key is moving, not stuck. */
	get progressAt(): number | undefined {
		return this.lastProgressAt;
	}

	/** Takes a slot now, or says how long to wait before asking again. */
	tryReserve(): Reservation {
		const now = this.now();
		if (this.windowEndsAt !== undefined && now >= this.windowEndsAt) {
			// Requests that waited for this end wake within a wait slice of it; a run that comes
			// later (after a pause) did not wait for it and goes at once.
			this.newWindow(this.held && now - this.windowEndsAt <= RateGate.maxWaitSliceMs);
		}
		if (
			this.windowEndsAt !== undefined &&
			this.spendUntil !== undefined &&
			now >= this.spendUntil &&
			!this.blocked
		) {
			// The window is about to turn: what is left of it could land in the next one.
			return this.hold(Math.max(1, this.windowEndsAt - now));
		}
		if (this.aloneUntil !== undefined) {
			if (now < this.aloneUntil) return { waitMs: this.aloneUntil - now };
			this.aloneUntil = undefined;
		}
		if (this.remaining !== undefined && this.remaining <= 0) {
			if (this.windowEndsAt !== undefined) {
				const untilEnd = Math.max(1, this.windowEndsAt - now);
				if (this.blocked) return this.hold(untilEnd);
				// Answers in flight may show budget the estimate missed (a service that writes its
				// headers when it answers has already counted requests sent after): look again soon.
				const poll = this.mayBeLow && this.inFlight.size > 0;
				return this.hold(Math.min(untilEnd, poll ? RateGate.pollMs : RateGate.maxWaitSliceMs));
			}
			// Spent, and the window's end not known yet: an answer in flight will tell it.
			if (this.inFlight.size > 0) return this.hold(RateGate.pollMs);
			// Nothing in flight to learn from: let one request probe the service.
			this.remaining = 1;
		}
		if (this.remaining !== undefined) this.remaining -= 1;
		const ticket = this.nextTicket++;
		this.inFlight.add(ticket);
		if (this.firstSentAt === undefined) {
			this.firstSentAt = now;
			this.firstTicket = ticket;
			this.startPinned = true;
			// Only when requests waited for this window: a run that starts after it opened (the first
			// of a process, or after a pause) goes at once, as it could not have gone sooner.
			if (this.firstGoesAlone) this.aloneUntil = now + this.aloneMs;
			this.firstGoesAlone = false;
			this.settleEnd();
		} else if (this.inFlight.has(this.firstTicket) && now - this.firstSentAt < this.aloneMs) {
			// Sent with the first one, before its answer: the first may reach the service after it.
			this.startPinned = false;
		}
		return { ticket };
	}

	/**
	 * Frees a slot taken by tryReserve, learning from the response's headers when there was one;
	 * `answered`: the request was answered 2xx (the key made progress).
	 */
	release(ticket: number, info: RateWindowInfo = {}, answered = false): void {
		this.inFlight.delete(ticket);
		// The window's first request is at the service (or failed): the others need not wait for it.
		if (ticket === this.firstTicket) this.aloneUntil = undefined;
		const now = this.now();
		if (answered) this.lastProgressAt = now;
		if (info.limit !== undefined) this.limit = info.limit;
		// An answer to a request sent in an earlier window says nothing of this one.
		if (ticket < this.firstTicket || this.blocked) return;
		if (info.resetSeconds !== undefined && info.resetSeconds > 0) {
			const resetMs = Math.min(info.resetSeconds * 1000, RATE_WINDOW_MAX_MS);
			this.windowMs = Math.max(this.windowMs ?? 0, resetMs);
			this.endNoLaterThan = Math.min(this.endNoLaterThan ?? Infinity, now + resetMs);
			this.endNoEarlierThan = Math.max(this.endNoEarlierThan ?? -Infinity, now + resetMs - 1000);
			this.settleEnd();
		}
		if (info.remaining !== undefined && ticket > this.newestReported) {
			// The newest answer wins: it leaves the fewest requests unaccounted for, and when nothing
			// else is in flight it is exact (a stale, lower figure would waste the window's last slots).
			this.newestReported = ticket;
			let issuedLater = 0;
			for (const other of this.inFlight) if (other > ticket) issuedLater += 1;
			// Of those, the service may already have counted some: a service that writes its headers
			// when it answers counts requests sent after the one answered. What it says it counted
			// (limit − remaining) against what this process may have had counted in the window (sent in
			// it, and those still in flight when it opened) bounds what it has not counted yet. When it
			// counted more than that, other clients share the key and the bound says nothing. Without
			// it a run needing exactly the budget went out only as answers came back.
			const counted = this.limit === undefined ? undefined : this.limit - info.remaining;
			const ours = this.nextTicket - this.firstTicket + this.carriedOver;
			const uncounted =
				counted !== undefined && counted <= ours
					? Math.min(issuedLater, ours - counted)
					: issuedLater;
			this.remaining = Math.max(0, info.remaining - uncounted);
			this.mayBeLow = info.remaining > 0 && uncounted > 0;
		}
	}

	/**
	 * A 429 rate_limited: nothing more goes until `holdMs` (at most one window) has passed. The
	 * service rounds Retry-After up to whole seconds, so when `earliestMs` says the window cannot end
	 * before then, the gate's own estimate of the end is taken inside those bounds.
	 */
	block(holdMs: number, earliestMs: number = holdMs, ticket?: number): void {
		const now = this.now();
		// The other refusals of an opening already refused: the look again stands.
		if (this.blocked && this.blockedEarly) return;
		const latest = now + Math.min(Math.max(holdMs, 1), RATE_WINDOW_MAX_MS);
		const earliest = Math.min(latest, now + Math.max(earliestMs, 1));
		// A look again refused: this request's own Retry-After has grown (repeated 429s back off),
		// but the first refusal's bound still holds.
		const stillEarly =
			this.reopenedSoon && this.earlyLookUntil !== undefined && now < this.earlyLookUntil;
		const estimate = this.blocked ? undefined : this.windowEndsAt;
		// Retry-After says the window may turn any moment (not a second or more away, as when
		// another client opened it): this process opened it a little before the service did.
		const turning = earliestMs < holdMs && earliestMs <= this.margin;
		const early =
			!this.blocked &&
			this.openedOnEstimate &&
			ticket !== undefined &&
			ticket >= this.firstTicket &&
			(turning || stillEarly);
		this.remaining = 0;
		this.blocked = true;
		this.blockedEarly = early;
		this.blockedUntilEstimate = false;
		this.aloneUntil = undefined;
		if (early && ticket === this.firstTicket && this.firstSentAt !== undefined) {
			// A lone request's refusal: how long one takes to come back.
			this.aloneMs = Math.min(
				RateGate.maxAloneMs,
				Math.max(RateGate.firstAloneMs, Math.round(1.5 * (now - this.firstSentAt))),
			);
		}
		if (early) {
			// The gate opened this window a little before the service did: the end is near. Look
			// again after the margin. When the estimate rested on a first request that reached the
			// service alone, its transit was longer than the margin: keep a larger one from now on.
			if (!this.reopenedSoon && this.previousStartPinned)
				this.margin = Math.min(this.margin * 2, 1_000);
			if (!stillEarly) this.earlyLookUntil = latest;
			this.windowEndsAt = Math.min(this.earlyLookUntil ?? latest, now + this.margin);
			return;
		}
		this.windowEndsAt =
			estimate === undefined ? latest : Math.min(latest, Math.max(earliest, estimate));
		this.blockedUntilEstimate = this.windowEndsAt < latest;
	}

	/** Says to wait for this window's end (or news of it), and remembers that requests did. */
	private hold(waitMs: number): Reservation {
		this.held = true;
		return { waitMs };
	}

	/**
	 * The window's end from what is known: the first request's time plus the length, within the
	 * headers' bounds; the current budget goes before it less a margin, the next one after it plus
	 * the margin (never after the latest end the headers allow).
	 */
	private settleEnd(): void {
		if (this.blocked) return;
		const latest = this.endNoLaterThan;
		const earliest =
			this.endNoEarlierThan !== undefined && this.endNoEarlierThan <= (latest ?? Infinity)
				? this.endNoEarlierThan
				: undefined;
		const opened =
			this.firstSentAt !== undefined && this.windowMs !== undefined
				? this.firstSentAt + this.windowMs
				: undefined;
		if (opened === undefined) {
			this.windowEndsAt = latest;
			this.spendUntil = earliest;
			return;
		}
		const end = Math.max(Math.min(opened, latest ?? Infinity), earliest ?? -Infinity);
		this.windowEndsAt = Math.min(end + this.margin, latest ?? Infinity);
		this.spendUntil = Math.max(end - this.margin, earliest ?? -Infinity);
	}

	/** A new window: its budget is the full limit (unknown until a response says). */
	private newWindow(waitedFor: boolean): void {
		this.reopenedSoon = this.blocked && this.blockedEarly;
		this.openedOnEstimate = !this.blocked || this.blockedEarly || this.blockedUntilEstimate;
		if (!this.reopenedSoon) {
			// The window whose start the next estimate rests on is this one, not a refused opening.
			this.previousStartPinned = this.startPinned;
			this.earlyLookUntil = undefined;
		}
		this.startPinned = false;
		this.blockedEarly = false;
		this.blockedUntilEstimate = false;
		this.aloneUntil = undefined;
		this.firstGoesAlone = waitedFor;
		this.held = false;
		this.remaining = this.limit;
		this.windowEndsAt = undefined;
		this.spendUntil = undefined;
		this.endNoEarlierThan = undefined;
		this.endNoLaterThan = undefined;
		this.firstSentAt = undefined;
		this.firstTicket = this.nextTicket;
		this.carriedOver = this.inFlight.size;
		this.blocked = false;
		this.mayBeLow = false;
		// Answers to requests sent in the old window no longer tell what is left.
		this.newestReported = this.nextTicket - 1;
	}
}

/** How long a key's gate is kept after its last request, and how many keys are kept. */
export const RATE_GATE_IDLE_MS = 60 * 60_000;
export const RATE_GATES_KEPT = 1_000;

/**
 * The gates of this process, one per (base URL, key). Bounded, so a process that sees many keys
 * over its life (rotated keys, many credentials) does not keep one gate per key forever: a gate
 * goes once no request of its key started for RATE_GATE_IDLE_MS (its window, at most a minute, is
 * long over; what it learned of the plan comes back with the next answers), or, beyond
 * RATE_GATES_KEPT keys, the one whose requests started longest ago goes first. A gate a request
 * holds is never dropped: two gates for one key would each spend the key's budget.
 */
export class RateGates {
	private readonly gates: BoundedCache<string, RateGate>;

	constructor(maxKeys = RATE_GATES_KEPT, idleMs = RATE_GATE_IDLE_MS, now: () => number = Date.now) {
		this.gates = new BoundedCache({
			maxEntries: maxKeys,
			ttlMs: idleMs,
			now,
			inUse: (gate) => gate.inUse,
		});
	}

	/**
	 * The gate of `identity`, made with the clock `now` when there is none. Each call counts as a
	 * use: the gate is kept RATE_GATE_IDLE_MS from now, and is the last to go by count.
	 */
	for(identity: string, now: () => number): RateGate {
		const gate = this.gates.get(identity) ?? new RateGate(now);
		this.gates.set(identity, gate);
		return gate;
	}

	get size(): number {
		return this.gates.size;
	}
}

const gates = new RateGates();

/**
 * The gate of one (base URL, key) pair in this process. The map key is only held in memory and
 * never printed; callers may pass a digest instead of the raw key. Look it up per request and
 * `acquire` it for the request's time: a gate kept by a client across idle hours may have been
 * dropped meanwhile.
 */
export function rateGateFor(identity: string, now: () => number = Date.now): RateGate {
	return gates.for(identity, now);
}
