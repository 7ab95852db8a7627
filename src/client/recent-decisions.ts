import type { Decision } from '../contract';
import { BoundedCache } from './bounded-cache';

/** How long a decision fetched to check inputs serves later executions of the same process as is. */
export const DECISION_REUSE_MS = 60_000;
/**
 * After that, how long a copy still serves the checks while a new one is fetched beside the run
 * (stale while revalidating): a run every few minutes then waits for no read before its decides.
 */
export const DECISION_STALE_MAX_MS = 24 * 60 * 60_000;
/** Most decisions kept (all keys and slugs together); the oldest fetched goes first. */
const MAX_KEPT = 500;

interface Fetched {
	decision: Promise<Decision>;
	fetchedAt: number;
	/** The fetch succeeded: the copy can serve while a newer one is on its way. */
	settled: boolean;
	/** A newer copy is being fetched beside the runs this one serves. */
	refreshing: boolean;
}

export interface RecentDecision {
	decision: Promise<Decision>;
	/** Fetched by an earlier call (maybe another execution): it may be older than the service's. */
	reused: boolean;
	/**
	 * Set when the copy is older than DECISION_REUSE_MS: fetches a new one for later calls, once,
	 * without anybody waiting on it (the copy keeps serving until it arrives; a failure keeps it).
	 * The caller starts it when its own requests are on their way, so the read never goes before them.
	 */
	refresh?: () => void;
}

/**
 * Decisions fetched to check inputs before anything is spent, shared by the executions of one
 * process per key and slug. Without it every execution asks for its decision before its first
 * decide: a webhook bringing one item per execution sent two requests per item, and each run
 * waited one round trip more than the decide itself. Executions starting together share one
 * fetch still in flight. A failed fetch is not kept. A copy older than a minute still serves (up to
 * a day) while a new one is fetched beside the run. Why an old copy is safe: the caller checks an
 * input again against a fresh copy before refusing it (`fresh`), so a field removed on the service
 * never blocks an item; a field added since is checked by the service itself (a 400, which is not
 * charged). The decision is only used for these checks; routing follows the node's Outputs list.
 */
export class RecentDecisions {
	/**
	 * By count only: age is judged by `get` against the caller's clock (a copy past
	 * DECISION_STALE_MAX_MS is fetched anew and replaces it). The first key is the oldest fetched.
	 */
	private readonly kept = new BoundedCache<string, Fetched>({
		maxEntries: MAX_KEPT,
		ttlMs: Infinity,
	});
	/** Refreshes in flight, each settling once its copy is kept or its fetch failed. */
	private readonly refreshes = new Set<Promise<void>>();

	constructor(
		private readonly reuseMs = DECISION_REUSE_MS,
		private readonly staleMaxMs = DECISION_STALE_MAX_MS,
	) {}

	get(key: string, fetch: () => Promise<Decision>, now: number, fresh = false): RecentDecision {
		const known = this.kept.get(key);
		if (!fresh && known) {
			const age = now - known.fetchedAt;
			if (age < this.reuseMs) return { decision: known.decision, reused: true };
			if (known.settled && age < this.staleMaxMs) {
				return {
					decision: known.decision,
					reused: true,
					refresh: () => this.refresh(key, known, fetch, now),
				};
			}
		}
		return { decision: this.fetch(key, fetch, now).decision, reused: false };
	}

	/** Forget everything (tests). */
	clear(): void {
		this.kept.clear();
	}

	/** Settles once the refreshes started so far have ended (tests: no wait on a clock). */
	async refreshed(): Promise<void> {
		await Promise.all([...this.refreshes]);
	}

	private fetch(key: string, fetch: () => Promise<Decision>, now: number): Fetched {
		const fetched: Fetched = {
			decision: fetch(),
			fetchedAt: now,
			settled: false,
			refreshing: false,
		};
		this.keep(key, fetched);
		fetched.decision.then(
			() => (fetched.settled = true),
			() => {
				if (this.kept.get(key) === fetched) this.kept.delete(key);
			},
		);
		return fetched;
	}

	/** A newer copy for `key`, kept once it arrives, if `old` is still the one kept then. */
	private refresh(key: string, old: Fetched, fetch: () => Promise<Decision>, now: number): void {
		if (old.refreshing || this.kept.get(key) !== old) return;
		old.refreshing = true;
		const decision = fetch();
		const ended = decision.then(
			() => {
				if (this.kept.get(key) !== old) return;
				this.keep(key, { decision, fetchedAt: now, settled: true, refreshing: false });
			},
			() => {
				// The copy keeps serving; a later call may try again.
				old.refreshing = false;
			},
		);
		this.refreshes.add(ended);
		void ended.then(() => this.refreshes.delete(ended));
	}

	private keep(key: string, fetched: Fetched): void {
		this.kept.set(key, fetched);
	}
}

/** The one instance of this process: the node's executions share it through their clients. */
export const recentDecisions = new RecentDecisions();
