import * as z from 'zod/v4/mini';
import { BOUNDS, CONTEXT_FIELD_TYPES, FORCED_ENGINES, UNCERTAINTY_POLICIES } from './constants';
import './messages';
import { ownRecord } from './own';
import { decisionTypeSchema, localeSchema, slugSchema } from './resources';

// The request bodies of docs/api.md ("Endpoints"), checked field by field: every problem becomes
// one { field, message } detail of a 400 invalid_request; fields the API does not name are dropped
// (z.object). src/contract/validation checks a create body against them.

const decideRequestOptionsSchema = z.object({
	version: z.optional(z.int().check(z.gte(1))),
	engine: z.optional(z.enum(FORCED_ENGINES)),
});

export const decideRequestSchema = z.object({
	// Any own keys: a context field may be named `constructor` or `__proto__` (see own.ts).
	input: z.union([z.string(), ownRecord(z.unknown())]),
	options: z.optional(decideRequestOptionsSchema),
});

export const feedbackRequestSchema = z.object({
	feedback: z.string().check(z.trim(), z.minLength(1)),
	note: z.optional(z.string()),
});

const contextFieldInputSchema = z.object({
	name: z.string().check(z.minLength(1)),
	type: z.optional(z.enum(CONTEXT_FIELD_TYPES)),
	required: z.optional(z.boolean()),
	pii: z.optional(z.boolean()),
	description: z.optional(z.string()),
});

export const contextInputSchema = z.object({
	description: z.optional(z.string()),
	fields: z.optional(z.array(contextFieldInputSchema)),
	example: z.optional(z.unknown()),
});

// A definition item is a plain string (key and description at once) or an object.
const nonEmptyString = () => z.string().check(z.minLength(1));
const itemDescription = z.optional(z.string());
const optionItemSchema = z.union([
	nonEmptyString(),
	z.object({ key: nonEmptyString(), description: itemDescription }),
]);
const levelItemSchema = z.union([
	nonEmptyString(),
	z.object({ label: nonEmptyString(), description: itemDescription }),
]);
const labelItemSchema = z.union([
	nonEmptyString(),
	z.object({
		key: nonEmptyString(),
		description: itemDescription,
		threshold: z.optional(z.number().check(z.gte(0), z.lte(1))),
	}),
]);

/** Options may also be one string, separated by commas or by lines. */
export const optionsInputSchema = z.union([
	z.string(),
	z.array(optionItemSchema).check(z.minLength(BOUNDS.options.min), z.maxLength(BOUNDS.options.max)),
]);
export const levelsInputSchema = z
	.array(levelItemSchema)
	.check(z.minLength(BOUNDS.levels.min), z.maxLength(BOUNDS.levels.max));
export const labelsInputSchema = z
	.array(labelItemSchema)
	.check(z.minLength(BOUNDS.labels.min), z.maxLength(BOUNDS.labels.max));

const commonCreateFields = {
	name: z.optional(z.string().check(z.minLength(1), z.maxLength(BOUNDS.nameMax))),
	slug: z.optional(slugSchema),
	description: z.optional(z.string()),
	publish: z.optional(z.boolean()),
};

export const createFromTemplateSchema = z.object({
	...commonCreateFields,
	template: nonEmptyString(),
	locale: z.optional(localeSchema),
});

export const createFromDescriptionSchema = z.object({
	...commonCreateFields,
	describe: z.string().check(z.minLength(1), z.maxLength(BOUNDS.describeMax)),
	type: z.optional(decisionTypeSchema),
});

export const createFromDefinitionSchema = z.object({
	...commonCreateFields,
	name: z.string().check(z.minLength(1), z.maxLength(BOUNDS.nameMax)),
	type: decisionTypeSchema,
	instructions: nonEmptyString(),
	context: z.optional(contextInputSchema),
	options: z.optional(optionsInputSchema),
	levels: z.optional(levelsInputSchema),
	labels: z.optional(labelsInputSchema),
	confidence_threshold: z.optional(z.number().check(z.gte(0), z.lte(1))),
	uncertainty_policy: z.optional(z.enum(UNCERTAINTY_POLICIES)),
});

/** The API's `options` object of a decide call (not the node's Options collection). */
export type DecideRequestOptions = z.input<typeof decideRequestOptionsSchema>;
export type ContextFieldInput = z.input<typeof contextFieldInputSchema>;
export type CreateFromTemplate = z.input<typeof createFromTemplateSchema>;
export type CreateFromDescription = z.input<typeof createFromDescriptionSchema>;
export type CreateFromDefinition = z.input<typeof createFromDefinitionSchema>;
/** The body of POST /decisions in any of its three shapes ("selected by the fields present"). */
export type CreateDecisionRequest =
	| CreateFromTemplate
	| CreateFromDescription
	| CreateFromDefinition;
