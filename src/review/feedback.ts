import type { DecisionType, ReviewItem, ReviewPick } from './types';

// What goes back to the service for a reviewed item (POST /runs/{run_id}/feedback). The API takes
// `feedback` as a non-empty string (ours: `correct`, or the expected answer) and an optional note.

/** The person agreed with the machine's answer. */
export const FEEDBACK_CORRECT = 'correct';

/** Classify: the person said no label applies (the feedback must not be empty). */
export const FEEDBACK_NO_LABEL = 'none';

function sameSet(a: readonly string[], b: readonly string[]): boolean {
	const left = new Set(a);
	const right = new Set(b);
	return left.size === right.size && [...left].every((key) => right.has(key));
}

/**
 * The feedback for a pick: `correct` when it equals the machine's answer (route and score: the
 * same key; classify: the same set of labels), otherwise the picked key, or the picked labels
 * joined with "," (`none` for no label). The person's note is passed through.
 * A route or score pick has exactly one key (parseReviewSubmission makes no other).
 */
export function feedbackFor(
	item: ReviewItem,
	pick: ReviewPick,
	type: DecisionType,
): { feedback: string; note?: string } {
	const note = pick.note !== undefined && pick.note !== '' ? { note: pick.note } : {};
	if (type === 'classify') {
		if (sameSet(item.machineAnswer, pick.keys)) return { feedback: FEEDBACK_CORRECT, ...note };
		const labels = [...new Set(pick.keys)];
		return { feedback: labels.length ? labels.join(',') : FEEDBACK_NO_LABEL, ...note };
	}
	if (pick.keys.length !== 1 || pick.keys[0] === '') {
		throw new RangeError(`A ${type} pick has exactly one non-empty key (item ${pick.index})`);
	}
	const [key] = pick.keys;
	const agrees = item.machineAnswer.length === 1 && item.machineAnswer[0] === key;
	return { feedback: agrees ? FEEDBACK_CORRECT : key, ...note };
}
