// Two versions side by side on the same labeled items, said as a decision a person can take:
// "version 4 answers 3 more items right and 1 more wrong than live version 3; it would cost the
// same". Pure.
import type { Metrics } from './metrics-types';

/** How a version did on the items compared. */
export interface VersionTally {
	version: number | null;
	right: number;
	wrong: number;
	/** Not answered: uncertain, pending review, other. */
	unanswered: number;
}

export function tallyOf(
	metrics: Metrics,
	version: number | null,
	only?: ReadonlySet<number>,
): VersionTally {
	const items = only ? metrics.items.filter((each) => only.has(each.index)) : metrics.items;
	return {
		version,
		right: items.filter((each) => each.correct === true).length,
		wrong: items.filter((each) => each.correct === false).length,
		unanswered: items.filter((each) => !each.answered).length,
	};
}

const items = (count: number) => `${count} ${count === 1 ? 'item' : 'items'}`;

/** "3 more items right", "1 fewer item wrong", "as many right". */
function moreOrFewer(count: number, what: string): string {
	if (count === 0) return `as many ${what}`;
	const size = Math.abs(count);
	return `${size} ${count > 0 ? 'more' : 'fewer'} ${size === 1 ? 'item' : 'items'} ${what}`;
}

/**
 * The comparison in one or two sentences: right and wrong answers of the pinned version against
 * the live one on the same items, what goes to a person, and the cost (one unit per decide on
 * either version: the same).
 */
export function comparisonSentence(
	live: VersionTally,
	other: VersionTally,
	compared: number,
): string {
	const name = (tally: VersionTally, live?: boolean) =>
		`${live ? 'live ' : ''}version ${tally.version ?? '–'}`;
	const right = other.right - live.right;
	const wrong = other.wrong - live.wrong;
	const unanswered = other.unanswered - live.unanswered;
	let sentence =
		right === 0 && wrong === 0
			? `On the same ${items(compared)}, ${name(other)} answers as many right and as many wrong as ${name(live, true)}`
			: `On the same ${items(compared)}, ${name(other)} answers ${moreOrFewer(right, 'right')} and ${moreOrFewer(wrong, 'wrong')} than ${name(live, true)}`;
	sentence += ` (${other.right} right, ${other.wrong} wrong against ${live.right} and ${live.wrong})`;
	if (unanswered !== 0) sentence += `, and leaves ${moreOrFewer(unanswered, 'unanswered')}`;
	sentence += '; it would cost the same: one unit per decide on either version.';
	return sentence;
}
