// What to change after an evaluation: the advice on the decision's confidence threshold and
// Decide's Close Call Gap, in words and for machines, from each setting's effect on these items
// (setting-effects.ts). Pure.
import type { Metrics, NotYetSupported, RateInterval } from './metrics';
import { rateInterval, supports } from './tables';
import { notYetWords, rateWords, type SettingEffect } from './setting-effects';

/**
 * A recommendation a user can follow: the setting, where it is set, its value today, what to do
 * and what that change would have done on these items.
 */
export interface Advice {
	/** `confidence_threshold`: the decision's, as the API names it; `close_call_gap`: Decide's option. */
	setting: 'confidence_threshold' | 'close_call_gap';
	/** Where it is set, for people. */
	where: string;
	/** Its value today; null when Evaluate cannot know it (Decide's option is in your workflow). */
	current: number | null;
	/** keep it; raise or lower it (the threshold); set it (the Close Call Gap). */
	action: 'keep' | 'raise' | 'lower' | 'set';
	/** The value to set (today's when kept; null when today's is not known and nothing changes). */
	value: number | null;
	/** The change weighed on these items (the one advised, or the nearest one tried and refused). */
	change: {
		value: number;
		/** Answered items the change sends to review (raise, set) or doubtful ones it routes (lower). */
		moved: number;
		/** Of those: the wrong answers caught (raise, set), or the right guesses routed (lower). */
		movedCounted: number;
		/** Accuracy of the answers with the change, and its 95 % interval. */
		accuracy: number | null;
		accuracyInterval: RateInterval | null;
		/** Whether that accuracy reaches the target, and surely (the interval's low end does). */
		reachesTarget: boolean;
		surely: boolean;
	} | null;
	/** The advice in words. */
	words: string;
}
const THRESHOLD_WHERE =
	'the decision in the Decision Service app: its confidence threshold (`confidence_threshold` in the API)';
const GAP_WHERE = 'Decide → Options → Close Call Gap';
const fixed = (value: number) => value.toFixed(2);

/** What a threshold or gap change did to accuracy, for Advice.change. */
function changeOf(
	value: number,
	moved: number,
	movedCounted: number,
	right: number,
	kept: number,
	target: number,
): NonNullable<Advice['change']> {
	const accuracyInterval = rateInterval(right, kept);
	const accuracy = kept ? right / kept : null;
	return {
		value,
		moved,
		movedCounted,
		accuracy,
		accuracyInterval,
		reachesTarget: accuracy !== null && accuracy >= target,
		surely: supports(accuracyInterval, target),
	};
}

/** The threshold's sentence opening, and the advice to keep it as it is. */
function thresholdKeeper(current: number | null) {
	const today = current === null ? 'its value today is not known here' : `${fixed(current)} today`;
	const head = `The decision's confidence threshold (set in the Decision Service app, \`confidence_threshold\` in the API; ${today})`;
	const keep = (change: Advice['change'], why: string): Advice => ({
		setting: 'confidence_threshold',
		where: THRESHOLD_WHERE,
		current,
		action: 'keep',
		value: current,
		change,
		words: `${head}: keep ${current === null ? 'it' : fixed(current)}: ${why}`,
	});
	return { head, keep };
}

/** Raise (or set) the threshold to the minimum confidence the data supports. */
function raiseAdvice(
	metrics: Metrics,
	effect: SettingEffect,
	head: string,
	target: string,
	answered: { count: number; right: number },
): Advice {
	const current = metrics.confidenceThreshold;
	const change = changeOf(
		effect.value,
		effect.sentToReview,
		effect.wrongCaught,
		answered.right - (effect.sentToReview - effect.wrongCaught),
		answered.count - effect.sentToReview,
		metrics.targetAccuracy,
	);
	return {
		setting: 'confidence_threshold',
		where: THRESHOLD_WHERE,
		current,
		action: 'raise',
		value: effect.value,
		change,
		words: `${head}: ${current === null ? 'set' : 'raise'} it to ${fixed(effect.value)}: it would have sent ${effect.sentToReview} more answered items to review, ${effect.wrongCaught} of them wrong, and left ${rateWords(effect.accuracy, effect.accuracyInterval)} right, surely ${target} or better.`,
	};
}

/** Why to keep the threshold when no minimum confidence is supported yet (or none reaches it). */
function unsupportedWhy(
	notYet: NotYetSupported | null,
	current: number | null,
	target: string,
): string {
	if (!notYet) return `no threshold reaches ${target} accuracy on these items.`;
	return notYet.threshold > 0 && (current === null || notYet.threshold > current)
		? `raising it to ${fixed(notYet.threshold)} would leave ${rateWords(notYet.accuracy, notYet.accuracyInterval)} right on these items, ${notYetWords(notYet)} to be sure of ${target}.`
		: `the answers are ${rateWords(notYet.accuracy, notYet.accuracyInterval)} right, ${notYetWords(notYet)} to be sure of ${target}.`;
}

/**
 * Each lower threshold tried: the doubtful items at or above it would have been answered by their
 * guesses; the change weighed with all answers together.
 */
function lowerThresholdsTried(metrics: Metrics, answered: { count: number; right: number }) {
	const current = metrics.confidenceThreshold;
	const rows = metrics.doubtful.byThreshold.filter(
		(row) => row.routed > 0 && (current === null || row.threshold < current),
	);
	return rows.map((row) => ({
		row,
		change: changeOf(
			row.threshold,
			row.routed,
			row.right,
			answered.right + row.right,
			answered.count + row.routed,
			metrics.targetAccuracy,
		),
	}));
}

/**
 * Lower the threshold to the lowest one whose accuracy, all answers together, surely keeps the
 * target; else keep it, saying what the smallest step down would have cost.
 */
function lowerOrKeepAdvice(
	metrics: Metrics,
	effect: SettingEffect,
	threshold: ReturnType<typeof thresholdKeeper>,
	target: string,
	answered: { count: number; right: number },
): Advice {
	const already = `the answers already reach ${target} accuracy: ${rateWords(effect.accuracy, effect.accuracyInterval)} right.`;
	const tried = lowerThresholdsTried(metrics, answered);
	const lowest = [...tried]
		.sort((a, b) => a.row.threshold - b.row.threshold)
		.find((t) => t.change.surely);
	// Of the thresholds that route the same items, the highest: the smallest change that does it.
	const advised = lowest
		? tried
				.filter((t) => t.row.routed === lowest.row.routed && t.change.surely)
				.sort((a, b) => b.row.threshold - a.row.threshold)[0]
		: undefined;
	const routedWords = (t: (typeof tried)[number]) =>
		`${t.row.routed} more ${t.row.routed === 1 ? 'item' : 'items'}, ${t.row.right} of them right: accuracy ${rateWords(t.change.accuracy, t.change.accuracyInterval)}`;
	if (advised)
		return {
			setting: 'confidence_threshold',
			where: THRESHOLD_WHERE,
			current: metrics.confidenceThreshold,
			action: 'lower',
			value: advised.row.threshold,
			change: advised.change,
			words: `${threshold.head}: lower it to ${fixed(advised.row.threshold)}: it would have routed ${routedWords(advised)}, surely ${target} or better.`,
		};
	// The smallest step down, to say what it would have cost.
	const nearest = [...tried].sort((a, b) => b.row.threshold - a.row.threshold)[0];
	if (!nearest) return threshold.keep(null, already);
	const verdict = nearest.change.reachesTarget
		? `at your ${target} target on these items, but not surely`
		: `under your ${target} target`;
	return threshold.keep(
		nearest.change,
		`lowering it to ${fixed(nearest.row.threshold)} would have routed ${routedWords(nearest)}, ${verdict}.`,
	);
}

/**
 * The decision's confidence threshold: raise it to the minimum confidence the data supports, or
 * lower it where the doubtful items' guesses would have kept the target, or keep it.
 */
export function thresholdAdvice(
	metrics: Metrics,
	confidence: { effect: SettingEffect | null; notYet: NotYetSupported | null },
	target: string,
): Advice {
	const current = metrics.confidenceThreshold;
	const threshold = thresholdKeeper(current);
	const answeredItems = metrics.items.filter((outcome) => outcome.answered);
	const answered = {
		count: answeredItems.length,
		right: answeredItems.filter((outcome) => outcome.correct).length,
	};
	const effect = confidence.effect;
	if (effect && effect.sentToReview > 0 && (current === null || effect.value > current))
		return raiseAdvice(metrics, effect, threshold.head, target, answered);
	if (!effect) return threshold.keep(null, unsupportedWhy(confidence.notYet, current, target));
	return lowerOrKeepAdvice(metrics, effect, threshold, target, answered);
}

/** Decide's Close Call Gap: set it to the lowest gap the data supports, or leave it. */
export function gapAdvice(
	closeCallGap: { effect: SettingEffect | null; notYet: NotYetSupported | null },
	metrics: Metrics,
	target: string,
): Advice {
	const head = `Close Call Gap (${GAP_WHERE}; its value today is your Decide node's, 0 = off by default)`;
	const effect = closeCallGap.effect;
	const base = { setting: 'close_call_gap' as const, where: GAP_WHERE, current: null };
	if (effect && effect.value > 0 && effect.sentToReview > 0) {
		// The items the gap was judged on: answered, with probabilities (summary.ts).
		const answered = metrics.items.filter((outcome) => outcome.answered && outcome.gap !== null);
		const right = answered.filter((outcome) => outcome.correct).length;
		return {
			...base,
			action: 'set',
			value: effect.value,
			change: changeOf(
				effect.value,
				effect.sentToReview,
				effect.wrongCaught,
				right - (effect.sentToReview - effect.wrongCaught),
				answered.length - effect.sentToReview,
				metrics.targetAccuracy,
			),
			words: `${head}: set it to ${fixed(effect.value)}: it would have sent ${effect.sentToReview} answered items to review, ${effect.wrongCaught} of them wrong, and left ${rateWords(effect.accuracy, effect.accuracyInterval)} right, surely ${target} or better.`,
		};
	}
	const why = effect
		? `none needed, leave it at 0 (off): the answers already reach ${target} accuracy: ${rateWords(effect.accuracy, effect.accuracyInterval)} right.`
		: closeCallGap.notYet
			? `leave it as it is: ${closeCallGap.notYet.threshold > 0 ? `at ${fixed(closeCallGap.notYet.threshold)} the answers left are` : 'the answers are'} ${rateWords(closeCallGap.notYet.accuracy, closeCallGap.notYet.accuracyInterval)} right, ${notYetWords(closeCallGap.notYet)} to be sure of ${target}.`
			: `leave it as it is: no gap reaches ${target} accuracy on these items.`;
	return { ...base, action: 'keep', value: null, change: null, words: `${head}: ${why}` };
}
