import { hasOwn, ownValue, setOwn, type ContextField } from '../src/contract';
import { normalizeKey } from '../src/contract/validation';
import type { PiiMode } from './plans';

/**
 * Pseudonymisation done before the engine sees an input (docs/api.md, "What the service does", 5).
 *
 * - Declared `pii: true` fields are replaced whole by a token named after the field
 *   (`customer_email` → `<CUSTOMER_EMAIL_1>`), whatever their JSON type.
 * - Every other string value, and free-text input, is scanned. Standard mode (every plan):
 *   URLs, e-mails, IBANs (mod-97 checksum: a candidate that fails it is left alone and not
 *   counted), dates, phones. Strict mode (Pro and above, when on) adds card numbers (Luhn)
 *   and IPv4 addresses.
 * - Object keys are scanned like string values (an input keyed by e-mail or phone number must
 *   not keep them in the stored run), at every depth; only the top-level names of declared
 *   context fields are kept as they are. Two keys that end up the same get `~2`, `~3`… so no
 *   entry is lost.
 * - Tokens are `<KIND_n>`; the same value gets the same token within one input, but every
 *   substitution counts in `pii_redacted`.
 */

export type PiiKind = 'URL' | 'EMAIL' | 'IBAN' | 'CARD' | 'IP' | 'DATE' | 'PHONE';

export interface PseudonymisedInput<T> {
	value: T;
	/** Number of substitutions: `pii_redacted`. */
	count: number;
	/** Substitutions per kind (detector kinds and declared-field kinds). */
	kinds: Record<string, number>;
}

// Every pattern is bounded (lookbehind at the start of a run, bounded repetitions) so that a
// long input (up to the 1 MiB body limit) is scanned in linear time: no catastrophic backtracking.
const MONTHS =
	'january|february|march|april|may|june|july|august|september|october|november|december|' +
	'jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|' +
	'janvier|f[ée]vrier|mars|avril|mai|juin|juillet|ao[uû]t|septembre|octobre|novembre|d[ée]cembre';

const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"'`]{1,2048}/gi;
const EMAIL_RE =
	/(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z])/g;
const IBAN_RE = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
const CARD_RE = /(?<![\d])(?:\d[ -]?){12,18}\d(?![\d])/g;
const IPV4_RE =
	/(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\.?\d)/g;
const ISO_DATE_RE =
	/(?<![\d])(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\d])/g;
const NUMERIC_DATE_RE = /(?<![\d./])(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?![\d]|[/.]\d)/g;
const DAY_MONTH_RE = new RegExp(
	`\\b\\d{1,2}(?:st|nd|rd|th|er)?\\s{1,3}(?:${MONTHS})\\.?\\s{1,3}\\d{4}\\b`,
	'gi',
);
const MONTH_DAY_RE = new RegExp(
	`\\b(?:${MONTHS})\\.?\\s{1,3}\\d{1,2}(?:st|nd|rd|th)?,?\\s{1,3}\\d{4}\\b`,
	'gi',
);
const PHONE_RE = /(?<![\w+./-])\+?[\d(][\d ().-]{6,22}\d(?![\w])/g;
const NANP_RE = /^\(?\d{3}\)?[ .-]?\d{3}[ .-]\d{4}$/;

/** ISO 13616 mod-97 check of an IBAN written without spaces. */
export function isValidIban(compact: string): boolean {
	if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
	const rearranged = compact.slice(4) + compact.slice(0, 4);
	let remainder = 0;
	for (const char of rearranged) {
		const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
		for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
	}
	return remainder === 1;
}

export function isValidLuhn(digits: string): boolean {
	let sum = 0;
	let double = false;
	for (let index = digits.length - 1; index >= 0; index -= 1) {
		let digit = Number(digits[index]);
		if (double) {
			digit *= 2;
			if (digit > 9) digit -= 9;
		}
		sum += digit;
		double = !double;
	}
	return digits.length > 0 && sum % 10 === 0;
}

function plausibleDayMonth(a: number, b: number): boolean {
	const dayFirst = a >= 1 && a <= 31 && b >= 1 && b <= 12;
	const monthFirst = a >= 1 && a <= 12 && b >= 1 && b <= 31;
	return dayFirst || monthFirst;
}

function isPhone(candidate: string): boolean {
	const digits = candidate.replace(/\D/g, '');
	if (digits.length < 9 || digits.length > 15) return false;
	if (/[ .-]{2,}/.test(candidate)) return false;
	return /^[+(0]/.test(candidate) || NANP_RE.test(candidate);
}

/** Letters only, so that a placeholder never looks like part of a number to a later detector. */
function placeholder(index: number): string {
	return `\u0000${String(index).replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)])}\u0000`;
}

export class Pseudonymiser {
	private readonly counters = new Map<string, number>();
	private readonly tokens = new Map<string, string>();
	count = 0;
	readonly kinds: Record<string, number> = {};

	constructor(private readonly mode: PiiMode) {}

	token(kind: string, value: string): string {
		const key = `${kind}\u0000${value}`;
		let token = this.tokens.get(key);
		if (!token) {
			const n = (this.counters.get(kind) ?? 0) + 1;
			this.counters.set(kind, n);
			token = `<${kind}_${n}>`;
			this.tokens.set(key, token);
		}
		this.count += 1;
		setOwn(this.kinds, kind, ((ownValue(this.kinds, kind) as number | undefined) ?? 0) + 1);
		return token;
	}

	/** Replaces detected personal data in one string. */
	text(input: string): string {
		// Each replacement (or protected span) becomes a placeholder first, so later detectors
		// never see inside a token or re-read digits of something already handled.
		const held: string[] = [];
		const hold = (text: string): string => {
			held.push(text);
			return placeholder(held.length - 1);
		};
		let text = input;
		text = text.replace(URL_RE, (match) => {
			const trailing = /[.,;:!?)\]}]+$/.exec(match)?.[0] ?? '';
			const url = match.slice(0, match.length - trailing.length);
			return hold(this.token('URL', url)) + trailing;
		});
		text = text.replace(EMAIL_RE, (match) => hold(this.token('EMAIL', match)));
		text = text.replace(IBAN_RE, (match) => {
			const compact = match.replace(/ /g, '');
			// A bad checksum is not an IBAN: left as written, not counted, and kept away from the phone detector.
			return hold(isValidIban(compact) ? this.token('IBAN', compact) : match);
		});
		if (this.mode === 'strict') {
			text = text.replace(CARD_RE, (match) => {
				const digits = match.replace(/\D/g, '');
				return digits.length >= 13 && digits.length <= 19 && isValidLuhn(digits)
					? hold(this.token('CARD', digits))
					: match;
			});
			text = text.replace(IPV4_RE, (match) => hold(this.token('IP', match)));
		}
		text = text.replace(ISO_DATE_RE, (match, _y: string, month: string, day: string) =>
			Number(month) >= 1 && Number(month) <= 12 && Number(day) >= 1 && Number(day) <= 31
				? hold(this.token('DATE', match))
				: match,
		);
		text = text.replace(NUMERIC_DATE_RE, (match, a: string, b: string) =>
			plausibleDayMonth(Number(a), Number(b)) ? hold(this.token('DATE', match)) : match,
		);
		text = text.replace(DAY_MONTH_RE, (match) => hold(this.token('DATE', match)));
		text = text.replace(MONTH_DAY_RE, (match) => hold(this.token('DATE', match)));
		text = text.replace(PHONE_RE, (match) =>
			isPhone(match) ? hold(this.token('PHONE', match)) : match,
		);
		// Placeholders hold only tokens or untouched text: put them back.
		return text.replace(/\u0000([a-j]+)\u0000/g, (_match, code: string) => {
			const index = Number(code.replace(/[a-j]/g, (letter) => String(letter.charCodeAt(0) - 97)));
			return held[index] ?? '';
		});
	}

	/** Walks any JSON value, scanning every string: values and object keys. */
	value(input: unknown): unknown {
		if (typeof input === 'string') return this.text(input);
		if (Array.isArray(input)) return input.map((entry) => this.value(entry));
		if (input !== null && typeof input === 'object') {
			const out: Record<string, unknown> = {};
			for (const [key, entry] of Object.entries(input))
				setOwn(out, uniqueKey(out, this.text(key)), this.value(entry));
			return out;
		}
		return input;
	}
}

/** `key`, or `key~2`, `key~3`… when `out` already has it (two keys pseudonymised alike). */
function uniqueKey(out: Record<string, unknown>, key: string): string {
	if (!hasOwn(out, key)) return key;
	let n = 2;
	while (hasOwn(out, `${key}~${n}`)) n += 1;
	return `${key}~${n}`;
}

/** The token kind of a declared personal-data field: its name, upper-case (`customer_email` → `CUSTOMER_EMAIL`). */
export function fieldKind(name: string): string {
	return normalizeKey(name).replace(/-/g, '_').toUpperCase() || 'PII';
}

/**
 * Pseudonymises a decide input: declared `pii` fields replaced whole, detectors on every other
 * string. Returns a new value; the input is not modified.
 */
export function pseudonymise<T extends string | Record<string, unknown>>(
	input: T,
	fields: readonly Pick<ContextField, 'name' | 'pii'>[],
	mode: PiiMode,
): PseudonymisedInput<T> {
	const pseudonymiser = new Pseudonymiser(mode);
	let value: unknown;
	if (typeof input === 'string') {
		value = pseudonymiser.text(input);
	} else {
		const declared = new Set(fields.filter((field) => field.pii).map((field) => field.name));
		const names = new Set(fields.map((field) => field.name));
		const out: Record<string, unknown> = {};
		for (const [key, entry] of Object.entries(input)) {
			// A declared context field's name is the decision's schema, not data: kept as is.
			const name = names.has(key) ? key : uniqueKey(out, pseudonymiser.text(key));
			if (declared.has(key) && entry !== undefined && entry !== null && entry !== '') {
				setOwn(out, name, pseudonymiser.token(fieldKind(key), JSON.stringify(entry)));
			} else {
				setOwn(out, name, pseudonymiser.value(entry));
			}
		}
		value = out;
	}
	// The cast restores the caller's shape: strings stay strings and objects stay objects.
	return { value: value as T, count: pseudonymiser.count, kinds: { ...pseudonymiser.kinds } };
}
