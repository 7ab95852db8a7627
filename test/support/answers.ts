/**
 * A run's fields as the evaluation reads them: through the answer contract (src/answer/item-answer.ts), as the
 * node does. Tests write runs by hand without a run ID; one is added.
 */
import { readAnswer, type ItemAnswer } from '../../src/answer/item-answer';
import type { DecisionType } from '../../src/contract';

export type RunFields = Record<string, unknown> & { status: string };

let counter = 0;

export function answerOfRun(run: RunFields, type?: DecisionType): ItemAnswer {
	const read = readAnswer({ run_id: `run_test_${++counter}`, ...run }, type);
	if (!read) throw new Error('not an answer');
	return read;
}
