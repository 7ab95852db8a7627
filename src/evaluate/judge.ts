// Each labeled item judged against its run (the rules are metrics.ts's header): an expected answer
// the decision does not know is a problem naming the item; a run is answered, doubtful or other.
// Pure. Keys are untrusted strings: every lookup goes through a Set or Map.
import { kindOf, readExpected } from '../answer/kinds';
import { marginOf, type EvaluationDecision } from '../answer/close-call';
import type { ItemOutcome, ItemProblem, Judged, ScoredItem } from './metrics-types';

export function knownKeysOf(decision: EvaluationDecision): string[] {
	return [...new Set(decision.keys)];
}

type Expected = { ok: true; value: string | string[] } | { ok: false; problem: ItemProblem };

/**
 * Checks one expected answer against the decision (src/answer/kinds.ts `readExpected`: classify takes a
 * list or labels separated by commas): the node calls it before a decide, so an item with a typo
 * fails without spending a unit. The message does not number the item: n8n's error says which.
 */
export function checkExpected(
	decision: EvaluationDecision,
	expected: unknown,
	index: number,
): Expected {
	const knownKeys = knownKeysOf(decision);
	const kind = kindOf(decision.type);
	if (!kind) {
		return {
			ok: false,
			problem: {
				code: 'invalid_expected',
				index,
				knownKeys,
				message: `The decision's type "${String(decision.type)}" is not one this package knows.`,
			},
		};
	}
	const read = readExpected(kind, expected, knownKeys);
	if (read.ok) return { ok: true, value: kind.shown(read.keys) };
	const message = read.message.charAt(0).toUpperCase() + read.message.slice(1) + '.';
	return {
		ok: false,
		problem:
			read.key !== undefined
				? { code: 'unknown_expected_key', index, key: read.key, knownKeys, message }
				: { code: 'invalid_expected', index, knownKeys, message },
	};
}

function judgeItem(
	decision: EvaluationDecision,
	known: ReadonlySet<string>,
	item: ScoredItem,
	expected: string | string[],
	index: number,
): Judged {
	const run = item.run;
	const status = run.status;
	const kind = kindOf(decision.type);
	const gap = marginOf(decision, { ...run, answer: run.answer ?? run.guess }) ?? null;
	const predicted = kind && run.answer ? kind.shown(run.answer) : undefined;
	const doubtful = status === 'uncertain' || status === 'pending';
	const guess = doubtful && kind && run.guess ? kind.shown(run.guess) : undefined;
	const outcome: ItemOutcome = {
		index,
		status,
		answered: false,
		correct: null,
		expected,
		...(predicted === undefined ? {} : { predicted }),
		...(guess === undefined ? {} : { guess }),
		guessRight: guess === undefined ? null : sameKeys(guess, expected),
		confidence: run.confidence ?? null,
		gap,
		charged: item.charged,
	};
	if (doubtful) return { outcome, column: status };
	if (status !== 'ok' || predicted === undefined) return { outcome, column: 'other' };
	const placeable = Array.isArray(predicted)
		? predicted.every((label) => known.has(label))
		: known.has(predicted);
	if (!placeable) return { outcome, column: 'other' };
	outcome.answered = true;
	outcome.correct = sameKeys(predicted, expected);
	return { outcome, column: 'answer' };
}

/** Same answer: the key, or the same set of labels. */
function sameKeys(a: string | string[], b: string | string[]): boolean {
	if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
	const got = new Set(a);
	return got.size === new Set(b).size && b.every((label) => got.has(label));
}

/** Each item judged against its expected answer; items whose expected answer is bad, as problems. */
export function judgeAll(
	decision: EvaluationDecision,
	items: readonly ScoredItem[],
): { judged: Judged[]; problems: ItemProblem[] } {
	const known = new Set(knownKeysOf(decision));
	const problems: ItemProblem[] = [];
	const judged: Judged[] = [];
	items.forEach((item, index) => {
		const expected = checkExpected(decision, item.expected, index);
		if (!expected.ok) {
			problems.push(expected.problem);
			return;
		}
		judged.push(judgeItem(decision, known, item, expected.value, index));
	});
	return { judged, problems };
}
