// What a setting would have done on these items: the lowest minimum confidence or Close Call Gap
// the data supports (or not yet), and the words a rate is said in. Pure.
import type { ItemOutcome, NotYetSupported, RateInterval } from './metrics';
import { DEFAULT_THRESHOLDS } from './metrics';
import { intervalWords, itemCount, notYetSupported, rateInterval, supports } from './tables';
import { NOT_YET, roughly } from './all-traffic';

/** What one setting would have done on these items. */
export interface SettingEffect {
	/** The setting's value: a minimum confidence, or a Close Call Gap. */
	value: number;
	/** Answered items it would send to review instead. */
	sentToReview: number;
	/** Of those, the answers that were wrong (caught). */
	wrongCaught: number;
	/** Accuracy of the answers left. */
	accuracy: number | null;
	/** Its 95 % interval, over the answers left. */
	accuracyInterval: RateInterval | null;
}

export const percent = (value: number | null): string =>
	value === null ? '–' : `${Math.round(value * 1000) / 10}%`;

/** A rate for people: "93.4% (86–97%, 91 items)"; without the count when `count` is false. */
export function rateWords(
	value: number | null,
	interval: RateInterval | null,
	count = true,
): string {
	if (value === null || !interval) return percent(value);
	return `${percent(value)} (${intervalWords(interval)}${count ? `, ${itemCount(interval.n)}` : ''})`;
}

/** Answered items kept by a setting (`keep`), and what the others would have been. */
export function effectOf(
	answered: readonly ItemOutcome[],
	value: number,
	keep: (outcome: ItemOutcome) => boolean,
): SettingEffect {
	const kept = answered.filter(keep);
	const sent = answered.filter((outcome) => !keep(outcome));
	const right = kept.filter((outcome) => outcome.correct).length;
	return {
		value,
		sentToReview: sent.length,
		wrongCaught: sent.filter((outcome) => outcome.correct === false).length,
		accuracy: kept.length ? right / kept.length : null,
		accuracyInterval: rateInterval(right, kept.length),
	};
}

/**
 * The lowest setting the data supports (tables.ts `supports`); when there is none, the lowest
 * whose answers left reach the target on these items alone, as not yet supported.
 */
export function lowest(
	answered: readonly ItemOutcome[],
	target: number,
	keepAt: (value: number) => (outcome: ItemOutcome) => boolean,
): { effect: SettingEffect | null; notYet: NotYetSupported | null } {
	let reached: SettingEffect | undefined;
	for (const value of DEFAULT_THRESHOLDS) {
		const effect = effectOf(answered, value, keepAt(value));
		if (supports(effect.accuracyInterval, target)) return { effect, notYet: null };
		if (!reached && effect.accuracy !== null && effect.accuracy >= target) reached = effect;
	}
	if (!reached || !reached.accuracyInterval) return { effect: null, notYet: null };
	const kept = reached.accuracyInterval.n;
	const right = Math.round((reached.accuracy as number) * kept);
	return { effect: null, notYet: notYetSupported(reached.value, right, kept, target) };
}

/** "12; about 35 needed": the items a setting keeps, and about how many it needs. */
export function notYetCounts(notYet: NotYetSupported): string {
	const needed =
		notYet.needed === null
			? 'at exactly the target no number of items is enough'
			: `about ${roughly(notYet.needed)} needed`;
	return `${notYet.items}; ${needed}`;
}

/** "not enough items yet (12; about 35 needed)". */
export const notYetWords = (notYet: NotYetSupported): string =>
	`${NOT_YET} (${notYetCounts(notYet)})`;
