/**
 * The one shape of state a process keeps between executions: a map bounded in entries and in
 * time. Every process-wide map of the node uses it (the answer memo, the budget, recent decisions,
 * the rate gates, submitted reviews); docs/what-happens-when.md has the table of their limits.
 *
 * - `set` puts an entry last, expiring `ttlMs` after now; `get` neither refreshes nor reorders it.
 *   So the order of the entries is the order of their last `set`, which is also their order of
 *   expiry: the first entries are the oldest and go first, by count or by time.
 * - An entry past its time is never returned; it is dropped when read, or when a `set` finds it
 *   at the front.
 * - `inUse` (optional) says an entry must stay, whatever its age and the count: it is returned
 *   past its time and skipped by eviction (the cache then holds more than `maxEntries` until it is
 *   released). The rate gates use it so a gate is never dropped while a request holds it.
 * - Time is read from `now` only (tests pass a virtual clock); nothing runs in the background.
 * - A JavaScript Map: any string is a key like any other (`__proto__`, `constructor`).
 */
export interface BoundedCacheOptions<V> {
	/** Most entries kept; the oldest go first beyond it. */
	maxEntries: number;
	/** How long an entry lives after its last `set`; Infinity: it goes by count only. */
	ttlMs: number;
	/** The clock, in ms. Default Date.now. */
	now?: () => number;
	/** An entry that must not go yet, whatever its age and the count. */
	inUse?: (value: V) => boolean;
}

interface Entry<V> {
	value: V;
	expiresAt: number;
}

export class BoundedCache<K, V> {
	private readonly entries = new Map<K, Entry<V>>();
	private readonly maxEntries: number;
	private readonly ttlMs: number;
	private readonly now: () => number;
	private readonly inUse?: (value: V) => boolean;

	constructor(options: BoundedCacheOptions<V>) {
		if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) {
			throw new RangeError(
				`BoundedCache: maxEntries must be a whole number of at least 1, got ${options.maxEntries}`,
			);
		}
		if (!(options.ttlMs > 0)) {
			throw new RangeError(`BoundedCache: ttlMs must be above 0, got ${options.ttlMs}`);
		}
		this.maxEntries = options.maxEntries;
		this.ttlMs = options.ttlMs;
		this.now = options.now ?? Date.now;
		this.inUse = options.inUse;
	}

	/** The value kept under `key`; undefined when none, or when its time is up (it is dropped). */
	get(key: K): V | undefined {
		const entry = this.entries.get(key);
		if (!entry) return undefined;
		if (this.expired(entry, this.now())) {
			this.entries.delete(key);
			return undefined;
		}
		return entry.value;
	}

	has(key: K): boolean {
		return this.get(key) !== undefined;
	}

	/** Keeps `value` as the newest entry, for `ttlMs` from now; then the oldest go while too many. */
	set(key: K, value: V): void {
		const now = this.now();
		this.entries.delete(key);
		this.entries.set(key, { value, expiresAt: now + this.ttlMs });
		this.trim(now);
	}

	delete(key: K): boolean {
		return this.entries.delete(key);
	}

	clear(): void {
		this.entries.clear();
	}

	/** Entries held, some maybe past their time and not yet dropped. */
	get size(): number {
		return this.entries.size;
	}

	private expired(entry: Entry<V>, now: number): boolean {
		return entry.expiresAt <= now && !this.inUse?.(entry.value);
	}

	/**
	 * Drops from the front (the oldest) while there are too many or the front's time is up. Entries
	 * in use are stepped over, and so is the one just set (the newest, last). The entries expire in
	 * order, so the first one alive and not over the count ends the walk: without entries in use
	 * this costs one step per entry dropped.
	 */
	private trim(now: number): void {
		let over = this.entries.size - this.maxEntries;
		let older = this.entries.size - 1;
		for (const [key, entry] of this.entries) {
			if (older-- === 0 || (over <= 0 && entry.expiresAt > now)) return;
			if (this.inUse?.(entry.value)) continue;
			// Deleting the entry being visited is safe while iterating a Map.
			this.entries.delete(key);
			over -= 1;
		}
	}
}
