import { z } from 'zod/v4';
import {
	BOUNDS,
	CONTEXT_FIELD_TYPES,
	FORCED_ENGINES,
	ITEMS_FIELD,
	UNCERTAINTY_POLICIES,
	type DecisionType,
} from './bounds';
import { normalizeKey, splitItemList } from './normalize';
import { decisionTypeSchema, localeSchema, slugSchema, type ErrorDetail } from './resources';

// Request bodies are validated strictly on the server: z.object strips nothing silently that
// matters, and every problem becomes one { field, message } detail of a 400 invalid_request.

export const decideOptionsSchema = z.object({
	version: z.number().int().min(1).optional(),
	engine: z.enum(FORCED_ENGINES).optional(),
});

export const decideRequestSchema = z.object({
	input: z.union([z.string(), z.record(z.string(), z.unknown())]),
	options: decideOptionsSchema.optional(),
});

export const feedbackRequestSchema = z.object({
	feedback: z.string().trim().min(1),
	note: z.string().optional(),
});

export const templatesQuerySchema = z.object({
	locale: localeSchema.optional(),
});

export const contextFieldInputSchema = z.object({
	name: z.string().min(1),
	type: z.enum(CONTEXT_FIELD_TYPES).optional(),
	required: z.boolean().optional(),
	pii: z.boolean().optional(),
	description: z.string().optional(),
});

export const contextInputSchema = z.object({
	description: z.string().optional(),
	fields: z.array(contextFieldInputSchema).optional(),
	example: z.unknown().optional(),
});

const itemDescription = z.string().optional();
export const optionItemSchema = z.union([
	z.string().min(1),
	z.object({ key: z.string().min(1), description: itemDescription }),
]);
export const levelItemSchema = z.union([
	z.string().min(1),
	z.object({ label: z.string().min(1), description: itemDescription }),
]);
export const labelItemSchema = z.union([
	z.string().min(1),
	z.object({
		key: z.string().min(1),
		description: itemDescription,
		threshold: z.number().min(0).max(1).optional(),
	}),
]);

/** Options may also be one string, separated by commas or by lines. */
export const optionsInputSchema = z.union([
	z.string(),
	z.array(optionItemSchema).min(BOUNDS.options.min).max(BOUNDS.options.max),
]);
export const levelsInputSchema = z
	.array(levelItemSchema)
	.min(BOUNDS.levels.min)
	.max(BOUNDS.levels.max);
export const labelsInputSchema = z
	.array(labelItemSchema)
	.min(BOUNDS.labels.min)
	.max(BOUNDS.labels.max);

const commonCreateFields = {
	name: z.string().min(1).max(BOUNDS.nameMax).optional(),
	slug: slugSchema.optional(),
	description: z.string().optional(),
	publish: z.boolean().optional(),
};

export const createFromTemplateSchema = z.object({
	...commonCreateFields,
	template: z.string().min(1),
	locale: localeSchema.optional(),
});

export const createFromDescriptionSchema = z.object({
	...commonCreateFields,
	describe: z.string().min(1).max(BOUNDS.describeMax),
	type: decisionTypeSchema.optional(),
});

export const createFromDefinitionSchema = z.object({
	...commonCreateFields,
	name: z.string().min(1).max(BOUNDS.nameMax),
	type: decisionTypeSchema,
	instructions: z.string().min(1),
	context: contextInputSchema.optional(),
	options: optionsInputSchema.optional(),
	levels: levelsInputSchema.optional(),
	labels: labelsInputSchema.optional(),
	confidence_threshold: z.number().min(0).max(1).optional(),
	uncertainty_policy: z.enum(UNCERTAINTY_POLICIES).optional(),
});

/** The body of POST /decisions in any of its three shapes, as the OpenAPI document shows it. */
export const createDecisionRequestSchema = z.union([
	createFromTemplateSchema,
	createFromDescriptionSchema,
	createFromDefinitionSchema,
]);

export type DecideOptions = z.input<typeof decideOptionsSchema>;
export type DecideRequest = z.input<typeof decideRequestSchema>;
export type FeedbackRequest = z.input<typeof feedbackRequestSchema>;
export type ContextFieldInput = z.input<typeof contextFieldInputSchema>;
export type OptionItem = z.input<typeof optionItemSchema>;
export type LevelItem = z.input<typeof levelItemSchema>;
export type LabelItem = z.input<typeof labelItemSchema>;
export type CreateFromTemplate = z.input<typeof createFromTemplateSchema>;
export type CreateFromDescription = z.input<typeof createFromDescriptionSchema>;
export type CreateFromDefinition = z.input<typeof createFromDefinitionSchema>;
export type CreateDecisionRequest =
	| CreateFromTemplate
	| CreateFromDescription
	| CreateFromDefinition;

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

export type Validation<T> = { ok: true; value: T } | { ok: false; details: ErrorDetail[] };

/** Turns zod issues into the `details` list of a 400: one entry per problem, naming the field. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ''): ErrorDetail[] {
	return issues.map((issue) => {
		const path = issue.path.map(String).join('.');
		const field = [prefix, path].filter(Boolean).join('.') || '(body)';
		return { field, message: issue.message };
	});
}

/** Which of the three shapes a create body selects, by the fields present (API: "selected by the fields present"). */
export function createShapeOf(
	body: Record<string, unknown>,
): 'template' | 'description' | 'definition' {
	if ('template' in body && body.template !== undefined) return 'template';
	if ('describe' in body && body.describe !== undefined) return 'description';
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
