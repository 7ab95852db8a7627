import { setOwn, type DecisionType, type EngineName } from '../src/contract';
import type { DefinitionItem } from '../src/contract/validation';

/**
 * The two engines of the sandbox. Both are deterministic and explainable: the same input always
 * gives the same answer, and every probability can be traced to the words that matched.
 *
 * 1. Tokens. Text is NFKD-folded, lower-cased, split on anything but letters and digits; stop
 *    words (en + fr) and one-letter words are dropped; a light suffix stemmer maps "charged",
 *    "charges" and "charge" to "charg". A question mark is kept as the token "?". Pseudonymisation
 *    tokens (`<EMAIL_1>`) carry no meaning and are removed.
 * 2. Evidence. Each item (option, level or label) has a profile: the tokens of its key and its
 *    description. For N items, an input token t found in df(t) profiles weighs
 *    w(t) = ln((N + 1) / df(t)) / ln(N + 1): 1 for a word only one item has (a "telling" word),
 *    close to 0 for a word every item has; halved when t also appears in the decision's
 *    instructions (words of the question itself say little about the answer).
 *    The evidence r_i = Σ w(t) over the distinct input tokens found in profile i: roughly, the
 *    number of telling words of item i in the input.
 * 3. Route and score: saturated evidence s_i = 1 − exp(−r_i / 1.5) (one telling word ≈ 0.49,
 *    two ≈ 0.74, four ≈ 0.93), logits z_i = s_i · (κ + ln(N − 1)), probabilities = softmax(z).
 *    The ln(N − 1) term keeps the answer independent of the number of items: one item with full
 *    evidence against N − 1 items with none gets e^κ / (e^κ + 1) whatever N is.
 *    κ = 3.5 for jev (at most ≈ 0.97), 2.5 for llm_fallback (flatter, at most ≈ 0.92).
 *    Route: choice = argmax (first in item order on a tie). Score: raw_score = Σ i · p_i,
 *    score = raw_score / (N − 1) · 100, legend = { "i": level label }.
 *    Confidence (route and score) = the largest probability.
 *    Examples with 4 options (jev): one telling word vs none → 0.76; two → 0.87; a tie → < 0.5.
 * 4. Classify: each label independently, p_l = σ(a · r_l − b): jev a = 3.3, b = 2.94 (no
 *    evidence → 0.05, one telling word → 0.59, two → 0.975); llm_fallback a = 2.5, b = 2.2.
 *    labels = keys with p_l ≥ threshold_l. Confidence = the least decisive label: for each label
 *    d_l = (p_l − t_l) / (1 − t_l) when retained, (t_l − p_l) / t_l otherwise, and
 *    confidence = min d_l (a label near its threshold, such as a single telling word, makes the
 *    whole run unsure).
 * 5. Probabilities are rounded to 4 decimals first and every derived value (choice, labels,
 *    raw_score, score, confidence) is computed from the rounded figures, so a client can check
 *    them against each other. jev's confidence is `calibrated`; llm_fallback's is
 *    `self_reported`, rounded to the nearest 0.05 as a model would state it.
 */

export const JEV_VERSION = '1.4.2';
export const LLM_FALLBACK_VERSION = '2.0.1';

export function modelOf(engine: EngineName): string {
	return engine === 'jev' ? `jev-${JEV_VERSION}` : `llm_fallback-${LLM_FALLBACK_VERSION}`;
}

const STOPWORDS = new Set(
	// English
	(
		'a an and are as at be been but by can could did do does for from had has have he her his ' +
		'i if in into is it its me my no not of on or our she so than that the their them then there ' +
		'these they this those to too us was we were will with would you your ' +
		'am any all also just some about after before up out over very more most only own same such ' +
		'hi hello hey please thanks thank im ive id dont cant wont its ll re ve ' +
		// French
		'au aux avec ce ces cet cette dans de des du elle en est et eux il ils je la le les leur lui ma mais ' +
		'me mes moi mon ne nos notre nous ou par pas pour qu que qui sa se ses son sur ta te tes toi ton tu ' +
		'un une vos votre vous ete etre avoir ai as avons avez ont suis es sommes etes sont bonjour merci'
	).split(/\s+/),
);

const SUFFIXES: Array<[RegExp, string]> = [
	[/ies$/, 'y'],
	[/ied$/, 'y'],
	[/(?:ations?|ments?|ings?|ness|ed|es|ly|s|e)$/, ''],
];

export function stem(word: string): string {
	if (word.length <= 3 || /^\d+$/.test(word)) return word;
	for (const [pattern, replacement] of SUFFIXES) {
		if (pattern.test(word)) {
			const stemmed = word.replace(pattern, replacement);
			return stemmed.length >= 3 ? stemmed : word;
		}
	}
	return word;
}

export function tokenize(text: string): string[] {
	const cleaned = text
		.replace(/<[A-Z0-9_]{1,64}_\d{1,6}>/g, ' ')
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/['’]/g, '');
	const tokens: string[] = [];
	for (const part of cleaned.split(/([^a-z0-9?]+|\?)/)) {
		if (part === '?') {
			tokens.push('?');
			continue;
		}
		if (!/^[a-z0-9]+$/.test(part) || part.length < 2 || STOPWORDS.has(part)) continue;
		tokens.push(stem(part));
	}
	return tokens;
}

/** Every string, number and boolean of a JSON value, in order, as one text. */
export function flattenText(value: unknown): string {
	if (value === null || value === undefined) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (Array.isArray(value)) return value.map(flattenText).join('\n');
	if (typeof value === 'object') return Object.values(value).map(flattenText).join('\n');
	return '';
}

export interface EngineDefinition {
	type: DecisionType;
	instructions: string;
	items: readonly DefinitionItem[];
}

export interface EngineResult {
	probabilities: Record<string, number>;
	confidence: number;
	choice?: string;
	score?: number;
	raw_score?: number;
	legend?: Record<string, string>;
	labels?: string[];
	/** Per item, the (stemmed) input tokens that matched its profile: why the engine answered so. */
	explanation: Record<string, string[]>;
}

interface Profiles {
	items: Set<string>[];
	instructions: Set<string>;
}

const profileCache = new WeakMap<EngineDefinition, Profiles>();

function profilesOf(definition: EngineDefinition): Profiles {
	let profiles = profileCache.get(definition);
	if (!profiles) {
		profiles = {
			items: definition.items.map(
				(item) => new Set(tokenize(`${item.key.replace(/-/g, ' ')} ${item.description}`)),
			),
			// A question mark says nothing about the answer to a question: it is never discounted.
			instructions: new Set(tokenize(definition.instructions).filter((token) => token !== '?')),
		};
		profileCache.set(definition, profiles);
	}
	return profiles;
}

const round = (value: number, decimals: number): number => {
	const factor = 10 ** decimals;
	return Math.round(value * factor) / factor;
};

const TEMPER = {
	jev: { kappa: 3.5, slope: 3.3, offset: 2.94 },
	llm_fallback: { kappa: 2.5, slope: 2.5, offset: 2.2 },
} as const satisfies Record<EngineName, { kappa: number; slope: number; offset: number }>;

/** Saturation scale of route and score evidence, in telling words. */
const SATURATION = 1.5;

/** Evidence r_i per item and the matched tokens (step 2 of the module comment). */
export function evidence(
	definition: EngineDefinition,
	text: string,
): { r: number[]; matched: string[][] } {
	const profiles = profilesOf(definition);
	const n = definition.items.length;
	const tokens = [...new Set(tokenize(text))];
	const raw = new Array<number>(n).fill(0);
	const matched: string[][] = definition.items.map(() => []);
	for (const token of tokens) {
		let df = 0;
		for (const profile of profiles.items) if (profile.has(token)) df += 1;
		if (df === 0) continue;
		const weight =
			(Math.log((n + 1) / df) / Math.log(n + 1)) * (profiles.instructions.has(token) ? 0.5 : 1);
		profiles.items.forEach((profile, index) => {
			if (profile.has(token)) {
				raw[index] += weight;
				matched[index].push(token);
			}
		});
	}
	return { r: raw, matched };
}

export function runEngine(
	definition: EngineDefinition,
	text: string,
	engine: EngineName,
): EngineResult {
	const { kappa, slope, offset } = TEMPER[engine];
	const { r, matched } = evidence(definition, text);
	const keys = definition.items.map((item) => item.key);
	// Keys may be `constructor` or (a level's label) `__proto__`: own properties, set with setOwn.
	const explanation: Record<string, string[]> = {};
	keys.forEach((key, index) => {
		if (matched[index].length) setOwn(explanation, key, matched[index]);
	});
	const n = keys.length;
	const result: EngineResult = { probabilities: {}, confidence: 0, explanation };

	if (definition.type === 'classify') {
		const probs = r.map((value) => round(1 / (1 + Math.exp(offset - slope * value)), 4));
		const labels: string[] = [];
		let confidence = 1;
		definition.items.forEach((item, index) => {
			const p = probs[index];
			const threshold = item.threshold ?? 0.5;
			setOwn(result.probabilities, item.key, p);
			const retained = p >= threshold;
			if (retained) labels.push(item.key);
			const room = retained ? 1 - threshold : threshold;
			const decisiveness = room > 0 ? Math.abs(p - threshold) / room : 1;
			confidence = Math.min(confidence, decisiveness);
		});
		result.labels = labels;
		result.confidence = confidence;
	} else {
		const scale = kappa + Math.log(Math.max(n - 1, 1));
		const logits = r.map((value) => (1 - Math.exp(-value / SATURATION)) * scale);
		const top = Math.max(...logits);
		const exps = logits.map((value) => Math.exp(value - top));
		const sum = exps.reduce((a, b) => a + b, 0);
		const probs = exps.map((value) => round(value / sum, 4));
		keys.forEach((key, index) => setOwn(result.probabilities, key, probs[index]));
		let best = 0;
		probs.forEach((p, index) => {
			if (p > probs[best]) best = index;
		});
		result.confidence = probs[best];
		if (definition.type === 'route') {
			result.choice = keys[best];
		} else {
			const rawScore = round(
				probs.reduce((acc, p, index) => acc + p * index, 0),
				4,
			);
			result.raw_score = rawScore;
			result.score = Math.min(100, Math.max(0, round((rawScore / (n - 1)) * 100, 2)));
			result.legend = Object.fromEntries(keys.map((key, index) => [String(index), key]));
		}
	}

	result.confidence =
		engine === 'llm_fallback'
			? round(Math.round(result.confidence * 20) / 20, 2)
			: round(Math.min(1, Math.max(0, result.confidence)), 4);
	return result;
}
