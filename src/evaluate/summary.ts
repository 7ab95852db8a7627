import type { ItemOutcome, Metrics } from './metrics';
import { DEFAULT_THRESHOLDS } from './metrics';

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
}

export interface Summary {
	/** One sentence: how many answered, how many right. */
	headline: string;
	/** The doubtful items, the recommendations, the cost: one sentence each. */
	sentences: string[];
	/** The lowest minimum confidence that reaches the target accuracy (value 0: none needed), or null. */
	confidence: SettingEffect | null;
	/** The lowest Close Call Gap that reaches it (value 0: none needed), or null. */
	closeCallGap: SettingEffect | null;
}

const percent = (value: number | null): string =>
	value === null ? '–' : `${Math.round(value * 1000) / 10}%`;

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
	};
}

/** The lowest setting whose answers left reach the target. */
function lowest(
	answered: readonly ItemOutcome[],
	target: number,
	keepAt: (value: number) => (outcome: ItemOutcome) => boolean,
): SettingEffect | null {
	for (const value of DEFAULT_THRESHOLDS) {
		const effect = effectOf(answered, value, keepAt(value));
		if (effect.accuracy !== null && effect.accuracy >= target) return effect;
	}
	return null;
}

function settingSentence(name: string, effect: SettingEffect | null, target: string): string {
	if (!effect) return `No ${name} reaches ${target} accuracy on these items.`;
	if (effect.value === 0 || effect.sentToReview === 0)
		return `${name[0].toUpperCase()}${name.slice(1)}: none needed, the answers already reach ${target} accuracy.`;
	return `A ${name} of ${effect.value.toFixed(2)} would send ${effect.sentToReview} answered items to review, ${effect.wrongCaught} of them wrong, and leave ${percent(effect.accuracy)} right.`;
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
	const headline = metrics.total
		? `Answered ${metrics.answered} of ${metrics.total} items (${percent(metrics.coverage)}); ${right} of them right (${percent(metrics.accuracy)}).`
		: 'No item was evaluated.';
	const sentences: string[] = [];
	const doubtful = metrics.doubtful;
	if (doubtful.count) {
		let sentence = `${doubtful.count} were doubtful (uncertain or sent to review): the machine's guess was right on ${doubtful.guessRight} of ${doubtful.guessed}.`;
		const best = [...doubtful.byThreshold]
			.reverse()
			.find(
				(row) => row.routed > 0 && row.accuracy !== null && row.accuracy >= metrics.targetAccuracy,
			);
		if (best) {
			sentence += ` Lowering the threshold to ${best.threshold.toFixed(2)} would have routed ${best.routed} of them, ${best.right} right.`;
		}
		sentences.push(sentence);
	}
	sentences.push(settingSentence('minimum confidence', confidence, target));
	sentences.push(settingSentence('Close Call Gap', closeCallGap, target));
	sentences.push(costSentence(cost));
	return { headline, sentences, confidence, closeCallGap };
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
