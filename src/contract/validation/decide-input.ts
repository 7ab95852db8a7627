import { ownValue } from '../own';
import type { ContextField, ErrorDetail } from '../resources';

function typeName(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	return typeof value;
}

function matchesType(value: unknown, type: ContextField['type']): boolean {
	switch (type) {
		case 'string':
			return typeof value === 'string';
		case 'number':
			return typeof value === 'number' && Number.isFinite(value);
		case 'boolean':
			return typeof value === 'boolean';
		case 'array':
			return Array.isArray(value);
		case 'object':
			return typeof value === 'object' && value !== null && !Array.isArray(value);
	}
}

/**
 * Checks a decide `input` against a decision's declared context fields: one detail per missing
 * required field or wrong type, each naming `input.<field>`. Free text is accepted as is (the API
 * allows it); fields not declared pass through. The sandbox answers 400 with these details, and
 * the node runs the same check before a call so a bad item spends no quota.
 */
export function validateDecideInput(
	fields: ReadonlyArray<Pick<ContextField, 'name' | 'type' | 'required'>>,
	input: unknown,
): ErrorDetail[] {
	if (typeof input === 'string') return [];
	if (typeof input !== 'object' || input === null || Array.isArray(input)) {
		return [{ field: 'input', message: `must be an object or free text, got ${typeName(input)}` }];
	}
	const details: ErrorDetail[] = [];
	for (const field of fields) {
		// Own fields only: an input without `constructor` has none, whatever Object.prototype has.
		const value = ownValue(input, field.name);
		const missing = value === undefined || value === null || value === '';
		if (missing) {
			if (field.required) details.push({ field: `input.${field.name}`, message: 'is required' });
			continue;
		}
		if (!matchesType(value, field.type)) {
			details.push({
				field: `input.${field.name}`,
				message: `must be ${field.type === 'array' || field.type === 'object' ? 'an' : 'a'} ${field.type}, got ${typeName(value)}`,
			});
		}
	}
	return details;
}
