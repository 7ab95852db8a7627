/**
 * Spreads the starts of requests over one round trip: at most one start every
 * (shortest round trip seen) ÷ concurrency milliseconds.
 *
 * Why: when every answer takes about as long, requests started together come back together.
 * A single-threaded host such as n8n then handles those answers one after the other (about a
 * millisecond of its own work each), and the next requests leave together again, so the burst
 * never dissolves and every request also waits for the whole burst. Starts spread over one round
 * trip keep as many requests in flight without that queue. The pace never lowers throughput
 * below concurrency ÷ round trip, which is the most the concurrency allows anyway.
 */
export class StartPacer {
	private shortestRoundTripMs = Number.POSITIVE_INFINITY;
	private nextStartAt = Number.NEGATIVE_INFINITY;

	constructor(
		private readonly concurrency: number,
		private readonly now: () => number,
	) {}

	/** Reserves the next start; returns how many milliseconds to wait before it (0: start now). */
	reserve(): number {
		const now = this.now();
		const spacingMs = Number.isFinite(this.shortestRoundTripMs) ? this.shortestRoundTripMs / this.concurrency : 0;
		const startAt = Math.max(now, this.nextStartAt);
		this.nextStartAt = startAt + spacingMs;
		return startAt - now;
	}

	/** Learns from the round trip of one answered request. */
	observe(roundTripMs: number): void {
		if (roundTripMs >= 0 && roundTripMs < this.shortestRoundTripMs) this.shortestRoundTripMs = roundTripMs;
	}
}
