/**
 * The decisions a process keeps to check inputs (src/client/recent-decisions.ts), on a virtual
 * clock: what is fetched when, for reuse within the minute, after it (the old copy serves while a
 * new one is fetched beside the run, up to a day), on demand, for fetches still in flight, failures
 * and the bound.
 */
import {
	DECISION_REUSE_MS,
	DECISION_STALE_MAX_MS,
	RecentDecisions,
} from '../../src/client/recent-decisions';
import type { Decision } from '../../src/contract';

const decisionOf = (slug: string, version = 1) => ({ slug, version }) as unknown as Decision;

function counter() {
	const fetched: string[] = [];
	const fetchOf =
		(slug: string, version = 1) =>
		() => {
			fetched.push(slug);
			return Promise.resolve(decisionOf(slug, version));
		};
	return { fetched, fetchOf };
}

describe('RecentDecisions', () => {
	it('reuses a decision fetched less than a minute ago for the same key, with nothing to refresh', async () => {
		const recent = new RecentDecisions();
		const { fetched, fetchOf } = counter();
		const first = recent.get('key|ticket-routing', fetchOf('ticket-routing', 1), 0);
		expect(first.reused).toBe(false);
		await first.decision;
		const again = recent.get(
			'key|ticket-routing',
			fetchOf('ticket-routing', 2),
			DECISION_REUSE_MS - 1,
		);
		expect(again.reused).toBe(true);
		expect(again.refresh).toBeUndefined();
		expect(await again.decision).toEqual(decisionOf('ticket-routing', 1));
		expect(fetched).toEqual(['ticket-routing']);
	});

	it('after the minute serves the copy at once, and fetches a new one only when refresh is called', async () => {
		const recent = new RecentDecisions();
		const { fetched, fetchOf } = counter();
		await recent.get('key|x', fetchOf('x', 1), 0).decision;
		const stale = recent.get('key|x', fetchOf('x', 2), DECISION_REUSE_MS);
		expect(stale.reused).toBe(true);
		expect(await stale.decision).toEqual(decisionOf('x', 1));
		// Nothing is read until the caller's own requests are on their way.
		expect(fetched).toEqual(['x']);
		stale.refresh!();
		stale.refresh!();
		// Another caller meanwhile: the old copy still serves, and its refresh is the same one.
		const meanwhile = recent.get('key|x', fetchOf('x', 3), DECISION_REUSE_MS + 1);
		meanwhile.refresh?.();
		expect(await meanwhile.decision).toEqual(decisionOf('x', 1));
		expect(fetched).toEqual(['x', 'x']);
		await recent.refreshed();
		// The new copy arrived: it serves as is for a minute from when it was asked for.
		const next = recent.get('key|x', fetchOf('x', 4), 2 * DECISION_REUSE_MS - 1);
		expect(next.refresh).toBeUndefined();
		expect(await next.decision).toEqual(decisionOf('x', 2));
		expect(fetched).toEqual(['x', 'x']);
	});

	it('a refresh that fails keeps the old copy serving; a later caller may refresh again', async () => {
		const recent = new RecentDecisions();
		await recent.get('key|x', () => Promise.resolve(decisionOf('x', 1)), 0).decision;
		let calls = 0;
		const failing = () => {
			calls++;
			return Promise.reject(new Error('503'));
		};
		const stale = recent.get('key|x', failing, DECISION_REUSE_MS);
		stale.refresh!();
		await recent.refreshed();
		const later = recent.get('key|x', failing, DECISION_REUSE_MS + 5);
		expect(later.reused).toBe(true);
		expect(await later.decision).toEqual(decisionOf('x', 1));
		later.refresh!();
		expect(calls).toBe(2);
		await recent.refreshed();
	});

	it('waits for a new copy when the kept one is older than a day, or its fetch is still in flight', async () => {
		const recent = new RecentDecisions();
		const { fetched, fetchOf } = counter();
		await recent.get('key|x', fetchOf('x', 1), 0).decision;
		const old = recent.get('key|x', fetchOf('x', 2), DECISION_STALE_MAX_MS);
		expect(old.reused).toBe(false);
		expect(await old.decision).toEqual(decisionOf('x', 2));

		let resolve!: (decision: Decision) => void;
		recent.get('key|y', () => new Promise<Decision>((done) => (resolve = done)), 0);
		const unanswered = recent.get('key|y', fetchOf('y', 2), DECISION_REUSE_MS);
		expect(unanswered.reused).toBe(false);
		resolve(decisionOf('y', 1));
		expect(await unanswered.decision).toEqual(decisionOf('y', 2));
		expect(fetched).toEqual(['x', 'x', 'y']);
	});

	it('a fresh fetch made while a refresh is in flight wins: the refresh does not replace it', async () => {
		const recent = new RecentDecisions();
		await recent.get('key|x', () => Promise.resolve(decisionOf('x', 1)), 0).decision;
		let resolveRefresh!: (decision: Decision) => void;
		const stale = recent.get(
			'key|x',
			() => new Promise<Decision>((done) => (resolveRefresh = done)),
			DECISION_REUSE_MS,
		);
		stale.refresh!();
		const fresh = recent.get(
			'key|x',
			() => Promise.resolve(decisionOf('x', 3)),
			DECISION_REUSE_MS + 1,
			true,
		);
		expect(await fresh.decision).toEqual(decisionOf('x', 3));
		resolveRefresh(decisionOf('x', 2));
		await recent.refreshed();
		const next = recent.get(
			'key|x',
			() => Promise.resolve(decisionOf('x', 4)),
			DECISION_REUSE_MS + 2,
		);
		expect(await next.decision).toEqual(decisionOf('x', 3));
	});

	it('keeps keys apart: another key or slug fetches its own', () => {
		const recent = new RecentDecisions();
		const { fetched, fetchOf } = counter();
		recent.get('key-a|ticket-routing', fetchOf('ticket-routing'), 0);
		expect(recent.get('key-b|ticket-routing', fetchOf('ticket-routing'), 1).reused).toBe(false);
		expect(recent.get('key-a|lead-scoring', fetchOf('lead-scoring'), 2).reused).toBe(false);
		expect(fetched).toHaveLength(3);
	});

	it('shares one fetch still in flight among callers that start together', async () => {
		const recent = new RecentDecisions();
		let resolve!: (decision: Decision) => void;
		let calls = 0;
		const slow = () => {
			calls++;
			return new Promise<Decision>((done) => (resolve = done));
		};
		const asked = Array.from({ length: 60 }, (_, index) => recent.get('key|x', slow, index));
		expect(calls).toBe(1);
		expect(asked.filter((each) => each.reused)).toHaveLength(59);
		resolve(decisionOf('x'));
		for (const each of asked) expect(await each.decision).toEqual(decisionOf('x'));
	});

	it('`fresh` fetches now and replaces what was kept', async () => {
		const recent = new RecentDecisions();
		const { fetched, fetchOf } = counter();
		recent.get('key|x', fetchOf('x', 1), 0);
		const fresh = recent.get('key|x', fetchOf('x', 2), 10, true);
		expect(fresh.reused).toBe(false);
		expect(await fresh.decision).toEqual(decisionOf('x', 2));
		const next = recent.get('key|x', fetchOf('x', 3), 20);
		expect(next.reused).toBe(true);
		expect(await next.decision).toEqual(decisionOf('x', 2));
		expect(fetched).toHaveLength(2);
	});

	it('does not keep a failed fetch: the next caller asks again', async () => {
		const recent = new RecentDecisions();
		const failing = recent.get('key|x', () => Promise.reject(new Error('503')), 0);
		await expect(failing.decision).rejects.toThrow('503');
		const { fetched, fetchOf } = counter();
		const next = recent.get('key|x', fetchOf('x'), 1);
		expect(next.reused).toBe(false);
		expect(fetched).toEqual(['x']);
	});

	it('keeps at most 500 decisions, dropping the one fetched longest ago', () => {
		const recent = new RecentDecisions();
		const { fetched, fetchOf } = counter();
		for (let index = 0; index <= 500; index++)
			recent.get(`key|d${index}`, fetchOf(`d${index}`), index);
		expect(recent.get('key|d500', fetchOf('d500'), 600).reused).toBe(true);
		expect(recent.get('key|d1', fetchOf('d1'), 600).reused).toBe(true);
		expect(recent.get('key|d0', fetchOf('d0'), 600).reused).toBe(false);
		expect(fetched).toHaveLength(502);
	});
});
