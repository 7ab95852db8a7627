import {
	BOUNDS,
	ITEMS_FIELD,
	type CreateFromDefinition,
	type DecisionType,
	type Locale,
} from '../src/contract';

/**
 * The local drafter: a deterministic stand-in for the LLM that drafts a definition from a
 * one-sentence description (POST /decisions with `describe`). It is off unless the sandbox is
 * started with `drafter: true` (`--drafter`) or switched on by the control surface; otherwise
 * the service answers 503 `generation_unavailable`, as docs/api.md describes.
 *
 * - Language: French when the description has more French than English function words.
 * - Type: the request's `type` if given, else words: score/rate/rating/scale/level/noter/évaluer/
 *   niveau/échelle → score; label/tag/classify/categorize/étiquette/classer → classify; else route.
 * - Items: the list in the description, "a, b or c" / "a, b et c" / "either a or b"; a text after
 *   a colon is read as the list. Score levels keep the order given (lowest first).
 * - Name: the words before the list ("Route support tickets to …" → "Route support tickets").
 * - Instructions: the description plus one sentence for the type, in the description's language.
 * Fewer items than the type needs → the draft fails (422 `generation_failed`).
 */

export type DraftResult =
	| { ok: true; definition: CreateFromDefinition; locale: Locale }
	| { ok: false; message: string };

const FRENCH_WORDS = new Set(
	'le la les des une un est et ou pour chaque selon dans du au aux en vers entre si il elle qui que quel quelle sont avec sur ticket demande message client'.split(
		' ',
	),
);
const ENGLISH_WORDS = new Set(
	'the a an is and or for each to into as in of on whether if it which that are with by from between'.split(
		' ',
	),
);

export function detectLocale(text: string): Locale {
	const words = text.toLowerCase().split(/[^a-zà-ÿ]+/);
	let fr = 0;
	let en = 0;
	for (const word of words) {
		if (FRENCH_WORDS.has(word)) fr += 1;
		if (ENGLISH_WORDS.has(word)) en += 1;
	}
	if (/[éèêàùçœ]/.test(text)) fr += 1;
	return fr > en ? 'fr' : 'en';
}

export function detectType(text: string): DecisionType {
	const lower = text.toLowerCase();
	if (
		/\b(scores?|scoring|rates?|rating|scale|levels?|grade|not(e|er)|[ée]valu\w*|niveaux?|[ée]chelle)\b/.test(
			lower,
		)
	) {
		return 'score';
	}
	if (
		/\b(labels?|labell?ing|tags?|tagging|classif\w*|categori[sz]\w*|[ée]tiquet\w*|class(er|e))\b/.test(
			lower,
		)
	) {
		return 'classify';
	}
	return 'route';
}

const CONNECTORS = /\s+(?:or|and|ou|et|nor|ni)\s+/i;
const LEADING =
	/^(?:either|soit|between|entre|as|into|to|en|vers|comme|the|a|an|le|la|les|un|une)\s+/i;
const TRAILING_STOP =
	/\s+(?:depending|based|according|if|when|selon|suivant|si|quand|en fonction|from|de|du|des)\b.*$/i;

function cleanItem(text: string): string {
	return text
		.replace(/[.!?;]+$/g, '')
		.replace(/^["'«“\s]+|["'»”\s]+$/g, '')
		.trim();
}

/** Finds the list of items in a description; returns the items and the text before the list. */
export function extractItems(description: string): { items: string[]; before: string } {
	const sentence = description.trim();
	const colon = sentence.indexOf(':');
	if (colon >= 0) {
		const list = sentence.slice(colon + 1);
		const parts = list
			.split(/,|;|\n/)
			.flatMap((part) => part.split(CONNECTORS))
			.map((part) => cleanItem(part.replace(TRAILING_STOP, '').replace(LEADING, '')))
			.filter(Boolean);
		if (parts.length >= 2) return { items: parts, before: sentence.slice(0, colon) };
	}
	const chunks = sentence.split(',');
	if (chunks.length >= 2 || CONNECTORS.test(sentence)) {
		const first = chunks[0];
		const rest = chunks.slice(1);
		let head: string;
		let middle: string[];
		let tail: string;
		if (rest.length === 0) {
			// "a or b" without commas: split the clause around the connector.
			const match = /^(.*?)(\S+)\s+(?:or|ou|and|et)\s+(\S+)(.*)$/i.exec(first);
			if (!match) return { items: [], before: sentence };
			head = match[1];
			middle = [match[2]];
			tail = match[3] + match[4];
		} else {
			const words = first.trim().split(/\s+/);
			middle = [words[words.length - 1]];
			head = words.slice(0, -1).join(' ');
			const last = rest[rest.length - 1];
			const lastParts = last.split(CONNECTORS);
			middle.push(...rest.slice(0, -1), ...lastParts.slice(0, -1));
			tail = lastParts.length > 1 ? lastParts[lastParts.length - 1] : '';
			if (lastParts.length === 1) middle.push(last);
		}
		const items = [...middle, tail.replace(TRAILING_STOP, '')]
			.map((part) => cleanItem(part.replace(LEADING, '')))
			.filter(Boolean)
			// An item is a short name; a long clause is not part of the list.
			.filter((part) => part.split(/\s+/).length <= 4);
		return { items, before: head };
	}
	return { items: [], before: sentence };
}

function draftName(before: string, type: DecisionType, locale: Locale): string {
	const words = before
		.replace(/[.:;,]+$/g, '')
		.trim()
		.split(/\s+/)
		.filter(Boolean);
	while (
		words.length &&
		/^(to|into|as|between|either|whether|the|a|an|vers|en|entre|comme|soit|le|la|les|un|une|si|de|du|des|in|among|parmi|with|avec|by|par|is|are|est|sont|on|sur|of|one)$/i.test(
			words[words.length - 1],
		)
	) {
		words.pop();
	}
	const text = words.slice(0, 8).join(' ');
	if (text) return (text[0].toUpperCase() + text.slice(1)).slice(0, BOUNDS.nameMax);
	const fallback = {
		en: { route: 'Routing decision', score: 'Scoring decision', classify: 'Labelling decision' },
		fr: {
			route: 'Décision de routage',
			score: 'Décision de notation',
			classify: "Décision d'étiquetage",
		},
	};
	return fallback[locale][type];
}

const TYPE_SENTENCE: Record<Locale, Record<DecisionType, string>> = {
	en: {
		route: 'Choose exactly one option.',
		score: 'Place the input on the scale, from the lowest level to the highest.',
		classify: 'Return every label that applies.',
	},
	fr: {
		route: 'Choisissez exactement une option.',
		score: "Placez l'entrée sur l'échelle, du niveau le plus bas au plus haut.",
		classify: "Renvoyez toutes les étiquettes qui s'appliquent.",
	},
};

export function draftDefinition(request: {
	describe: string;
	name?: string;
	type?: DecisionType;
}): DraftResult {
	const description = request.describe.trim();
	const locale = detectLocale(description);
	const type = request.type ?? detectType(description);
	const { items, before } = extractItems(description);
	const field = ITEMS_FIELD[type];
	const bounds = BOUNDS[field];
	const unique = [...new Set(items)];
	if (unique.length < bounds.min) {
		return {
			ok: false,
			message:
				`Could not draft a ${type} decision: the description names ${unique.length} ${field}, ` +
				`at least ${bounds.min} are needed (for example "billing, technical or sales").`,
		};
	}
	if (unique.length > bounds.max) {
		return {
			ok: false,
			message: `Could not draft a ${type} decision: ${unique.length} ${field} found, at most ${bounds.max}.`,
		};
	}
	const name = request.name ?? draftName(before, type, locale);
	const base = /[.!?]$/.test(description) ? description : `${description}.`;
	const definition: CreateFromDefinition = {
		name,
		description,
		type,
		instructions: `${base} ${TYPE_SENTENCE[locale][type]}`,
		context: { description: description },
	};
	if (type === 'route') definition.options = unique;
	else if (type === 'score') definition.levels = unique;
	else definition.labels = unique;
	return { ok: true, definition, locale };
}
