import { z } from 'zod/v4';
import { ERROR_STATUS, type ErrorCode } from './errors';

/**
 * Fault injection (control surface `POST /_control/faults`): what a flaky network or gateway in
 * front of the service would do. Rules are tried in order for each request outside `/_control`;
 * a rule matches on method and path (a regular expression tested against the path with `/v1`,
 * without the query string); a matching rule draws one number from the seeded PRNG and fires
 * when it is below `probability`, at most `times` times. The first rule that fires applies, the
 * others are skipped for that request. With the same seed and the same sequence of requests the
 * same requests fail.
 *
 * Effects of a fired rule, in this order:
 * - `hold_until: { arrivals, max_wait_ms }`: holds the request on arrival, before anything else
 *   (the rate limit counts it once released), until this rule has fired for `arrivals` requests
 *   (counted per rule, the request that reaches the count included), then releases them all at
 *   once, in the order they arrived. The hold is an event, not a sleep: a test that needs "all N
 *   requests were sent before any answer" holds them until the Nth arrived. `max_wait_ms` bounds
 *   it: that long after the first held request arrived, the held ones are released anyway. Either
 *   way the hold is then over: later requests of the rule go on at once. A released request is
 *   handled as without the hold (the rule's other effects apply next); replacing the rules,
 *   `POST /_control/reset` and closing the sandbox release every held request (and stop the
 *   hold's timer). `GET /_control/faults` shows, for such a rule, `held` (requests waiting now)
 *   and `released_by` (`arrivals`, `max_wait`, `cleared` once the sandbox closed, or null while
 *   the hold lasts). `arrivals` above `times` is refused: the count could never be reached.
 * - `latency_ms`: waits before handling. With `latency_max_ms` too, the wait is drawn uniformly
 *   in [latency_ms, latency_max_ms] (whole milliseconds) from the same seeded PRNG, one draw per
 *   fired request: two rules make a mix, e.g. 10 % of decides at 3–5 s (a fallback after a
 *   primary-engine timeout, as the API text describes) and the rest at 600 ms. The wait changes
 *   nothing else: the answer and its headers are those of the same request without the rule.
 *   `latency_at` says where the wait is: `arrival` (the default) before any handling, so the
 *   rate limit counts the request after the wait; `engine`, for a decide, after the key, the rate
 *   limit, the body and the quota were checked, while the engine works: the decide takes its
 *   rate unit when it arrives, as with a rate limiter in front of the engines, an error or a 429
 *   comes back at once, and the answer's `latency_ms` includes the wait. A request with no
 *   engine phase (any other route, or a rule that answers a `status` or resets before) waits at
 *   arrival.
 * - `reset: 'before'`: destroys the connection before any handling (nothing changed, nothing charged).
 * - `status`: answers that status with the error envelope instead of handling (nothing changed,
 *   nothing charged). Code defaults by status (500 internal_error, 502 bad_gateway,
 *   503 service_unavailable, 504 gateway_timeout, 429 rate_limited, else the first code of
 *   ERROR_STATUS with that status). A 429 carries `Retry-After` (`retry_after`, default 1 s).
 * - `primary_timeout`: a decide waits the primary-engine timeout, then answers with
 *   `llm_fallback` (`fallback_reason: "primary_timeout"`).
 * - `reset: 'after'`: the request is handled (state changed, usage charged), then the
 *   connection is destroyed without any response.
 * - `malformed`: the request is handled, then answered 200 with a truncated, non-JSON body.
 */

/** The longest injected wait, ms (also the longest `hold_until.max_wait_ms`). */
export const MAX_FAULT_LATENCY_MS = 120_000;

export const holdUntilSchema = z.object({
	arrivals: z.number().int().min(1),
	max_wait_ms: z.number().int().min(1).max(MAX_FAULT_LATENCY_MS),
});

export const faultRuleSchema = z
	.object({
		method: z.string().min(1).optional(),
		path: z
			.string()
			.optional()
			.refine(
				(source) => {
					if (source === undefined) return true;
					try {
						new RegExp(source);
						return true;
					} catch {
						return false;
					}
				},
				{ message: 'must be a valid regular expression' },
			),
		probability: z.number().min(0).max(1).optional(),
		times: z.number().int().min(0).optional(),
		latency_ms: z.number().int().min(0).max(MAX_FAULT_LATENCY_MS).optional(),
		latency_max_ms: z.number().int().min(0).max(MAX_FAULT_LATENCY_MS).optional(),
		latency_at: z.enum(['arrival', 'engine']).optional(),
		status: z.number().int().min(100).max(599).optional(),
		code: z.string().min(1).optional(),
		message: z.string().optional(),
		retry_after: z.number().int().min(0).optional(),
		reset: z.enum(['before', 'after']).optional(),
		malformed: z.boolean().optional(),
		primary_timeout: z.boolean().optional(),
		hold_until: holdUntilSchema.optional(),
	})
	.refine(
		(rule) => rule.latency_max_ms === undefined || rule.latency_max_ms >= (rule.latency_ms ?? 0),
		{
			message: 'must be at least latency_ms',
			path: ['latency_max_ms'],
		},
	)
	.refine(
		(rule) =>
			rule.hold_until === undefined ||
			rule.times === undefined ||
			rule.hold_until.arrivals <= rule.times,
		{
			message: 'must be at most times: the rule fires for no more requests than that',
			path: ['hold_until', 'arrivals'],
		},
	);

export const faultsRequestSchema = z.object({
	seed: z.number().int().optional(),
	rules: z.array(faultRuleSchema),
});

export type FaultRule = z.output<typeof faultRuleSchema>;

/** What applies to one request. */
export interface FiredFault {
	rule: number;
	latencyMs: number;
	latencyAt: 'arrival' | 'engine';
	resetBefore: boolean;
	resetAfter: boolean;
	status?: number;
	code?: string;
	message?: string;
	retryAfter: number;
	malformed: boolean;
	primaryTimeout: boolean;
	/** With `hold_until`: settles when the rule's hold is released (already settled for the request that reaches the count). */
	hold?: Promise<void>;
}

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export function defaultFaultCode(status: number): string {
	switch (status) {
		case 500:
			return 'internal_error';
		case 502:
			return 'bad_gateway';
		case 503:
			return 'service_unavailable';
		case 504:
			return 'gateway_timeout';
		case 429:
			return 'rate_limited';
		default: {
			const match = (Object.keys(ERROR_STATUS) as ErrorCode[]).find(
				(code) => ERROR_STATUS[code] === status,
			);
			return match ?? 'internal_error';
		}
	}
}

/** Why a hold ended: its count was reached, its max wait elapsed, or the rules were replaced or the sandbox closed. */
type HoldRelease = 'arrivals' | 'max_wait' | 'cleared';

/**
 * The hold of one rule (`hold_until`): every request the rule fires for waits on one promise,
 * settled when the `arrivals`-th request arrives, `max_wait_ms` after the first one arrived, or
 * when `release` is called; after that, requests pass at once. Its one timer is cleared on release.
 */
class Hold {
	private arrived = 0;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private open: () => void = () => undefined;
	private readonly opened = new Promise<void>((resolve) => {
		this.open = resolve;
	});
	releasedBy: HoldRelease | undefined;

	/** `released`: a hold made while the sandbox closes holds nothing. */
	constructor(
		private readonly until: z.output<typeof holdUntilSchema>,
		released = false,
	) {
		if (released) this.release('cleared');
	}

	/** One more request of the rule: what it waits on. */
	arrive(): Promise<void> {
		this.arrived += 1;
		if (this.releasedBy === undefined) {
			if (this.arrived >= this.until.arrivals) this.release('arrivals');
			else this.timer ??= setTimeout(() => this.release('max_wait'), this.until.max_wait_ms);
		}
		return this.opened;
	}

	/** Requests waiting now. */
	get held(): number {
		return this.releasedBy === undefined ? this.arrived : 0;
	}

	release(reason: HoldRelease): void {
		if (this.releasedBy !== undefined) return;
		this.releasedBy = reason;
		clearTimeout(this.timer);
		this.timer = undefined;
		this.open();
	}
}

interface ActiveRule {
	rule: FaultRule;
	pattern?: RegExp;
	fired: number;
	hold?: Hold;
}

/** A rule as `GET /_control/faults` shows it. */
export type DescribedRule = FaultRule & {
	fired: number;
	/** With `hold_until`: requests held now. */
	held?: number;
	/** With `hold_until`: what released the hold, null while it lasts. */
	released_by?: HoldRelease | null;
};

export class FaultInjector {
	private rules: ActiveRule[] = [];
	private random: () => number;
	private seed: number;
	private closed = false;

	constructor(private readonly defaultSeed = 1) {
		this.seed = defaultSeed;
		this.random = mulberry32(defaultSeed);
	}

	/**
	 * Replaces the rules and restarts the PRNG (with `seed`, or the sandbox's fault seed). The
	 * requests the old rules hold are released.
	 */
	set(rules: FaultRule[], seed?: number): void {
		this.release();
		this.seed = seed ?? this.defaultSeed;
		this.random = mulberry32(this.seed);
		this.rules = rules.map((rule) => ({
			rule,
			pattern: rule.path === undefined ? undefined : new RegExp(rule.path),
			fired: 0,
			hold: rule.hold_until === undefined ? undefined : new Hold(rule.hold_until, this.closed),
		}));
	}

	clear(): void {
		this.set([]);
	}

	/** Releases every held request and stops the holds' timers (the rules change, the sandbox closes). */
	release(): void {
		for (const { hold } of this.rules) hold?.release('cleared');
	}

	/** The sandbox closes: every held request is released, and from now on none is held. */
	close(): void {
		this.closed = true;
		this.release();
	}

	describe(): { seed: number; rules: DescribedRule[] } {
		return {
			seed: this.seed,
			rules: this.rules.map(({ rule, fired, hold }) =>
				hold
					? { ...rule, fired, held: hold.held, released_by: hold.releasedBy ?? null }
					: { ...rule, fired },
			),
		};
	}

	/** The wait of a fired rule: `latency_ms`, or a uniform draw up to `latency_max_ms` when that is given. */
	private latencyOf(rule: FaultRule): number {
		const low = rule.latency_ms ?? 0;
		if (rule.latency_max_ms === undefined) return low;
		return low + Math.floor(this.random() * (rule.latency_max_ms - low + 1));
	}

	/** Decides what happens to a request; undefined when no rule fires. */
	next(method: string, path: string): FiredFault | undefined {
		for (let index = 0; index < this.rules.length; index += 1) {
			const active = this.rules[index];
			const { rule } = active;
			if (rule.method !== undefined && rule.method.toUpperCase() !== method.toUpperCase()) continue;
			if (active.pattern && !active.pattern.test(path)) continue;
			if (rule.times !== undefined && active.fired >= rule.times) continue;
			const draw = this.random();
			if (draw >= (rule.probability ?? 1)) continue;
			active.fired += 1;
			const fired: FiredFault = {
				rule: index,
				latencyMs: this.latencyOf(rule),
				latencyAt: rule.latency_at ?? 'arrival',
				resetBefore: rule.reset === 'before',
				resetAfter: rule.reset === 'after',
				retryAfter: rule.retry_after ?? 1,
				malformed: rule.malformed ?? false,
				primaryTimeout: rule.primary_timeout ?? false,
			};
			if (active.hold) fired.hold = active.hold.arrive();
			if (rule.status !== undefined) {
				fired.status = rule.status;
				fired.code = rule.code ?? defaultFaultCode(rule.status);
				fired.message = rule.message;
			}
			return fired;
		}
		return undefined;
	}
}
