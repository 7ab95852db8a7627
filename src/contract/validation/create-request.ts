import type * as z from 'zod/v4/mini';
import { BOUNDS, ITEMS_FIELD, type DecisionType } from '../constants';
import {
	createFromDefinitionSchema,
	createFromDescriptionSchema,
	createFromTemplateSchema,
} from '../requests';
import { hasOwn } from '../own';
import type { ErrorDetail } from '../resources';
import { normalizeKey, splitItemList } from './keys';

/** One option, level or label after normalisation: the key is what runs and outputs are named by. */
export interface DefinitionItem {
	key: string;
	description: string;
	/** Labels only. */
	threshold?: number;
}

export type ValidatedCreateRequest =
	| { shape: 'template'; body: z.output<typeof createFromTemplateSchema> }
	| { shape: 'description'; body: z.output<typeof createFromDescriptionSchema> }
	| {
			shape: 'definition';
			body: z.output<typeof createFromDefinitionSchema>;
			/** The items of the definition's type, normalised, bounds checked. */
			items: DefinitionItem[];
	  };

type Validation<T> = { ok: true; value: T } | { ok: false; details: ErrorDetail[] };

/** Turns zod issues into the `details` list of a 400: one entry per problem, naming the field. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ''): ErrorDetail[] {
	return issues.map((issue) => {
		const path = issue.path.map(String).join('.');
		const field = [prefix, path].filter(Boolean).join('.') || '(body)';
		return { field, message: issue.message };
	});
}

/** Which of the three shapes a create body selects: docs/api.md, "selected by the fields present". */
function createShapeOf(body: Record<string, unknown>): 'template' | 'description' | 'definition' {
	if (hasOwn(body, 'template') && body.template !== undefined) return 'template';
	if (hasOwn(body, 'describe') && body.describe !== undefined) return 'description';
	return 'definition';
}

function normaliseItems(type: DecisionType, raw: unknown): Validation<DefinitionItem[]> {
	const field = ITEMS_FIELD[type];
	const list: unknown[] = typeof raw === 'string' ? splitItemList(raw) : (raw as unknown[]);
	const bounds = BOUNDS[field];
	if (list.length < bounds.min || list.length > bounds.max) {
		return {
			ok: false,
			details: [
				{
					field,
					message: `${type} decisions need ${bounds.min} to ${bounds.max} ${field}; got ${list.length}`,
				},
			],
		};
	}
	const items: DefinitionItem[] = [];
	const details: ErrorDetail[] = [];
	const seen = new Set<string>();
	list.forEach((entry, index) => {
		const record =
			typeof entry === 'string'
				? { key: entry, label: entry, description: entry }
				: (entry as Record<string, unknown>);
		const name = String((type === 'score' ? record.label : record.key) ?? '');
		// Levels keep their human label as key (the legend shows it); options and labels are normalised.
		const key = type === 'score' ? name.trim() : normalizeKey(name);
		if (!key) {
			details.push({
				field: `${field}.${index}`,
				message: 'has no usable key (letters or digits)',
			});
			return;
		}
		if (seen.has(key)) {
			details.push({ field: `${field}.${index}`, message: `duplicates the key "${key}"` });
			return;
		}
		seen.add(key);
		const item: DefinitionItem = {
			key,
			description: typeof record.description === 'string' ? record.description : name,
		};
		if (type === 'classify') {
			item.threshold =
				typeof record.threshold === 'number' ? record.threshold : BOUNDS.labelThresholdDefault;
		}
		items.push(item);
	});
	return details.length ? { ok: false, details } : { ok: true, value: items };
}

/**
 * Validates a POST /decisions body: selects the shape, checks it against that shape's schema and
 * the bounds table, and normalises a definition's items. Shared by the sandbox (to answer 400)
 * and the client (to fail before a request is spent).
 */
export function validateCreateDecisionRequest(body: unknown): Validation<ValidatedCreateRequest> {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		return { ok: false, details: [{ field: '(body)', message: 'must be a JSON object' }] };
	}
	const shape = createShapeOf(body as Record<string, unknown>);
	if (shape === 'template') {
		const parsed = createFromTemplateSchema.safeParse(body);
		return parsed.success
			? { ok: true, value: { shape, body: parsed.data } }
			: { ok: false, details: issuesToDetails(parsed.error.issues) };
	}
	if (shape === 'description') {
		const parsed = createFromDescriptionSchema.safeParse(body);
		return parsed.success
			? { ok: true, value: { shape, body: parsed.data } }
			: { ok: false, details: issuesToDetails(parsed.error.issues) };
	}
	const parsed = createFromDefinitionSchema.safeParse(body);
	if (!parsed.success) return { ok: false, details: issuesToDetails(parsed.error.issues) };
	const definition = parsed.data;
	const field = ITEMS_FIELD[definition.type];
	const details: ErrorDetail[] = [];
	for (const other of Object.values(ITEMS_FIELD)) {
		if (other !== field && definition[other] !== undefined) {
			details.push({
				field: other,
				message: `is not used by ${definition.type} decisions (use ${field})`,
			});
		}
	}
	if (definition[field] === undefined) {
		details.push({ field, message: `is required for ${definition.type} decisions` });
		return { ok: false, details };
	}
	const items = normaliseItems(definition.type, definition[field]);
	if (!items.ok) return { ok: false, details: [...details, ...items.details] };
	if (details.length) return { ok: false, details };
	return { ok: true, value: { shape, body: definition, items: items.value } };
}
