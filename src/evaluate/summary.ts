// The evaluation in people's words (a headline and a few sentences for the output panel) and the
// report's JSON for machines: the API's snake_case, figures rounded to 4 decimals. Pure.
// The advice on the settings is advice.ts's; each setting's effect, setting-effects.ts's.
import type { Metrics, NotYetSupported } from './metrics';
import { intervalWords, notYetSupported, supports } from './tables';
import { NOT_YET } from './all-traffic';
import { allTrafficSentences } from './all-traffic-words';
import { gapAdvice, thresholdAdvice, type Advice } from './advice';
import { lowest, notYetWords, percent, rateWords, type SettingEffect } from './setting-effects';

export type { Advice } from './advice';
export { notYetCounts, notYetWords, rateWords, type SettingEffect } from './setting-effects';

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

/** What a setting the data does not support yet says on a tile (written once, in all-traffic.ts). */
export { NOT_YET };
export {
	allTrafficBasis,
	allTrafficCoverage,
	allTrafficLines,
	hasStrata,
} from './all-traffic-words';

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
	// Judged on the runs that carry probabilities only: a row scored from a stored answer has
	// none, and would otherwise count as kept at every gap.
	const withGap = answered.filter((outcome) => outcome.gap !== null);
	const closeCallGap = lowest(
		withGap,
		metrics.targetAccuracy,
		(value) => (outcome) => value === 0 || (outcome.gap !== null && outcome.gap > value),
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
	if (withGap.length < answered.length)
		sentences.push(
			`${answered.length - withGap.length} of the ${answered.length} answered items carry no probabilities (a row scored from a stored answer keeps none): the Close Call Gap is judged on the other ${withGap.length}.`,
		);
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
