import * as z from 'zod/v4/mini';
import './messages';

// Names that are JavaScript's own (`constructor`, `toString`, `__proto__`, `hasOwnProperty`…) are
// ordinary names on the wire: `constructor` and `proto` are legal slugs, so legal option, level and
// label keys, and a context field or a JSON input may use any string as a key. Everything that reads
// user or service data by key goes through these helpers, so such a name is only ever its own
// property: never one inherited from Object.prototype, never the object's prototype.

/** Whether `key` is an own property of `target` (never an inherited one). */
export function hasOwn(target: unknown, key: string): boolean {
	return (
		typeof target === 'object' &&
		target !== null &&
		Object.prototype.hasOwnProperty.call(target, key)
	);
}

/** The own value of `key`, or undefined: `constructor` on an object that lacks it is undefined. */
export function ownValue(target: unknown, key: string): unknown {
	return hasOwn(target, key) ? (target as Record<string, unknown>)[key] : undefined;
}

/** Sets an own, enumerable property, even `__proto__` (which plain assignment turns into a prototype). */
export function setOwn(target: object, key: string, value: unknown): void {
	Object.defineProperty(target, key, {
		value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}

/** A plain object of these entries, each an own property whatever its name. */
export function ownObject<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
	const out: Record<string, T> = {};
	for (const [key, value] of entries) setOwn(out, key, value);
	return out;
}

/**
 * A deep copy of a JSON value that keeps every own key. (n8n-workflow's `deepCopy` drops the keys
 * `constructor`, `prototype` and `__proto__`: an item copied with it loses such fields.)
 */
export function jsonCopy<T>(value: T): T {
	return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function isRecordLike(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A record of any own string keys, each value checked by `value`: what `z.record(z.string(), value)`
 * should be. zod's record refuses an object with an own key `constructor` ("expected record,
 * received object") and drops a key `__proto__` (it assigns it); this one accepts both and builds
 * its output with own properties. Problems name the key, as zod's do (`probabilities.constructor`).
 * `jsonSchema` is what docs/openapi.json shows for it (a transform has no JSON schema of its own).
 */
export function ownRecord<T>(value: z.ZodMiniType<T>, jsonSchema: Record<string, unknown> = {}) {
	return z
		.pipe(
			z.custom<Record<string, unknown>>(isRecordLike, 'Invalid input: expected record'),
			z.transform((input: Record<string, unknown>, context) => {
				const out: Record<string, T> = {};
				for (const key of Object.keys(input)) {
					const parsed = value.safeParse(input[key]);
					if (parsed.success) {
						setOwn(out, key, parsed.data);
						continue;
					}
					for (const issue of parsed.error.issues) {
						context.issues.push({
							...issue,
							code: 'custom',
							input: input[key],
							path: [key, ...issue.path],
						});
					}
				}
				return out;
			}),
		)
		.register(z.globalRegistry, {
			type: 'object',
			propertyNames: { type: 'string' },
			additionalProperties: jsonSchema,
		});
}

/**
 * After zod parsed a loose object, an own key `__proto__` of its input was assigned to the output,
 * which made its value the output's prototype (and its fields readable as inherited ones: a run's
 * `choice`, say). This puts such a value back as an own property `__proto__`, at every depth, and
 * gives the object a plain prototype again. Arrays and objects built by `ownRecord` are left as
 * they are. A `__proto__` that held a string or a number is lost in zod's assignment; it is not
 * inherited either.
 */
export function restoreOwnProto<T>(value: T): T {
	const seen = new Set<object>();
	const visit = (node: unknown): void => {
		if (typeof node !== 'object' || node === null || seen.has(node)) return;
		seen.add(node);
		if (Array.isArray(node)) {
			node.forEach(visit);
			return;
		}
		const prototype: unknown = Object.getPrototypeOf(node);
		if (prototype !== Object.prototype) {
			Object.setPrototypeOf(node, Object.prototype);
			setOwn(node, '__proto__', prototype);
		}
		for (const key of Object.keys(node)) visit((node as Record<string, unknown>)[key]);
	};
	visit(value);
	return value;
}
