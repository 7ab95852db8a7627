import type { ItemOutcome, Metrics, NotYetSupported, RateInterval } from './metrics';
import { DEFAULT_THRESHOLDS } from './metrics';
import { intervalWords, itemCount, notYetSupported, rateInterval, supports } from './tables';
import { NOT_YET, roughly } from './all-traffic';

// The evaluation in people's words (a headline and a few sentences for the output panel) and the
// report's JSON for machines: the API's snake_case, figures rounded to 4 decimals. Pure.

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

export interface Summary {
	/** One sentence: how many answered, how many right. */
	headline: string;
	/** The doubtful items, the recommendations, the cost: one sentence each. */
	sentences: string[];
	/**
	 * The lowest minimum confidence the data supports (value 0: none needed), or null: the 95 %
	 * lower bound of the accuracy of the answers it leaves reaches the target.
	 */
	confidence: SettingEffect | null;
	/** The lowest Close Call Gap the data supports (value 0: none needed), or null. */
	closeCallGap: SettingEffect | null;
	/**
	 * When a setting is null above but one reaches the target on these items' figures alone: it,
	 * its items and about how many it needs ("not enough items yet (12; about 35 needed)").
	 */
	notYet: { confidence: NotYetSupported | null; closeCallGap: NotYetSupported | null };
	/** What to do next: one piece of advice per setting, in words and for machines. */
	advice: Advice[];
}

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

const percent = (value: number | null): string =>
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
function effectOf(
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
function lowest(
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

/** What a setting the data does not support yet says on a tile (written once, in all-traffic.ts). */
export { NOT_YET };

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

/**
 * The decision's confidence threshold: raise it to the minimum confidence the data supports, or
 * lower it where the doubtful items' guesses would have kept the target, or keep it.
 */
function thresholdAdvice(
	metrics: Metrics,
	confidence: { effect: SettingEffect | null; notYet: NotYetSupported | null },
	target: string,
): Advice {
	const current = metrics.confidenceThreshold;
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
	const answered = metrics.items.filter((outcome) => outcome.answered);
	const right = answered.filter((outcome) => outcome.correct).length;
	const effect = confidence.effect;
	if (effect && effect.sentToReview > 0 && (current === null || effect.value > current)) {
		const change = changeOf(
			effect.value,
			effect.sentToReview,
			effect.wrongCaught,
			right - (effect.sentToReview - effect.wrongCaught),
			answered.length - effect.sentToReview,
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
	if (!effect) {
		const notYet = confidence.notYet;
		return keep(
			null,
			!notYet
				? `no threshold reaches ${target} accuracy on these items.`
				: notYet.threshold > 0 && (current === null || notYet.threshold > current)
					? `raising it to ${fixed(notYet.threshold)} would leave ${rateWords(notYet.accuracy, notYet.accuracyInterval)} right on these items, ${notYetWords(notYet)} to be sure of ${target}.`
					: `the answers are ${rateWords(notYet.accuracy, notYet.accuracyInterval)} right, ${notYetWords(notYet)} to be sure of ${target}.`,
		);
	}
	const already = `the answers already reach ${target} accuracy: ${rateWords(effect.accuracy, effect.accuracyInterval)} right.`;
	// Lowering: the doubtful items at or above the lower threshold would have been answered by
	// their guesses; the lowest one whose accuracy, all answers together, surely keeps the target.
	const rows = metrics.doubtful.byThreshold.filter(
		(row) => row.routed > 0 && (current === null || row.threshold < current),
	);
	const tried = rows.map((row) => ({
		row,
		change: changeOf(
			row.threshold,
			row.routed,
			row.right,
			right + row.right,
			answered.length + row.routed,
			metrics.targetAccuracy,
		),
	}));
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
			current,
			action: 'lower',
			value: advised.row.threshold,
			change: advised.change,
			words: `${head}: lower it to ${fixed(advised.row.threshold)}: it would have routed ${routedWords(advised)}, surely ${target} or better.`,
		};
	// The smallest step down, to say what it would have cost.
	const nearest = [...tried].sort((a, b) => b.row.threshold - a.row.threshold)[0];
	if (!nearest) return keep(null, already);
	const verdict = nearest.change.reachesTarget
		? `at your ${target} target on these items, but not surely`
		: `under your ${target} target`;
	return keep(
		nearest.change,
		`lowering it to ${fixed(nearest.row.threshold)} would have routed ${routedWords(nearest)}, ${verdict}.`,
	);
}

/** Decide's Close Call Gap: set it to the lowest gap the data supports, or leave it. */
function gapAdvice(
	closeCallGap: { effect: SettingEffect | null; notYet: NotYetSupported | null },
	metrics: Metrics,
	target: string,
): Advice {
	const head = `Close Call Gap (${GAP_WHERE}; its value today is your Decide node's, 0 = off by default)`;
	const effect = closeCallGap.effect;
	const base = { setting: 'close_call_gap' as const, where: GAP_WHERE, current: null };
	if (effect && effect.value > 0 && effect.sentToReview > 0) {
		const answered = metrics.items.filter((outcome) => outcome.answered);
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

/** Whether any row says why a person saw it (a stratum, good or bad): then the estimate is said. */
export function hasStrata(metrics: Metrics): boolean {
	const { rows, leftOut } = metrics.allTraffic;
	return rows.doubtful + rows.audited + leftOut.total - leftOut.handAdded > 0;
}

/** "40 doubtful and 12 audited items, standing for about 280 items". */
export function allTrafficBasis(metrics: Metrics): string {
	const { rows, standsFor } = metrics.allTraffic;
	return `${rows.doubtful} doubtful and ${rows.audited} audited ${rows.doubtful + rows.audited === 1 ? 'item' : 'items'}, standing for about ${itemCount(roughly(Math.round(standsFor.total)))}`;
}

/** The rows left out of the estimate, and why: "" when none was. */
function leftOutWords(metrics: Metrics): string {
	const { leftOut } = metrics.allTraffic;
	const parts = [
		leftOut.handAdded && `${leftOut.handAdded} added by hand (no stratum)`,
		leftOut.badStratum && `${leftOut.badStratum} with a stratum other than doubtful or audited`,
		leftOut.badShare &&
			`${leftOut.badShare} audited with an audit share that is not a number above 0 and at most 1`,
		leftOut.notJudged && `${leftOut.notJudged} with no answer or guess to score`,
	].filter((part): part is string => Boolean(part));
	return parts.length
		? ` Left out of it: ${leftOut.total} ${leftOut.total === 1 ? 'row' : 'rows'}, ${parts.join(', ')}.`
		: '';
}

/**
 * Accuracy over all traffic and the confident answers' accuracy, when rows say why a person saw
 * them (their stratum); nothing otherwise.
 */
function allTrafficSentences(metrics: Metrics): string[] {
	if (!hasStrata(metrics)) return [];
	const { allTraffic, confidentAccuracy } = metrics;
	if (allTraffic.accuracy === null || allTraffic.reason)
		return [
			`Accuracy over all traffic: ${allTraffic.reason ?? NOT_YET}: set Decide's Audit Share (Decide → Options → Audit Share (%)) so that a sample of the confident answers is reviewed too.${leftOutWords(metrics)}`,
		];
	return [
		`Accuracy over all traffic (estimated from ${allTrafficBasis(metrics)}): ${percent(allTraffic.accuracy)} (95% interval ${intervalWords(allTraffic.accuracyInterval)}).${leftOutWords(metrics)}`,
		`Answers sent straight to their output: right on ${confidentAccuracy.right} of ${confidentAccuracy.n} audited (95% interval ${intervalWords(confidentAccuracy.accuracyInterval)}).`,
	];
}

/** The evaluation in people's words; `cost`: what the node charged (costSentence). */
export function summaryOf(metrics: Metrics, cost: Cost = costOfMetrics(metrics)): Summary {
	const answered = metrics.items.filter((outcome) => outcome.answered);
	const right = answered.filter((outcome) => outcome.correct).length;
	const target = percent(metrics.targetAccuracy);
	const confidence = lowest(
		answered,
		metrics.targetAccuracy,
		(value) => (outcome) => (outcome.confidence ?? 0) >= value,
	);
	// Close Call Gap: a run whose two most probable answers are within the gap goes to review.
	const closeCallGap = lowest(
		answered,
		metrics.targetAccuracy,
		(value) => (outcome) => value === 0 || outcome.gap === null || outcome.gap > value,
	);
	// Every item doubtful: nothing was routed, and the news is how good the machine's guesses were.
	const allDoubtful = metrics.total > 0 && metrics.answered === 0 && metrics.doubtful.count > 0;
	const headline = allDoubtful
		? `All ${metrics.total} items were doubtful (uncertain or sent to review), so none was routed: the figures below are the machine's guesses.`
		: metrics.total
			? `Answered ${metrics.answered} of ${metrics.total} items, ${rateWords(metrics.coverage, metrics.coverageInterval, false)}; ${right} of them right, ${rateWords(metrics.accuracy, metrics.accuracyInterval)}.`
			: 'No item was evaluated.';
	const sentences: string[] = allTrafficSentences(metrics);
	if (metrics.reviewedFrom.doubtfulOnly)
		sentences.push(
			`Every item was reviewed from a doubtful run (machine status uncertain or pending): the accuracy is that of the hard cases, not of all traffic.`,
		);
	const doubtful = metrics.doubtful;
	if (doubtful.count) {
		const sure = doubtful.guessed ? ` (${intervalWords(doubtful.guessAccuracyInterval)})` : '';
		let sentence = `${doubtful.count} were doubtful (uncertain or sent to review): the machine's guess was right on ${doubtful.guessRight} of ${doubtful.guessed}${sure}.`;
		const best = [...doubtful.byThreshold]
			.reverse()
			.find(
				(row) => row.routed > 0 && row.accuracy !== null && row.accuracy >= metrics.targetAccuracy,
			);
		if (best) {
			sentence += ` Lowering the threshold to ${best.threshold.toFixed(2)} would have routed ${best.routed} of them, ${best.right} right (${intervalWords(best.accuracyInterval)})`;
			const notYet = supports(best.accuracyInterval, metrics.targetAccuracy)
				? null
				: notYetSupported(best.threshold, best.right, best.routed, metrics.targetAccuracy);
			sentence += notYet ? `: ${notYetWords(notYet)} to be sure of ${target}.` : '.';
		}
		sentences.push(sentence);
	}
	const advice = [
		thresholdAdvice(metrics, confidence, target),
		gapAdvice(closeCallGap, metrics, target),
	];
	sentences.push(...advice.map((each) => each.words));
	sentences.push(costSentence(cost));
	return {
		headline,
		sentences,
		confidence: confidence.effect,
		closeCallGap: closeCallGap.effect,
		notYet: { confidence: confidence.notYet, closeCallGap: closeCallGap.notYet },
		advice,
	};
}

/** What the evaluating node charged, and what the runs it scored free were paid upstream. */
export interface Cost {
	/** Units this node charged: its live decides and Compare With Version's. */
	charged: number;
	/** Decides on the live version. */
	live: number;
	/** Decides on the compared version, when asked. */
	compared?: { version: number; charged: number };
	/** Runs the items carried, scored free: paid by the node that decided them, one unit each. */
	upstream: number;
	/** Failures after sending: the service may have charged them. */
	mayHaveBeenCharged: number;
}

const units = (count: number) => `${count} ${count === 1 ? 'unit' : 'units'}`;

/** The cost sentence: what this node charged, beside what the items cost upstream. */
export function costSentence(cost: Cost): string {
	const parts = [`${cost.live} decided on the live version`];
	if (cost.compared) parts.push(`${cost.compared.charged} on version ${cost.compared.version}`);
	let sentence = `Charged ${units(cost.charged)} here: ${parts.join(', ')}`;
	if (cost.mayHaveBeenCharged)
		sentence += `; ${cost.mayHaveBeenCharged} failed after sending and may have been charged`;
	sentence += '.';
	if (cost.upstream)
		sentence += ` The ${cost.upstream} runs the items carried were paid upstream (${units(cost.upstream)}, by the node that decided them) and scored here free.`;
	return sentence;
}

/** The cost as the scored items alone say it (no compared decides, nothing after sending). */
export function costOfMetrics(metrics: Metrics): Cost {
	return {
		charged: metrics.units.charged,
		live: metrics.units.fresh,
		upstream: metrics.units.reused,
		mayHaveBeenCharged: 0,
	};
}

const snake = (key: string): string =>
	key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * A value for the report's JSON: object keys in snake_case (the API's style), numbers rounded to
 * 4 decimals. Keys from data (options, levels, labels) are values here, never object keys.
 */
export function forMachines<T = unknown>(value: unknown): T {
	return forMachinesValue(value) as T;
}

function forMachinesValue(value: unknown): unknown {
	if (typeof value === 'number')
		return Number.isFinite(value) ? Math.round(value * 1e4) / 1e4 : null;
	if (Array.isArray(value)) return value.map((each) => forMachinesValue(each));
	if (typeof value !== 'object' || value === null) return value;
	const out: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		const each = (value as Record<string, unknown>)[key];
		Object.defineProperty(out, snake(key), {
			value: forMachinesValue(each),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return out;
}
