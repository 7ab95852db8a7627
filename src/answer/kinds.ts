/**
 * A decision's kind, in one home. Route picks one option, score lands on one level (lowest first),
 * classify keeps every label over its threshold (possibly none). What differs between them is said
 * here once: their keys, the answer a run gives, the machine's guess when the service gives none,
 * how an expected answer is read, and the one feedback text for a pick or an expected answer.
 * Decide's routing, Simplify, close calls, Evaluate, Review and Send Feedback ask this file instead
 * of switching on the type. An answer is always a list of keys: one for route and score, any
 * number of labels for classify. Pure, no n8n; keys are untrusted strings (`constructor` is a key).
 * Long because the three kinds are said side by side, rule by rule, so a rule is never changed for
 * one kind and forgotten for the others.
 */
import {
	BOUNDS,
	SLUG_PATTERN,
	UNCERTAIN_CHOICE,
	levelOf,
	ownValue,
	type DecisionType,
} from '../contract';

/** The fields of a run this file reads; a full run and an item's compact answer both fit. */
export interface RunFields {
	/** `ok`, `uncertain`, `pending`; absent: read as answered. */
	status?: unknown;
	choice?: unknown;
	raw_score?: unknown;
	legend?: unknown;
	score?: unknown;
	labels?: unknown;
	probabilities?: unknown;
}

/** What a decision lists of its keys, as `GET /decisions/{slug}` gives them. */
export interface KeyedDecision {
	type: DecisionType;
	options?: readonly string[] | null;
	levels?: readonly string[] | null;
	labels?: readonly string[] | null;
}

/** An expected answer, read: its keys, or why it cannot be read (a sentence naming the field). */
export type ReadExpected =
	| { ok: true; keys: string[] }
	/** `key`: the expected key the decision does not know, when that is the problem. */
	| { ok: false; message: string; key?: string };

/** The feedback that says the machine's answer (or, on a doubtful run, its guess) was right. */
export const FEEDBACK_CORRECT = 'correct';
/**
 * Classify: no label applies. With a space, so it can never be a label key (keys are slugs); read
 * back as an expected answer too.
 */
export const FEEDBACK_NO_LABEL = 'no label';

export interface Kind {
	type: DecisionType;
	/** One key in words: option, level, label. */
	word: 'option' | 'level' | 'label';
	/** classify: an answer is a set of labels (possibly empty); route and score: exactly one key. */
	many: boolean;
	/** The decision's keys in the service's order (levels lowest first). */
	keysOf(decision: KeyedDecision): string[];
	/**
	 * What the run answered, as keys, whatever its status (an uncertain score keeps its level, an
	 * uncertain classify its labels); undefined when it gave none (route: `__uncertain__`, or the
	 * choice of a run not answered `ok` whose top probability is tied).
	 */
	answerOf(run: RunFields): string[] | undefined;
	/**
	 * The machine's guess when the run gives no answer: the most probable option or level, none
	 * when two or more share the top probability (a tie is no guess, whatever the keys' order); the
	 * labels at or over the API's default threshold (each label on its own: no top, so no tie).
	 */
	leaningOf(run: RunFields, keys?: readonly string[]): string[] | undefined;
	/** An answer as people and expressions read it: the key (route, score) or the list (classify). */
	shown(keys: readonly string[]): string | string[];
	/** The answer as an item's fields: `choice` (route), `score` and `level` (score), `labels`. */
	fields(keys: readonly string[], run: RunFields): Record<string, unknown>;
}

const asString = (value: unknown): string | undefined =>
	typeof value === 'string' && value !== '' ? value : undefined;

/** The run's probabilities, finite numbers only, own keys only, in the object's order. */
export function probabilityEntries(run: RunFields): Array<[string, number]> {
	const record = run.probabilities;
	if (typeof record !== 'object' || record === null || Array.isArray(record)) return [];
	return Object.keys(record).flatMap((key): Array<[string, number]> => {
		const value = ownValue(record, key);
		return typeof value === 'number' && Number.isFinite(value) ? [[key, value]] : [];
	});
}

/**
 * The most probable key, or none on a tie at the top. The one rule for ties: Decide's suggestion
 * on the item, the review page's leaning, a review's `agreed` and feedback, and Evaluate's guess
 * accuracy all come through here (and through route's `answerOf`, for the choice a pending run
 * carries), so a run whose top probability is shared has no guess anywhere: picking one of the
 * tied keys is a correction, never "correct". Probabilities are compared as the service sent
 * them: 0.25 and 0.25 tie, 0.2501 and 0.25 do not. A score's level from its raw score is the
 * service's weighted level, not a top, and classify keeps each label on its own: no tie there.
 */
function mostProbable(run: RunFields): string[] | undefined {
	const ranked = probabilityEntries(run).sort(([, pA], [, pB]) => pB - pA);
	if (!ranked.length || tiedAtTop(run)) return undefined;
	return [ranked[0][0]];
}

/** Whether two keys or more share the run's top probability. */
export function tiedAtTop(run: RunFields): boolean {
	const values = probabilityEntries(run).map(([, value]) => value);
	const top = Math.max(...values);
	return values.filter((value) => value === top).length > 1;
}

const route: Kind = {
	type: 'route',
	word: 'option',
	many: false,
	keysOf: (decision) => [...(decision.options ?? [])],
	answerOf(run) {
		const choice = asString(run.choice);
		// `__uncertain__` is a status, not an option.
		if (!choice || choice === UNCERTAIN_CHOICE) return undefined;
		// On a run the service did not answer (pending), its choice is only its most probable
		// option, the first in its order on a tie: no guess either (the one rule, mostProbable).
		if (run.status !== undefined && run.status !== 'ok' && tiedAtTop(run)) return undefined;
		return [choice];
	},
	leaningOf: mostProbable,
	shown: (keys) => keys[0] ?? '',
	fields: (keys) => ({ choice: keys[0] ?? '' }),
};

const score: Kind = {
	type: 'score',
	word: 'level',
	many: false,
	keysOf: (decision) => [...(decision.levels ?? [])],
	answerOf(run) {
		const level = levelOf(run as { raw_score?: number; legend?: Record<string, string> });
		return level === undefined ? undefined : [level];
	},
	leaningOf: mostProbable,
	shown: (keys) => keys[0] ?? '',
	fields: (keys, run) => ({ score: run.score, level: keys[0] ?? '' }),
};

const classify: Kind = {
	type: 'classify',
	word: 'label',
	many: true,
	keysOf: (decision) => [...(decision.labels ?? [])],
	answerOf(run) {
		if (!Array.isArray(run.labels)) return undefined;
		return [...new Set(run.labels.filter((label): label is string => typeof label === 'string'))];
	},
	leaningOf(run, keys = []) {
		const entries = probabilityEntries(run);
		if (!entries.length) return undefined;
		const over = entries
			.filter(([, p]) => p >= BOUNDS.labelThresholdDefault)
			.map(([label]) => label);
		// In the decision's order, so the same set always reads the same.
		const order = (label: string) => {
			const at = keys.indexOf(label);
			return at === -1 ? keys.length : at;
		};
		return over.sort((a, b) => order(a) - order(b));
	},
	shown: (keys) => [...keys],
	fields: (keys) => ({ labels: [...keys] }),
};

const KINDS: Record<DecisionType, Kind> = { route, score, classify };

/** The kind of a decision type; undefined for a type this package does not know. */
export function kindOf(type: unknown): Kind | undefined {
	return type === 'route' || type === 'score' || type === 'classify' ? KINDS[type] : undefined;
}

/** The kind a run shows by its fields (labels: classify; a score: score; a choice: route). */
export function kindOfRun(run: RunFields & { level?: unknown }): Kind | undefined {
	if (run.labels !== undefined) return classify;
	if (run.raw_score !== undefined || run.score !== undefined || run.level !== undefined)
		return score;
	if (run.choice !== undefined) return route;
	return undefined;
}

/** The machine's answer, or its guess when the run gave none. */
export function guessOf(
	kind: Kind,
	run: RunFields,
	keys?: readonly string[],
): string[] | undefined {
	return kind.answerOf(run) ?? kind.leaningOf(run, keys);
}

/** Same answer? Sets for classify (order and repeats do not matter), the key otherwise. */
export function sameAnswer(a: readonly string[], b: readonly string[]): boolean {
	const left = new Set(a);
	const right = new Set(b);
	return left.size === right.size && [...left].every((key) => right.has(key));
}

/**
 * Reads an expected answer against the decision's keys. Route: one option key. Score: a level
 * label, or a level index (a number, 0 = lowest, as the legend's keys are). Classify: a list of
 * labels, or one string with the labels separated by commas (how a CSV cell or a sheet holds
 * them), or "no label"; repeats count once. Keys are compared as written, after trimming.
 */
export function readExpected(kind: Kind, raw: unknown, keys: readonly string[]): ReadExpected {
	const known = new Set(keys);
	const list = keys.map((key) => JSON.stringify(key)).join(', ');
	const unknown = (key: string): ReadExpected => ({
		ok: false,
		key,
		message: `the expected ${kind.word} ${JSON.stringify(key)} is not one of the decision's ${kind.word}s (${list})`,
	});
	if (kind.many) {
		let labels: unknown[];
		if (Array.isArray(raw)) labels = raw;
		else if (typeof raw === 'string' && raw.trim().toLowerCase() === FEEDBACK_NO_LABEL) labels = [];
		else if (typeof raw === 'string' && raw.split(',').some((part) => part.trim() !== ''))
			labels = raw.split(',').filter((part) => part.trim() !== '');
		else
			return {
				ok: false,
				message: `the expected labels are missing: give a list, labels separated by commas, or "${FEEDBACK_NO_LABEL}" (${list})`,
			};
		const read: string[] = [];
		for (const label of labels) {
			if (typeof label !== 'string') {
				return { ok: false, message: `the expected labels must be label keys (${list})` };
			}
			const key = label.trim();
			if (!known.has(key)) return unknown(key);
			if (!read.includes(key)) read.push(key);
		}
		return { ok: true, keys: read };
	}
	if (kind.type === 'score' && typeof raw === 'number') {
		const level = Number.isInteger(raw) ? keys[raw] : undefined;
		return level !== undefined
			? { ok: true, keys: [level] }
			: {
					ok: false,
					message: `the expected level ${raw} is not a level index (0 to ${keys.length - 1}) nor a level (${list})`,
				};
	}
	if (typeof raw !== 'string' || raw.trim() === '') {
		return { ok: false, message: `the expected ${kind.word} must be one ${kind.word} (${list})` };
	}
	const key = raw.trim();
	return known.has(key) ? { ok: true, keys: [key] } : unknown(key);
}

/**
 * The one feedback text for an answer a person picked or a labeled set expects: `correct` when it
 * equals the machine's answer (or its guess, on an uncertain or pending run), else the key, or the
 * labels joined with "," ("no label" for none). Review, Evaluate's Send Expected Answers as
 * Feedback and Run → Send Feedback all send this.
 */
export function feedbackText(
	kind: Kind,
	expected: readonly string[],
	machine: readonly string[] | undefined,
): string {
	if (machine !== undefined && sameAnswer(expected, machine)) return FEEDBACK_CORRECT;
	return answerText(kind, expected);
}

/** An answer as feedback text: the key, or the labels joined with "," ("no label" for none). */
export function answerText(kind: Kind, keys: readonly string[]): string {
	if (!kind.many) return keys[0] ?? '';
	const labels = [...new Set(keys)];
	return labels.length ? labels.join(',') : FEEDBACK_NO_LABEL;
}

/**
 * Feedback a person or a node wrote, in the one encoding: what Run → Send Feedback sends. A list
 * (a review's labels) is joined like any label set; a text of label keys separated by commas with
 * spaces (`promotion, complaint`: a review row written before the one encoding, or typed by hand)
 * is sent as `promotion,complaint`. Any other text goes as it is, trimmed: `correct`, `no label`,
 * an option, a level (a level's label may hold ", " and words that are not keys).
 */
export function feedbackOf(raw: unknown): string {
	if (Array.isArray(raw))
		return answerText(
			KINDS.classify,
			raw.map((label) => String(label).trim()),
		);
	const text = String(raw ?? '').trim();
	const parts = text
		.split(',')
		.map((part) => part.trim())
		.filter((part) => part !== '');
	const labelKeys =
		text.includes(',') && parts.length > 0 && parts.every((part) => SLUG_PATTERN.test(part));
	return labelKeys ? answerText(KINDS.classify, parts) : text;
}
