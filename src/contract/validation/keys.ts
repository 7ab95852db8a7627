import { BOUNDS } from '../constants';

/**
 * Derives a slug or an item key from a human name (docs/api.md only says the same name gives the
 * same slug; the rule is ours, README "Where the API text is silent"): NFKD, strip combining marks,
 * lower-case, runs of anything but [a-z0-9] become one `-`, trim `-`, cut to 64 characters at a
 * `-` where one exists. The same name always gives the same result.
 */
export function normalizeKey(name: string, maxLength: number = BOUNDS.slugMax): string {
	const folded = name
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-+|-+$/g, '');
	if (folded.length <= maxLength) return folded;
	const cut = folded.slice(0, maxLength);
	const lastDash = cut.lastIndexOf('-');
	return (lastDash > 0 ? cut.slice(0, lastDash) : cut).replace(/-+$/g, '');
}

/**
 * Splits the string form of `options` ("a, b, c" or one item per line) into items.
 * Lines win over commas, so a line may hold a description with commas in it.
 */
export function splitItemList(text: string): string[] {
	const parts = /\r?\n/.test(text) ? text.split(/\r?\n/) : text.split(',');
	return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}
