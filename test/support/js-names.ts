/**
 * Names that are JavaScript's own, as the API allows them (issue 19): every layer's tests use this
 * one corpus. Keys are slugs (`^[a-z0-9]+(-[a-z0-9]+)*$`), so they can be option, level and label
 * keys; field names are free strings, so they can name context fields and keys of a JSON input.
 */

/** Option, level and label keys that Object.prototype (or Function.prototype) also has, folded to slugs. */
export const JS_KEYS = [
	'constructor',
	'prototype',
	'valueof',
	'tostring',
	'hasownproperty',
	'proto',
] as const;

/** Context field names and JSON keys that every object inherits or that assignment treats specially. */
export const JS_FIELD_NAMES = [
	'constructor',
	'__proto__',
	'toString',
	'hasOwnProperty',
	'valueOf',
] as const;

/** `{ "__proto__": …, "constructor": …, … }` as JSON text: what a service or a user would send. */
export function jsonText(entries: ReadonlyArray<readonly [string, unknown]>): string {
	return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
}

/** An object with these own keys (`__proto__` included, as JSON.parse makes it), values as given. */
export function jsonObject<T extends object = Record<string, unknown>>(
	entries: ReadonlyArray<readonly [string, unknown]>,
): T {
	return JSON.parse(jsonText(entries)) as T;
}

/** The own keys of an object, in order: `__proto__` shows here only when it is an own field. */
export const ownKeys = (value: unknown): string[] =>
	typeof value === 'object' && value !== null ? Object.keys(value) : [];
