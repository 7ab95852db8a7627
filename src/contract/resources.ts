import * as z from 'zod/v4/mini';
import {
	BOUNDS,
	CONTEXT_FIELD_TYPES,
	DECISION_TYPES,
	ENGINES,
	LOCALES,
	RUN_STATUSES,
	SLUG_PATTERN,
	UNCERTAINTY_POLICIES,
} from './constants';
import './messages';
import { ownRecord } from './own';

// The resources of docs/api.md ("Resources and their fields") and the error envelope, as the
// client reads them. Responses are parsed leniently: z.looseObject keeps fields a newer service
// may add, while a wrong type or an unknown enum value still fails with the field's path.
// zod/v4/mini (functions instead of methods) keeps the shipped bundle small: see src/contract/index.ts.

export const slugSchema = z
	.string()
	.check(
		z.maxLength(BOUNDS.slugMax),
		z.regex(SLUG_PATTERN, 'must be lower-case letters and digits separated by single hyphens'),
	);
export const decisionTypeSchema = z.enum(DECISION_TYPES);
export const localeSchema = z.enum(LOCALES);
const dateTimeSchema = z
	.string()
	.register(z.globalRegistry, { description: 'date-time (ISO 8601)' });
const probabilitySchema = () => z.number().check(z.gte(0), z.lte(1));
/** `options`, `levels` or `labels` of a decision: the keys (labels for levels), one per item. */
const itemKeysSchema = () => z.optional(z.array(z.string()));

export const contextFieldSchema = z.looseObject({
	name: z.string().check(z.minLength(1)),
	type: z._default(z.enum(CONTEXT_FIELD_TYPES), 'string'),
	required: z._default(z.boolean(), false),
	pii: z._default(z.boolean(), false),
	description: z.optional(z.string()),
});

const decisionContextSchema = z.looseObject({
	description: z._default(z.string(), ''),
	fields: z._default(z.array(contextFieldSchema), []),
	example: z.optional(z.unknown()),
});

export const decisionSchema = z.looseObject({
	slug: z.string(),
	name: z.string(),
	description: z._default(z.string(), ''),
	type: decisionTypeSchema,
	live_version: z.nullable(z.int()),
	updated_at: dateTimeSchema,
	confidence_threshold: probabilitySchema(),
	uncertainty_policy: z.enum(UNCERTAINTY_POLICIES),
	context: decisionContextSchema,
	instructions: z.string(),
	options: itemKeysSchema(),
	levels: itemKeysSchema(),
	labels: itemKeysSchema(),
});

export const decisionSummarySchema = z.looseObject({
	slug: z.string(),
	name: z.string(),
	description: z._default(z.string(), ''),
	type: decisionTypeSchema,
	live_version: z.nullable(z.int()),
	updated_at: dateTimeSchema,
});

export const decisionListSchema = z.looseObject({
	decisions: z.array(decisionSummarySchema),
});

export const templateSchema = z.looseObject({
	key: z.string(),
	type: decisionTypeSchema,
	name: z.string(),
	description: z.string(),
	use_case: z.string(),
	featured: z.boolean(),
	options: itemKeysSchema(),
	levels: itemKeysSchema(),
	labels: itemKeysSchema(),
});

export const templateListSchema = z.looseObject({
	locale: localeSchema,
	templates: z.array(templateSchema),
});

export const runSchema = z.looseObject({
	run_id: z.string(),
	decision: z.string(),
	version: z.int(),
	status: z.enum(RUN_STATUSES),
	choice: z.optional(z.string()),
	score: z.optional(z.number().check(z.gte(0), z.lte(100))),
	raw_score: z.optional(z.number()),
	legend: z.optional(ownRecord(z.string(), { type: 'string' })),
	labels: z.optional(z.array(z.string())),
	probabilities: ownRecord(z.number(), { type: 'number' }),
	confidence: probabilitySchema(),
	confidence_source: z.enum(['calibrated', 'self_reported']),
	engine: z.enum(ENGINES),
	model: z.string(),
	latency_ms: z.int(),
	pii_redacted: z.int().check(z.gte(0)),
	fallback_reason: z.optional(z.string()),
	review_url: z.optional(z.string()),
});

/**
 * A decide answer as the client accepts it. A decide answered 2xx was charged, so its answer is
 * never thrown away for what a newer service may send: a status, engine or confidence source this
 * code does not know passes as a string, numbers are not range-checked, and only `run_id` and
 * `status` are required. The node routes what it cannot place to Other with a note
 * (nodes/DecisionService/outputs/targets.ts). `runSchema` above stays the run as
 * the service promises it (the sandbox's tests and docs/openapi.json).
 */
export const runAnswerSchema = z.looseObject({
	run_id: z.string(),
	status: z.string(),
	decision: z.optional(z.string()),
	version: z.optional(z.number()),
	choice: z.optional(z.string()),
	score: z.optional(z.number()),
	raw_score: z.optional(z.number()),
	legend: z.optional(ownRecord(z.string(), { type: 'string' })),
	labels: z.optional(z.array(z.string())),
	probabilities: z.optional(ownRecord(z.number(), { type: 'number' })),
	confidence: z.optional(z.number()),
	confidence_source: z.optional(z.string()),
	engine: z.optional(z.string()),
	model: z.optional(z.string()),
	latency_ms: z.optional(z.number()),
	pii_redacted: z.optional(z.number()),
	fallback_reason: z.optional(z.string()),
	review_url: z.optional(z.string()),
});

export const feedbackRecordSchema = z.looseObject({
	run_id: z.string(),
	feedback: z.string(),
	note: z.optional(z.string()),
});

export const createDecisionResponseSchema = z.looseObject({
	slug: z.string(),
	name: z.string(),
	type: decisionTypeSchema,
	description: z.optional(z.string()),
	created: z.boolean(),
	status: z.enum(['live', 'draft']),
	live_version: z.nullable(z.int()),
	url: z.string(),
	options: itemKeysSchema(),
	levels: itemKeysSchema(),
	labels: itemKeysSchema(),
	publish_error: z.optional(z.enum(['plan_limit'])),
	message: z.optional(z.string()),
	upgrade_url: z.optional(z.string()),
});

export const errorDetailSchema = z.looseObject({
	field: z.string(),
	message: z.string(),
});

export const errorEnvelopeSchema = z.looseObject({
	error: z.looseObject({
		code: z.string(),
		message: z.string(),
		details: z.optional(z.unknown()),
	}),
});

export const quotaExceededDetailsSchema = z.looseObject({
	used: z.int(),
	quota: z.int(),
	retry_after: z.int(),
	upgrade_url: z.string(),
});

export const rateLimitedDetailsSchema = z.looseObject({
	limit: z.int(),
	retry_after: z.int(),
});

export type ContextField = z.output<typeof contextFieldSchema>;
export type DecisionContext = z.output<typeof decisionContextSchema>;
export type Decision = z.output<typeof decisionSchema>;
export type DecisionSummary = z.output<typeof decisionSummarySchema>;
export type DecisionList = z.output<typeof decisionListSchema>;
export type Template = z.output<typeof templateSchema>;
export type TemplateList = z.output<typeof templateListSchema>;
export type Run = z.output<typeof runSchema>;
export type RunAnswer = z.output<typeof runAnswerSchema>;
export type FeedbackRecord = z.output<typeof feedbackRecordSchema>;
export type CreateDecisionResponse = z.output<typeof createDecisionResponseSchema>;
export type ErrorDetail = z.output<typeof errorDetailSchema>;
export type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;
