import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { Run } from '../src/contract';
import { validateCreateDecisionRequest } from '../src/contract/validation';
import { nextPeriodStart, periodOf, VirtualClock } from './clock';
import { versionFromDefinition, type StoredDecision, type StoredVersion } from './decisions';
import { DAY_MS, PLANS, type PiiMode, type Plan, type PlanName } from './plans';
import { SEED_ACCOUNTS, SEED_DECISIONS } from './seed';

/**
 * The sandbox's state: accounts (one per demo key's plan), their decisions with every version,
 * their runs and their monthly usage; plus the per-key rate windows, which are not persisted.
 * Only pseudonymised inputs ever reach a run record.
 */

export const DEFAULT_RATE_WINDOW_MS = 60_000;
/** Runs kept per account at most (oldest dropped first), so a long benchmark cannot exhaust memory. */
export const MAX_RUNS_PER_ACCOUNT = 20_000;

export interface StoredRun {
	run_id: string;
	decision: string;
	version: number;
	created_at: string;
	/** The input as the engine saw it: pseudonymised. The raw input is never stored. */
	input: unknown;
	pii_redacted: number;
	/** Substitutions per kind, e.g. { EMAIL: 1, CUSTOMER_EMAIL: 1 }. */
	pii_kinds: Record<string, number>;
	/** Matched (stemmed) tokens per item: why the engine answered so. */
	explanation: Record<string, string[]>;
	/** The answer sent to the client. */
	response: Run;
	feedback?: { feedback: string; note?: string; at: string };
	/** Every feedback received on the run, oldest first (the last is `feedback`): for tests. */
	feedback_history?: Array<{ feedback: string; note?: string; at: string }>;
}

export interface Account {
	id: string;
	plan: PlanName;
	pii_mode: PiiMode;
	decisions: Map<string, StoredDecision>;
	runs: Map<string, StoredRun>;
	usage: { period: string; used: number };
}

export interface KeyRecord {
	account: string;
	revoked: boolean;
}

export type KeyResolution =
	| { status: 'ok'; account: Account; key: string }
	| { status: 'missing' }
	| { status: 'unknown' }
	| { status: 'revoked' };

export interface RateInfo {
	limit: number;
	remaining: number;
	/** Milliseconds until the current window ends; 0 when no window is running. */
	resetMs: number;
}

/** JSON form of the state (the `--data` file). */
export interface StoreSnapshot {
	format: 1;
	saved_at: string;
	clock_offset_ms: number;
	rate_window_ms: number;
	keys: Record<string, KeyRecord>;
	accounts: Array<{
		id: string;
		plan: PlanName;
		pii_mode: PiiMode;
		usage: { period: string; used: number };
		decisions: StoredDecision[];
		runs: StoredRun[];
	}>;
}

export class SandboxStore {
	readonly clock: VirtualClock;
	rateWindowMs = DEFAULT_RATE_WINDOW_MS;
	private accounts = new Map<string, Account>();
	private keys = new Map<string, KeyRecord>();
	private rates = new Map<string, { start: number; count: number }>();
	private readonly listeners = new Set<() => void>();
	/** Runs added since start: every 1000th sweeps the account's expired runs. */
	private inserts = 0;

	constructor(clock: VirtualClock = new VirtualClock()) {
		this.clock = clock;
		this.seed();
	}

	// -- lifecycle ------------------------------------------------------------------------------

	/** Back to the seed state: demo accounts, keys and decisions, no runs, no usage, clock offset 0. */
	reset(): void {
		this.clock.reset();
		this.rateWindowMs = DEFAULT_RATE_WINDOW_MS;
		this.seed();
		this.changed();
	}

	private seed(): void {
		this.accounts = new Map();
		this.keys = new Map();
		this.rates = new Map();
		const now = this.clock.iso();
		for (const seed of SEED_ACCOUNTS) {
			const account: Account = {
				id: seed.id,
				plan: seed.plan,
				pii_mode: seed.piiMode,
				decisions: new Map(),
				runs: new Map(),
				usage: { period: periodOf(this.clock.now()), used: 0 },
			};
			for (const body of SEED_DECISIONS) {
				const validated = validateCreateDecisionRequest(body);
				if (!validated.ok || validated.value.shape !== 'definition') {
					throw new Error(`seed decision ${body.slug} is invalid: ${JSON.stringify(validated)}`);
				}
				const { body: definition, items } = validated.value;
				const slug = definition.slug ?? '';
				account.decisions.set(slug, {
					slug,
					name: definition.name,
					description: definition.description ?? '',
					type: definition.type,
					live_version: 1,
					created_at: now,
					updated_at: now,
					versions: [versionFromDefinition(definition, items, 1, now)],
				});
			}
			this.accounts.set(account.id, account);
			for (const { key, revoked } of seed.keys)
				this.keys.set(key, { account: account.id, revoked });
		}
	}

	/** Called after every change of persisted state (the `--data` file saver listens). */
	onChange(listener: () => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	changed(): void {
		for (const listener of this.listeners) listener();
	}

	// -- keys and accounts ----------------------------------------------------------------------

	resolveKey(key: string | undefined): KeyResolution {
		if (!key) return { status: 'missing' };
		const record = this.keys.get(key);
		if (!record) return { status: 'unknown' };
		if (record.revoked) return { status: 'revoked' };
		const account = this.accounts.get(record.account);
		return account ? { status: 'ok', account, key } : { status: 'unknown' };
	}

	/** The account of any known key, revoked or not (control surface). */
	accountForKey(key: string): Account | undefined {
		const record = this.keys.get(key);
		return record ? this.accounts.get(record.account) : undefined;
	}

	account(id: string): Account | undefined {
		return this.accounts.get(id);
	}

	listAccounts(): Account[] {
		return [...this.accounts.values()];
	}

	plan(account: Account): Plan {
		return PLANS[account.plan];
	}

	// -- rate limit: fixed window per key on the virtual clock ---------------------------------

	private activeWindow(key: string): { start: number; count: number } | undefined {
		const window = this.rates.get(key);
		const now = this.clock.now();
		if (!window || now >= window.start + this.rateWindowMs || now < window.start) return undefined;
		return window;
	}

	/** The key's budget now; null for a plan without rate limit. */
	rate(key: string, plan: Plan): RateInfo | null {
		if (plan.rateLimit === null) return null;
		const window = this.activeWindow(key);
		if (!window) return { limit: plan.rateLimit, remaining: plan.rateLimit, resetMs: 0 };
		return {
			limit: plan.rateLimit,
			remaining: Math.max(0, plan.rateLimit - window.count),
			resetMs: window.start + this.rateWindowMs - this.clock.now(),
		};
	}

	/**
	 * Takes one request from the key's budget, starting a window if none is running. Returns the
	 * window's start as a token for `releaseRate` (an error answer gives the request back), or
	 * the refusal. Plans without rate limit always pass (token null).
	 */
	reserveRate(
		key: string,
		plan: Plan,
	): { ok: true; token: number | null } | { ok: false; info: RateInfo } {
		if (plan.rateLimit === null) return { ok: true, token: null };
		let window = this.activeWindow(key);
		if (!window) {
			window = { start: this.clock.now(), count: 0 };
			this.rates.set(key, window);
		}
		if (window.count >= plan.rateLimit) {
			return { ok: false, info: this.rate(key, plan) as RateInfo };
		}
		window.count += 1;
		return { ok: true, token: window.start };
	}

	releaseRate(key: string, token: number | null): void {
		if (token === null) return;
		const window = this.rates.get(key);
		if (window && window.start === token && window.count > 0) window.count -= 1;
	}

	// -- monthly quota: per account, UTC calendar month on the virtual clock ---------------------

	usage(account: Account): { period: string; used: number } {
		const period = periodOf(this.clock.now());
		if (account.usage.period !== period) account.usage = { period, used: 0 };
		return { ...account.usage };
	}

	/** Seconds until the quota period resets (next first day of a month, UTC), at least 1. */
	quotaRetryAfter(): number {
		const now = this.clock.now();
		return Math.max(1, Math.ceil((nextPeriodStart(now) - now) / 1000));
	}

	/** Takes one unit of the month's quota, or refuses at the quota. Plans without quota always pass. */
	reserveQuota(
		account: Account,
	): { ok: true; period: string } | { ok: false; used: number; quota: number } {
		const plan = this.plan(account);
		const usage = this.usage(account);
		if (plan.quota !== null && usage.used >= plan.quota)
			return { ok: false, used: usage.used, quota: plan.quota };
		account.usage.used += 1;
		this.changed();
		return { ok: true, period: usage.period };
	}

	/** Gives a unit back (the decide ended in an error). */
	releaseQuota(account: Account, period: string): void {
		if (account.usage.period === period) {
			account.usage.used -= 1;
			this.changed();
		}
	}

	/** Sets this month's usage. A negative value is accepted: it lifts the quota by that much (tests). */
	setUsed(account: Account, used: number): void {
		account.usage = { period: periodOf(this.clock.now()), used };
		this.changed();
	}

	// -- decisions ------------------------------------------------------------------------------

	decisions(account: Account): StoredDecision[] {
		return [...account.decisions.values()].sort((a, b) =>
			a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0,
		);
	}

	decision(account: Account, slug: string): StoredDecision | undefined {
		return account.decisions.get(slug);
	}

	liveCount(account: Account): number {
		let live = 0;
		for (const decision of account.decisions.values())
			if (decision.live_version !== null) live += 1;
		return live;
	}

	insertDecision(account: Account, decision: StoredDecision): void {
		account.decisions.set(decision.slug, decision);
		this.changed();
	}

	/** Adds version N+1; when `publish`, it becomes live. Earlier versions stay for rollback. */
	addVersion(
		decision: StoredDecision,
		version: Omit<StoredVersion, 'version' | 'created_at'>,
		publish: boolean,
	): StoredVersion {
		const now = this.clock.iso();
		const number = decision.versions.reduce((max, v) => Math.max(max, v.version), 0) + 1;
		const stored: StoredVersion = { ...version, version: number, created_at: now };
		decision.versions.push(stored);
		if (publish) {
			decision.live_version = number;
			delete decision.publish_error;
		}
		decision.updated_at = now;
		this.changed();
		return stored;
	}

	setLive(decision: StoredDecision, version: number): void {
		decision.live_version = version;
		delete decision.publish_error;
		decision.updated_at = this.clock.iso();
		this.changed();
	}

	// -- runs -----------------------------------------------------------------------------------

	private expired(account: Account, run: StoredRun): boolean {
		const cutoff = this.clock.now() - this.plan(account).retentionDays * DAY_MS;
		return Date.parse(run.created_at) < cutoff;
	}

	addRun(account: Account, run: StoredRun): void {
		account.runs.set(run.run_id, run);
		if (account.runs.size > MAX_RUNS_PER_ACCOUNT) {
			const oldest = account.runs.keys().next().value;
			if (oldest !== undefined) account.runs.delete(oldest);
		}
		this.inserts += 1;
		if (this.inserts % 1000 === 0) this.purge(account);
		this.changed();
	}

	/** A run of the account, unless unknown or past the plan's retention (then purged). */
	run(account: Account, runId: string): StoredRun | undefined {
		const run = account.runs.get(runId);
		if (!run) return undefined;
		if (this.expired(account, run)) {
			account.runs.delete(runId);
			this.changed();
			return undefined;
		}
		return run;
	}

	/** Finds a run in any account (tests). */
	findRun(runId: string): StoredRun | undefined {
		for (const account of this.accounts.values()) {
			const run = this.run(account, runId);
			if (run) return run;
		}
		return undefined;
	}

	/** A decision by slug in any account, the first found (the pages behind the API's links). */
	findDecision(slug: string): StoredDecision | undefined {
		for (const account of this.accounts.values()) {
			const decision = account.decisions.get(slug);
			if (decision) return decision;
		}
		return undefined;
	}

	/** Drops the runs past retention (all accounts when none is given). */
	purge(account?: Account): number {
		let purged = 0;
		for (const target of account ? [account] : this.accounts.values()) {
			for (const run of [...target.runs.values()]) {
				if (this.expired(target, run)) {
					target.runs.delete(run.run_id);
					purged += 1;
				}
			}
		}
		if (purged) this.changed();
		return purged;
	}

	setFeedback(run: StoredRun, feedback: string, note: string | undefined): void {
		run.feedback = { feedback, at: this.clock.iso() };
		if (note !== undefined) run.feedback.note = note;
		run.feedback_history = [...(run.feedback_history ?? []), run.feedback];
		this.changed();
	}

	// -- persistence ----------------------------------------------------------------------------

	snapshot(): StoreSnapshot {
		this.purge();
		return {
			format: 1,
			saved_at: new Date().toISOString(),
			clock_offset_ms: this.clock.offsetMs,
			rate_window_ms: this.rateWindowMs,
			keys: Object.fromEntries(this.keys),
			accounts: [...this.accounts.values()].map((account) => ({
				id: account.id,
				plan: account.plan,
				pii_mode: account.pii_mode,
				usage: { ...account.usage },
				decisions: [...account.decisions.values()],
				runs: [...account.runs.values()],
			})),
		};
	}

	/** Replaces the state by a snapshot (a `--data` file). */
	load(snapshot: StoreSnapshot): void {
		if (
			snapshot?.format !== 1 ||
			!Array.isArray(snapshot.accounts) ||
			typeof snapshot.keys !== 'object'
		) {
			throw new Error('not a sandbox data file (format 1)');
		}
		this.clock.reset();
		this.clock.advance(Number(snapshot.clock_offset_ms) || 0);
		this.rateWindowMs = Number(snapshot.rate_window_ms) || DEFAULT_RATE_WINDOW_MS;
		this.keys = new Map(Object.entries(snapshot.keys));
		this.accounts = new Map(
			snapshot.accounts.map((account) => [
				account.id,
				{
					id: account.id,
					plan: account.plan,
					pii_mode: account.pii_mode,
					usage: account.usage,
					decisions: new Map(account.decisions.map((decision) => [decision.slug, decision])),
					runs: new Map(account.runs.map((run) => [run.run_id, run])),
				},
			]),
		);
		this.rates = new Map();
	}

	loadFile(file: string): void {
		let text: string;
		try {
			text = readFileSync(file, 'utf8');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
			throw error;
		}
		try {
			// The file is validated by `load` before anything in it is used.
			this.load(JSON.parse(text) as StoreSnapshot);
		} catch (error) {
			throw new Error(`Cannot read sandbox data file ${file}: ${(error as Error).message}`);
		}
	}
}

/** Writes snapshots of a store to a JSON file, debounced after changes, atomically (temp file + rename). */
export class StoreFile {
	private timer: NodeJS.Timeout | undefined;
	private writing: Promise<void> = Promise.resolve();
	private readonly unsubscribe: () => void;

	constructor(
		private readonly store: SandboxStore,
		private readonly file: string,
		private readonly debounceMs = 200,
	) {
		this.unsubscribe = store.onChange(() => this.schedule());
	}

	private schedule(): void {
		if (this.timer) return;
		this.timer = setTimeout(() => {
			this.timer = undefined;
			void this.save();
		}, this.debounceMs);
		this.timer.unref();
	}

	save(): Promise<void> {
		const text = JSON.stringify(this.store.snapshot(), null, '\t');
		const temp = `${this.file}.${process.pid}.tmp`;
		this.writing = this.writing
			.then(async () => {
				await writeFile(temp, text, 'utf8');
				await rename(temp, this.file);
			})
			.catch((error: unknown) => {
				process.stderr.write(`sandbox: could not save ${this.file}: ${(error as Error).message}\n`);
			});
		return this.writing;
	}

	/** Stops listening and writes the final state. */
	async close(): Promise<void> {
		this.unsubscribe();
		if (this.timer) clearTimeout(this.timer);
		this.timer = undefined;
		await this.save();
	}
}
