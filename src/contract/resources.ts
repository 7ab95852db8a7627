import { z } from 'zod/v4';
import {
	CONTEXT_FIELD_TYPES,
	DECISION_TYPES,
	ENGINES,
	LOCALES,
	RUN_STATUSES,
	SLUG_PATTERN,
	UNCERTAINTY_POLICIES,
	BOUNDS,
} from './bounds';

// Responses are parsed leniently: z.looseObject keeps fields a newer service may add,
// while a wrong type or an unknown enum value still fails with the field's path.

export const slugSchema = z
	.string()
	.max(BOUNDS.slugMax)
	.regex(SLUG_PATTERN, 'must be lower-case letters and digits separated by single hyphens');
export const decisionTypeSchema = z.enum(DECISION_TYPES);
export const localeSchema = z.enum(LOCALES);
export const dateTimeSchema = z.string().describe('date-time (ISO 8601)');

export const contextFieldSchema = z.looseObject({
	name: z.string().min(1),
	type: z.enum(CONTEXT_FIELD_TYPES).default('string'),
	required: z.boolean().default(false),
	pii: z.boolean().default(false),
	description: z.string().optional(),
});

export const decisionContextSchema = z.looseObject({
	description: z.string().default(''),
	fields: z.array(contextFieldSchema).default([]),
	example: z.unknown().optional(),
});

export const decisionSchema = z.looseObject({
	slug: z.string(),
	name: z.string(),
	description: z.string().default(''),
	type: decisionTypeSchema,
	live_version: z.number().int().nullable(),
	updated_at: dateTimeSchema,
	confidence_threshold: z.number().min(0).max(1),
	uncertainty_policy: z.enum(UNCERTAINTY_POLICIES),
	context: decisionContextSchema,
	instructions: z.string(),
	options: z.array(z.string()).optional(),
	levels: z.array(z.string()).optional(),
	labels: z.array(z.string()).optional(),
});

export const decisionSummarySchema = z.looseObject({
	slug: z.string(),
	name: z.string(),
	description: z.string().default(''),
	type: decisionTypeSchema,
	live_version: z.number().int().nullable(),
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
	options: z.array(z.string()).optional(),
	levels: z.array(z.string()).optional(),
	labels: z.array(z.string()).optional(),
});

export const templateListSchema = z.looseObject({
	locale: localeSchema,
	templates: z.array(templateSchema),
});

export const runSchema = z.looseObject({
	run_id: z.string(),
	decision: z.string(),
	version: z.number().int(),
	status: z.enum(RUN_STATUSES),
	choice: z.string().optional(),
	score: z.number().min(0).max(100).optional(),
	raw_score: z.number().optional(),
	legend: z.record(z.string(), z.string()).optional(),
	labels: z.array(z.string()).optional(),
	probabilities: z.record(z.string(), z.number()),
	confidence: z.number().min(0).max(1),
	confidence_source: z.enum(['calibrated', 'self_reported']),
	engine: z.enum(ENGINES),
	model: z.string(),
	latency_ms: z.number().int(),
	pii_redacted: z.number().int().min(0),
	fallback_reason: z.string().optional(),
	review_url: z.string().optional(),
});

export const feedbackRecordSchema = z.looseObject({
	run_id: z.string(),
	feedback: z.string(),
	note: z.string().optional(),
});

export const createDecisionResponseSchema = z.looseObject({
	slug: z.string(),
	name: z.string(),
	type: decisionTypeSchema,
	description: z.string().optional(),
	created: z.boolean(),
	status: z.enum(['live', 'draft']),
	live_version: z.number().int().nullable(),
	url: z.string(),
	options: z.array(z.string()).optional(),
	levels: z.array(z.string()).optional(),
	labels: z.array(z.string()).optional(),
	publish_error: z.enum(['plan_limit']).optional(),
	message: z.string().optional(),
	upgrade_url: z.string().optional(),
});

export const errorDetailSchema = z.looseObject({
	field: z.string(),
	message: z.string(),
});

export const errorEnvelopeSchema = z.looseObject({
	error: z.looseObject({
		code: z.string(),
		message: z.string(),
		details: z.unknown().optional(),
	}),
});

export const quotaExceededDetailsSchema = z.looseObject({
	used: z.number().int(),
	quota: z.number().int(),
	retry_after: z.number().int(),
	upgrade_url: z.string(),
});

export const rateLimitedDetailsSchema = z.looseObject({
	limit: z.number().int(),
	retry_after: z.number().int(),
});

export type ContextField = z.output<typeof contextFieldSchema>;
export type DecisionContext = z.output<typeof decisionContextSchema>;
export type Decision = z.output<typeof decisionSchema>;
export type DecisionSummary = z.output<typeof decisionSummarySchema>;
export type DecisionList = z.output<typeof decisionListSchema>;
export type Template = z.output<typeof templateSchema>;
export type TemplateList = z.output<typeof templateListSchema>;
export type Run = z.output<typeof runSchema>;
export type FeedbackRecord = z.output<typeof feedbackRecordSchema>;
export type CreateDecisionResponse = z.output<typeof createDecisionResponseSchema>;
export type ErrorDetail = z.output<typeof errorDetailSchema>;
export type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;
export type QuotaExceededDetails = z.output<typeof quotaExceededDetailsSchema>;
export type RateLimitedDetails = z.output<typeof rateLimitedDetailsSchema>;
