import { feedbackText, kindOf, sameAnswer } from '../answer/kinds';
import type { DecisionType, ReviewItem, ReviewPick } from './types';

// What goes back to the service for a reviewed item (POST /runs/{run_id}/feedback): the one
// feedback text of src/answer/kinds.ts (`correct` when the person agrees with the machine's answer or
// guess, else the key, or the labels joined with ","; "no label" for none) and the person's note.
// With no guess (a tie at the top, no answer at all) nothing is confirmed: the pick is the feedback.

/**
 * The feedback for a pick. A route or score pick has exactly one key (parseReviewSubmission
 * makes no other).
 */
export function feedbackFor(
	item: ReviewItem,
	pick: ReviewPick,
	type: DecisionType,
): { feedback: string; note?: string } {
	const kind = kindOf(type);
	if (!kind) throw new RangeError(`Unknown decision type "${String(type)}"`);
	if (!kind.many && (pick.keys.length !== 1 || pick.keys[0] === '')) {
		throw new RangeError(`A ${type} pick has exactly one non-empty key (item ${pick.index})`);
	}
	const note = pick.note !== undefined && pick.note !== '' ? { note: pick.note } : {};
	return { feedback: feedbackText(kind, pick.keys, item.machineAnswer), ...note };
}

/**
 * Whether the person picked what the machine answered or guessed: a review row's `agreed`. With
 * no guess (machineAnswer undefined: a tie at the top, a failed item) never, not even for "No
 * label applies" on a classify item: agreeing with nothing is no confirmation.
 */
export function agreedWith(item: ReviewItem | undefined, pick: ReviewPick): boolean {
	return item?.machineAnswer !== undefined && sameAnswer(pick.keys, item.machineAnswer);
}
