import type { Decision } from '../contract';

/** How long a decision fetched to check inputs serves later executions of the same process. */
export const DECISION_REUSE_MS = 60_000;
/** Most decisions kept (all keys and slugs together); the oldest fetched goes first. */
const MAX_KEPT = 500;

interface Fetched {
	decision: Promise<Decision>;
	fetchedAt: number;
}

export interface RecentDecision {
	decision: Promise<Decision>;
	/** Fetched by an earlier call (maybe another execution), so it may be up to DECISION_REUSE_MS old. */
	reused: boolean;
}

/**
 * Decisions fetched to check inputs before anything is spent, shared by the executions of one
 * process per key and slug. Without it every execution asks for its decision before its first
 * decide: a webhook bringing one item per execution sent two requests per item, and each run
 * waited one round trip more than the decide itself. Executions starting together share one
 * fetch still in flight. A failed fetch is not kept. The caller checks an input again against a
 * fresh copy before refusing it (`fresh`), so a field removed on the service in the last minute
 * never blocks an item; a field added in that minute is checked by the service itself (a 400,
 * which is not charged).
 */
export class RecentDecisions {
	private readonly kept = new Map<string, Fetched>();

	constructor(private readonly reuseMs = DECISION_REUSE_MS) {}

	get(key: string, fetch: () => Promise<Decision>, now: number, fresh = false): RecentDecision {
		const known = this.kept.get(key);
		if (!fresh && known && now - known.fetchedAt < this.reuseMs) {
			return { decision: known.decision, reused: true };
		}
		const fetched: Fetched = { decision: fetch(), fetchedAt: now };
		// Re-inserted, so the Map's order is the order of fetching: the first key is the oldest.
		this.kept.delete(key);
		this.kept.set(key, fetched);
		if (this.kept.size > MAX_KEPT) {
			const oldest = this.kept.keys().next();
			if (!oldest.done) this.kept.delete(oldest.value);
		}
		fetched.decision.catch(() => {
			if (this.kept.get(key) === fetched) this.kept.delete(key);
		});
		return { decision: fetched.decision, reused: false };
	}

	/** Forget everything (tests). */
	clear(): void {
		this.kept.clear();
	}
}

/** The one instance of this process: the node's executions share it through their clients. */
export const recentDecisions = new RecentDecisions();
