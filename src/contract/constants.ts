/**
 * The constants the wire carries: bounds, patterns, enumerations and header names, as
 * docs/api.md gives them (its "Field and request bounds" table, the Run and Decision fields,
 * the rate-limit headers).
 */
export const BOUNDS = {
	nameMax: 120,
	slugMax: 64,
	describeMax: 2000,
	options: { min: 2, max: 255 },
	levels: { min: 2, max: 10 },
	labels: { min: 1, max: 50 },
	labelThresholdDefault: 0.5,
	/** docs/api.md advises clients to allow at least 10 s; we default to 15 s. */
	clientTimeoutDefaultMs: 15_000,
} as const;

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export const DECISION_TYPES = ['route', 'score', 'classify'] as const;
export type DecisionType = (typeof DECISION_TYPES)[number];

export const LOCALES = ['en', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

export const CONTEXT_FIELD_TYPES = ['string', 'number', 'boolean', 'object', 'array'] as const;

export const RUN_STATUSES = ['ok', 'uncertain', 'pending'] as const;

/** The engine a run reports. */
export const ENGINES = ['jev', 'llm_fallback'] as const;
export type EngineName = (typeof ENGINES)[number];

/** Values of `options.engine` on a decide call. */
export const FORCED_ENGINES = ['jev', 'llm'] as const;

export const UNCERTAINTY_POLICIES = ['uncertain_branch', 'human_review'] as const;
export type UncertaintyPolicy = (typeof UNCERTAINTY_POLICIES)[number];

/** The route `choice` of an uncertain run. */
export const UNCERTAIN_CHOICE = '__uncertain__';

/** The element of a definition that carries its items, per decision type. */
export const ITEMS_FIELD = {
	route: 'options',
	score: 'levels',
	classify: 'labels',
} as const satisfies Record<DecisionType, string>;

/** Response headers of the per-key rate limit (lower-case, as HTTP libraries hand them over). */
export const RATE_LIMIT_HEADERS = {
	limit: 'x-ratelimit-limit',
	remaining: 'x-ratelimit-remaining',
	reset: 'x-ratelimit-reset',
	retryAfter: 'retry-after',
} as const;
