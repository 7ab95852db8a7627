/**
 * How many decides to keep in flight so that the key's rate is used, from Little's law: requests
 * in flight = rate × latency. The rate is the key's (X-RateLimit-Limit per window), the latency is
 * measured on the answers; both are learned at run time, so a Scale key with slow answers gets
 * more in flight than a Free key with fast ones, with no setting to tune.
 *
 * The target is a ceiling on requests in flight, never a rate: the rate gate (rate-gate.ts) stays
 * the hard limit, so a target that is too high only makes requests wait there, and one that is too
 * low loses rate. Hence the shape of the rule:
 * - up at once when the need grows (a need above the target loses rate now);
 * - down only once the need is clearly lower (below 60 % of the target), so the noise of a
 *   mixed-latency stream (fallbacks of a few seconds among sub-second answers) does not make it
 *   swing; after a latency spike it comes down step by step, never up again meanwhile;
 * - the latency is the mean of the last 64 answers, with 50 % headroom over rate × latency: a
 *   target that is too high costs nothing (the gate holds the rate), one too low loses rate;
 * - at most the window's whole budget and the caller's cap; a cautious start (5) until the first
 *   answer tells the rate, so the first requests of a run cannot make a burst of 429s.
 */
import { RATE_WINDOW_MAX_MS } from './rate-headers';
import type { RateWindowInfo } from './rate-gate';

/** In flight before any answer has told the rate and the latency. */
export const INITIAL_IN_FLIGHT = 5;
/** The target never passes this, whatever the cap (the node's option allows up to it). */
export const MAX_IN_FLIGHT = 100;
export interface ControllerTuning {
	/** In flight over rate × latency. */
	headroom: number;
	/** The target comes down only when the need falls below this share of it. */
	lowerBelow: number;
	/** Answers the latency is averaged over. */
	samples: number;
}

/**
 * Chosen on the simulated fallback mix of test/unit/concurrency.test.ts (10 % of answers at 3–5 s):
 * with 32 answers and a 0.8 band the target turned about 50 times in 150 s; with these, 4 to 7
 * times, never below the need.
 */
export const DEFAULT_TUNING: ControllerTuning = { headroom: 1.5, lowerBelow: 0.6, samples: 64 };

export class ConcurrencyController {
	private readonly latencies: number[] = [];
	private latencySum = 0;
	private nextSample = 0;
	private limit?: number;
	/** The longest "seconds until the window resets" seen: the window's length (at most a minute). */
	private windowMs?: number;
	private current?: number;

	constructor(private readonly tuning: ControllerTuning = DEFAULT_TUNING) {}

	/**
	 * One decide answered (2xx): how long the request took on the wire, and what its rate headers
	 * said (already bounded by rate-headers.ts).
	 */
	observe(latencyMs: number, window: RateWindowInfo = {}): void {
		if (Number.isFinite(latencyMs) && latencyMs >= 0) this.addLatency(latencyMs);
		if (window.limit !== undefined) this.limit = window.limit;
		if (window.resetSeconds !== undefined && window.resetSeconds > 0) {
			const resetMs = Math.min(window.resetSeconds * 1000, RATE_WINDOW_MAX_MS);
			this.windowMs = Math.max(this.windowMs ?? 0, resetMs);
		}
		const need = this.need();
		if (need === undefined) return;
		if (
			this.current === undefined ||
			need > this.current ||
			need < this.current * this.tuning.lowerBelow
		) {
			this.current = need;
		}
	}

	/** Requests in flight this key should have at most, for a caller that allows at most `cap`. */
	target(cap: number = MAX_IN_FLIGHT): number {
		const ceiling = Math.max(1, Math.min(Math.floor(cap), MAX_IN_FLIGHT));
		return Math.min(this.current ?? INITIAL_IN_FLIGHT, ceiling);
	}

	/** Mean latency of the recent answers in ms, if any (for reports and tests). */
	meanLatencyMs(): number | undefined {
		return this.latencies.length ? this.latencySum / this.latencies.length : undefined;
	}

	/** rate × latency × headroom, within [1, the window's budget]; no limit known: the most allowed. */
	private need(): number | undefined {
		const latencyMs = this.meanLatencyMs();
		if (latencyMs === undefined) return undefined;
		if (this.limit === undefined) return MAX_IN_FLIGHT;
		const perMs = this.limit / (this.windowMs ?? RATE_WINDOW_MAX_MS);
		const inFlight = Math.ceil(perMs * latencyMs * this.tuning.headroom);
		return Math.max(1, Math.min(inFlight, this.limit, MAX_IN_FLIGHT));
	}

	private addLatency(latencyMs: number): void {
		if (this.latencies.length < this.tuning.samples) {
			this.latencies.push(latencyMs);
		} else {
			this.latencySum -= this.latencies[this.nextSample];
			this.latencies[this.nextSample] = latencyMs;
			this.nextSample = (this.nextSample + 1) % this.tuning.samples;
		}
		this.latencySum += latencyMs;
	}
}

const controllers = new Map<string, ConcurrencyController>();

/**
 * The controller of one (base URL, key) pair in this process, shared like its rate gate, so a new
 * run starts from what the last one learned. The map key is held in memory only.
 */
export function concurrencyControllerFor(identity: string): ConcurrencyController {
	let controller = controllers.get(identity);
	if (!controller) {
		controller = new ConcurrencyController();
		controllers.set(identity, controller);
	}
	return controller;
}
