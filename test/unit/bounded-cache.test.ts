/**
 * The process's one bounded map (src/client/bounded-cache.ts) on a virtual clock, and the rate
 * gates' bound built on it (RateGates in src/client/rate-gate.ts): an idle gate goes, a gate a
 * request holds never does.
 */
import {
	BoundedCache,
	DecisionClient,
	RateGate,
	rateGateFor,
	type TransportResponse,
} from '../../src/client';
import { RateGates } from '../../src/client/rate-gate';

function virtualClock(start = 0) {
	let now = start;
	return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('BoundedCache', () => {
	it('drops the oldest first once over its count; a set makes an entry the newest again', () => {
		const cache = new BoundedCache<string, number>({ maxEntries: 3, ttlMs: Infinity });
		cache.set('a', 1);
		cache.set('b', 2);
		cache.set('c', 3);
		cache.set('a', 10); // a is now the newest: b is the oldest
		cache.set('d', 4);
		expect(cache.size).toBe(3);
		expect(cache.get('b')).toBeUndefined();
		expect([cache.get('c'), cache.get('a'), cache.get('d')]).toEqual([3, 10, 4]);
		cache.set('e', 5);
		expect(cache.get('c')).toBeUndefined();
		expect(cache.get('a')).toBe(10);
	});

	it('a get neither refreshes an entry’s time nor saves it from eviction', () => {
		const clock = virtualClock();
		const cache = new BoundedCache<string, number>({ maxEntries: 2, ttlMs: 1_000, now: clock.now });
		cache.set('a', 1);
		cache.set('b', 2);
		clock.advance(900);
		expect(cache.get('a')).toBe(1);
		cache.set('c', 3);
		expect(cache.get('a')).toBeUndefined();
		clock.advance(100); // b was set 1,000 ms ago
		expect(cache.get('b')).toBeUndefined();
		expect(cache.get('c')).toBe(3);
	});

	it('forgets an entry when its time is up, to the millisecond of the virtual clock', () => {
		const clock = virtualClock(5_000);
		const cache = new BoundedCache<string, string>({
			maxEntries: 10,
			ttlMs: 1_000,
			now: clock.now,
		});
		cache.set('k', 'v');
		clock.advance(999);
		expect(cache.get('k')).toBe('v');
		expect(cache.has('k')).toBe(true);
		clock.advance(1);
		expect(cache.has('k')).toBe(false);
		expect(cache.size).toBe(0);
	});

	it('a set drops the entries whose time is up, not only those over the count', () => {
		const clock = virtualClock();
		const cache = new BoundedCache<number, number>({
			maxEntries: 100,
			ttlMs: 1_000,
			now: clock.now,
		});
		for (let index = 0; index < 5; index++) {
			cache.set(index, index);
			clock.advance(300);
		}
		// Set at 0, 300, 600, 900, 1200; now 1500: the first two are past their time.
		cache.set(99, 99);
		expect(cache.size).toBe(4);
		expect(cache.get(2)).toBe(2);
	});

	it('with Infinity as its time, entries go by count only', () => {
		const clock = virtualClock();
		const cache = new BoundedCache<string, true>({
			maxEntries: 2,
			ttlMs: Infinity,
			now: clock.now,
		});
		cache.set('x', true);
		clock.advance(10 * 365 * 86_400_000);
		expect(cache.has('x')).toBe(true);
	});

	it('takes `__proto__`, `constructor` and other Object.prototype names as ordinary keys', () => {
		const cache = new BoundedCache<string, number>({ maxEntries: 10, ttlMs: Infinity });
		const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'];
		for (const name of names) expect(cache.get(name)).toBeUndefined();
		names.forEach((name, index) => cache.set(name, index));
		expect(names.map((name) => cache.get(name))).toEqual([0, 1, 2, 3, 4]);
		expect(cache.size).toBe(5);
		expect(cache.delete('__proto__')).toBe(true);
		expect(cache.has('__proto__')).toBe(false);
		expect(cache.get('constructor')).toBe(1);
		// Nothing leaked onto objects.
		expect(({} as Record<string, unknown>).constructor).toBe(Object);
	});

	it('keeps an entry in use past its time and over the count, and drops it once released', () => {
		const clock = virtualClock();
		const busy = new Set<string>(['a']);
		const cache = new BoundedCache<string, string>({
			maxEntries: 2,
			ttlMs: 1_000,
			now: clock.now,
			inUse: (value) => busy.has(value),
		});
		cache.set('a', 'a');
		cache.set('b', 'b');
		cache.set('c', 'c'); // over the count: a is the oldest but in use, so b goes
		expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['a', undefined, 'c']);
		busy.add('c');
		cache.set('d', 'd'); // both older entries in use: the cache holds 3 for now
		expect(cache.size).toBe(3);
		expect(cache.get('d')).toBe('d');
		clock.advance(5_000);
		expect(cache.get('a')).toBe('a'); // past its time, still in use
		busy.clear();
		expect(cache.get('a')).toBeUndefined();
		cache.set('e', 'e');
		expect(cache.size).toBe(1);
	});

	it('refuses a count or a time that would keep nothing', () => {
		expect(() => new BoundedCache({ maxEntries: 0, ttlMs: 1 })).toThrow(/maxEntries/);
		expect(() => new BoundedCache({ maxEntries: 1.5, ttlMs: 1 })).toThrow(/maxEntries/);
		expect(() => new BoundedCache({ maxEntries: 1, ttlMs: 0 })).toThrow(/ttlMs/);
		expect(() => new BoundedCache({ maxEntries: 1, ttlMs: Number.NaN })).toThrow(/ttlMs/);
	});
});

describe('RateGates: one gate per key, bounded', () => {
	it('keeps a key’s gate while it is used, and drops it once unused for the idle time', () => {
		const clock = virtualClock();
		const gates = new RateGates(10, 60 * 60_000, clock.now);
		const gate = gates.for('key-a', clock.now);
		clock.advance(59 * 60_000);
		expect(gates.for('key-a', clock.now)).toBe(gate); // a use: kept an hour from now
		clock.advance(59 * 60_000);
		expect(gates.for('key-a', clock.now)).toBe(gate);
		clock.advance(60 * 60_000);
		const next = gates.for('key-a', clock.now);
		expect(next).not.toBe(gate);
		expect(next).toBeInstanceOf(RateGate);
	});

	it('never drops a gate a request holds, past the idle time or over the count of keys', () => {
		const clock = virtualClock();
		const gates = new RateGates(2, 60 * 60_000, clock.now);
		const held = gates.for('held', clock.now);
		const release = held.acquire();
		// A request waiting on its window (told to wait, not yet back) holds the gate all the while.
		held.block(60_000);
		expect(held.tryReserve()).toEqual({ waitMs: 60_000 });
		gates.for('other-1', clock.now);
		gates.for('other-2', clock.now); // over 2 keys: the held gate is the oldest, other-1 goes
		expect(gates.size).toBe(2);
		clock.advance(3 * 60 * 60_000);
		gates.for('other-3', clock.now);
		expect(gates.for('held', clock.now)).toBe(held);
		release();
		release(); // a second release changes nothing
		expect(held.inUse).toBe(false);
		clock.advance(60 * 60_000);
		expect(gates.for('held', clock.now)).not.toBe(held);
	});

	it('a request holds its key’s gate from its start to its end, through its waits on a 429', async () => {
		const key = 'bounded-cache-test-key';
		const wakes: Array<() => void> = [];
		let now = 0;
		let calls = 0;
		const client = new DecisionClient({
			baseUrl: 'https://decisions.example/v1',
			rateGateKey: key,
			now: () => now,
			sleep: (ms) =>
				new Promise<void>((resolve) =>
					wakes.push(() => {
						now += ms;
						resolve();
					}),
				),
			transport: async (): Promise<TransportResponse> =>
				++calls === 1
					? {
							status: 429,
							headers: { 'retry-after': '30' },
							body: JSON.stringify({
								error: { code: 'rate_limited', message: 'Rate limit reached.', details: {} },
							}),
						}
					: { status: 200, headers: {}, body: JSON.stringify({ run_id: 'run_1', status: 'ok' }) },
		});
		const gate = rateGateFor(key, () => now);
		expect(gate.inUse).toBe(false);
		let settled = false;
		const answer = client.decide('a-slug', 'hello').finally(() => (settled = true));
		let waits = 0;
		for (let turn = 0; turn < 1_000 && !settled; turn++) {
			await new Promise((done) => setImmediate(done));
			if (wakes.length === 0) continue;
			// Refused and waiting for the window: the gate is held, so the process keeps it.
			expect(gate.inUse).toBe(true);
			waits += 1;
			wakes.shift()!();
		}
		await expect(answer).resolves.toMatchObject({ run_id: 'run_1' });
		expect(waits).toBeGreaterThan(0);
		expect(calls).toBe(2);
		expect(gate.inUse).toBe(false);
		expect(rateGateFor(key, () => now)).toBe(gate);
	});
});
