/** The answer memo is bounded in entries and time; its key changes with anything asked. */
import { AnswerMemo } from '../../nodes/DecisionService/pipeline/answer-memo';
import { RateGate } from '../../src/client';

const run = (id: string) => ({ run: { run_id: id, status: 'ok' } });
const key = (itemIndex: number, request: unknown = { slug: 'a', input: 'x' }) =>
	AnswerMemo.key({ executionId: 'e1', nodeName: 'Decide', itemIndex, request });

it('keeps at most its capacity, dropping the oldest first', () => {
	const memo = new AnswerMemo(3, 60_000, () => 0);
	for (let index = 0; index < 5; index++) memo.set(key(index), run(`r${index}`));
	expect(memo.size).toBe(3);
	expect(memo.get(key(0))).toBeUndefined();
	expect(memo.get(key(1))).toBeUndefined();
	expect(memo.get(key(4))).toEqual(run('r4'));
});

it('forgets an entry once its time is up', () => {
	let now = 0;
	const memo = new AnswerMemo(10, 1_000, () => now);
	memo.set(key(0), run('r0'));
	now = 999;
	expect(memo.get(key(0))).toEqual(run('r0'));
	now = 1_000;
	expect(memo.get(key(0))).toBeUndefined();
	expect(memo.size).toBe(0);
});

it('keys differ by execution, node, item and what was asked', () => {
	const base = {
		executionId: 'e1',
		nodeName: 'Decide',
		itemIndex: 0,
		request: { slug: 'a', input: 'x' },
	};
	const keys = new Set([
		AnswerMemo.key(base),
		AnswerMemo.key({ ...base, executionId: 'e2' }),
		AnswerMemo.key({ ...base, nodeName: 'Decide1' }),
		AnswerMemo.key({ ...base, itemIndex: 1 }),
		AnswerMemo.key({ ...base, request: { slug: 'a', input: 'y' } }),
		AnswerMemo.key({ ...base, request: { slug: 'a', input: 'x', version: 2 } }),
	]);
	expect(keys.size).toBe(6);
	expect(AnswerMemo.key(base)).toBe(key(0));
});

it('a 429 holds the rate gate one window at most, whatever it asked', () => {
	let now = 0;
	const gate = new RateGate(() => now);
	gate.block(86_400_000);
	expect(gate.tryReserve()).toEqual({ waitMs: 60_000 });
	now = 60_000;
	expect(gate.tryReserve()).toHaveProperty('ticket');
});
