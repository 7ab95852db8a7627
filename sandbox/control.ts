import { z } from 'zod/v4';
import {
	contextInputSchema,
	ITEMS_FIELD,
	labelsInputSchema,
	levelsInputSchema,
	optionsInputSchema,
	UNCERTAINTY_POLICIES,
} from '../src/contract';
import {
	issuesToDetails,
	splitItemList,
	validateCreateDecisionRequest,
	type DefinitionItem,
} from '../src/contract/validation';
import type { Runtime } from './api';
import { decisionView, normaliseFields, shownVersion, type StoredVersion } from './decisions';
import { ApiError, invalidRequest, type Result } from './errors';
import { faultsRequestSchema, type FaultInjector } from './faults';
import type { Account } from './store';

/**
 * The control surface (outside /v1, no auth): what tests and demos use to drive the sandbox.
 * Registered only when control is on (default: only on a loopback host).
 *
 *   POST /_control/reset                        back to the seed state
 *   GET|POST /_control/clock                    { advance_ms?, set?, rate_window_ms? } → { now, rate_window_ms }
 *   GET /_control/usage?key=…                   { plan, used, quota, period, rate: { limit, remaining, reset_ms } }
 *   POST /_control/usage                        { key, used } sets this month's usage
 *   POST /_control/decisions/:slug/versions     { key, options|levels|labels?, instructions?, context?,
 *                                                 confidence_threshold?, uncertainty_policy?, publish? } → Decision
 *                                                 (+ created_version); items without a description keep
 *                                                 the live version's description for the same key
 *   POST /_control/decisions/:slug/live         { key, version } → Decision (rollback or publish)
 *   GET /_control/runs/:run_id?key=…            the stored run (pseudonymised input, feedback)
 *   GET|POST|DELETE /_control/faults            fault rules (see faults.ts)
 *   GET|POST /_control/config                   { drafter?, primary_timeout_ms? }
 */

export interface ControlRoute {
	method: 'GET' | 'POST' | 'DELETE';
	url: string;
	handler(request: {
		body: unknown;
		query: unknown;
		params: Record<string, string>;
	}): Result | Promise<Result>;
}

export interface ControlDefaults {
	drafter: boolean;
	primaryTimeoutMs: number;
}

const keySchema = z.object({ key: z.string().min(1) });

const clockSchema = z.object({
	advance_ms: z.number().finite().optional(),
	set: z
		.string()
		.refine((value) => !Number.isNaN(Date.parse(value)), {
			message: 'must be an ISO 8601 date-time',
		})
		.optional(),
	rate_window_ms: z.number().int().min(1).optional(),
});

/** `used` may be negative: the account then has that many decides more than its quota this month (tests lift a quota so). */
const usageSchema = keySchema.extend({ used: z.number().int() });

const versionSchema = keySchema.extend({
	options: z.optional(optionsInputSchema),
	levels: z.optional(levelsInputSchema),
	labels: z.optional(labelsInputSchema),
	instructions: z.string().min(1).optional(),
	context: z.optional(contextInputSchema),
	confidence_threshold: z.number().min(0).max(1).optional(),
	uncertainty_policy: z.enum(UNCERTAINTY_POLICIES).optional(),
	publish: z.boolean().optional(),
});

const liveSchema = keySchema.extend({ version: z.number().int().min(1) });

const configSchema = z.object({
	drafter: z.boolean().optional(),
	primary_timeout_ms: z.number().int().min(0).max(60_000).optional(),
});

/**
 * A new version is built from the live one: an item given without a description (a plain string,
 * or an object with only its key) whose key the live version has keeps that item's description
 * and threshold. A new key without description gets its own name, as on creation.
 */
function inheritDescriptions(
	raw: unknown,
	items: DefinitionItem[],
	base: readonly DefinitionItem[],
): DefinitionItem[] {
	const entries: unknown[] =
		typeof raw === 'string' ? splitItemList(raw) : Array.isArray(raw) ? raw : [];
	return items.map((item, index) => {
		const entry = entries[index];
		const previous = base.find((candidate) => candidate.key === item.key);
		if (!previous) return { ...item };
		const record =
			typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
		const out: DefinitionItem = { ...item };
		if (record.description === undefined) out.description = previous.description;
		if (record.threshold === undefined && previous.threshold !== undefined)
			out.threshold = previous.threshold;
		return out;
	});
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
	const parsed = schema.safeParse(value ?? {});
	if (!parsed.success) throw invalidRequest(issuesToDetails(parsed.error.issues));
	return parsed.data;
}

export function controlRoutes(
	runtime: Runtime,
	faults: FaultInjector,
	defaults: ControlDefaults,
): ControlRoute[] {
	const { store } = runtime;

	const accountOf = (key: string): Account => {
		const account = store.accountForKey(key);
		if (!account) throw invalidRequest([{ field: 'key', message: 'is not a key of this sandbox' }]);
		return account;
	};

	const clockAnswer = (): Result => ({
		status: 200,
		body: { now: store.clock.iso(), rate_window_ms: store.rateWindowMs },
	});

	const usageAnswer = (key: string): Result => {
		const account = accountOf(key);
		const plan = store.plan(account);
		const usage = store.usage(account);
		const rate = store.rate(key, plan);
		return {
			status: 200,
			body: {
				plan: plan.name,
				used: usage.used,
				quota: plan.quota,
				period: usage.period,
				rate: rate
					? { limit: rate.limit, remaining: rate.remaining, reset_ms: rate.resetMs }
					: { limit: null, remaining: null, reset_ms: null },
			},
		};
	};

	const decisionOf = (account: Account, slug: string) => {
		const decision = store.decision(account, slug);
		if (!decision)
			throw new ApiError('decision_not_found', `No decision "${slug}" in this account.`);
		return decision;
	};

	const configAnswer = (): Result => ({
		status: 200,
		body: { drafter: runtime.config.drafter, primary_timeout_ms: runtime.config.primaryTimeoutMs },
	});

	return [
		{
			method: 'POST',
			url: '/reset',
			handler: () => {
				store.reset();
				faults.clear();
				runtime.config.drafter = defaults.drafter;
				runtime.config.primaryTimeoutMs = defaults.primaryTimeoutMs;
				return { status: 200, body: { reset: true, now: store.clock.iso() } };
			},
		},
		{ method: 'GET', url: '/clock', handler: clockAnswer },
		{
			method: 'POST',
			url: '/clock',
			handler: ({ body }) => {
				const request = parse(clockSchema, body);
				if (request.set !== undefined) store.clock.set(Date.parse(request.set));
				if (request.advance_ms !== undefined) store.clock.advance(request.advance_ms);
				if (request.rate_window_ms !== undefined) store.rateWindowMs = request.rate_window_ms;
				store.changed();
				return clockAnswer();
			},
		},
		{
			method: 'GET',
			url: '/usage',
			handler: ({ query }) => usageAnswer(parse(keySchema, query).key),
		},
		{
			method: 'POST',
			url: '/usage',
			handler: ({ body }) => {
				const request = parse(usageSchema, body);
				store.setUsed(accountOf(request.key), request.used);
				return usageAnswer(request.key);
			},
		},
		{
			method: 'POST',
			url: '/decisions/:slug/versions',
			handler: ({ body, params }) => {
				const request = parse(versionSchema, body);
				const account = accountOf(request.key);
				const decision = decisionOf(account, params.slug);
				const base = shownVersion(decision);
				const field = ITEMS_FIELD[decision.type];
				const instructions = request.instructions ?? base.instructions;
				let items = base.items;
				const wrong = (['options', 'levels', 'labels'] as const).filter(
					(other) => other !== field && request[other] !== undefined,
				);
				if (wrong.length) {
					throw invalidRequest(
						wrong.map((other) => ({
							field: other,
							message: `is not used by ${decision.type} decisions (use ${field})`,
						})),
					);
				}
				if (request[field] !== undefined) {
					// The contract's create validation normalises and bounds-checks the items.
					const checked = validateCreateDecisionRequest({
						name: decision.name,
						type: decision.type,
						instructions,
						[field]: request[field],
					});
					if (!checked.ok) throw invalidRequest(checked.details);
					if (checked.value.shape !== 'definition')
						throw new Error('internal: a definition was expected');
					items = inheritDescriptions(request[field], checked.value.items, base.items);
				}
				const context = request.context
					? {
							description: request.context.description ?? base.context.description,
							fields: request.context.fields
								? normaliseFields(request.context.fields)
								: base.context.fields,
							...(request.context.example !== undefined
								? { example: request.context.example }
								: base.context.example !== undefined
									? { example: base.context.example }
									: {}),
						}
					: structuredClone(base.context);
				const version: Omit<StoredVersion, 'version' | 'created_at'> = {
					instructions,
					context,
					items: items.map((item) => ({ ...item })),
					confidence_threshold: request.confidence_threshold ?? base.confidence_threshold,
					uncertainty_policy: request.uncertainty_policy ?? base.uncertainty_policy,
				};
				const stored = store.addVersion(decision, version, request.publish !== false);
				return {
					status: 200,
					body: { ...decisionView(decision), created_version: stored.version },
				};
			},
		},
		{
			method: 'POST',
			url: '/decisions/:slug/live',
			handler: ({ body, params }) => {
				const request = parse(liveSchema, body);
				const decision = decisionOf(accountOf(request.key), params.slug);
				if (!decision.versions.some((version) => version.version === request.version)) {
					throw new ApiError(
						'version_not_found',
						`The decision "${decision.slug}" has no version ${request.version}.`,
					);
				}
				store.setLive(decision, request.version);
				return { status: 200, body: decisionView(decision) };
			},
		},
		{
			method: 'GET',
			url: '/runs/:run_id',
			handler: ({ query, params }) => {
				const account = accountOf(parse(keySchema, query).key);
				const run = store.run(account, params.run_id);
				if (!run) throw new ApiError('run_not_found', `No run "${params.run_id}" in this account.`);
				return { status: 200, body: run };
			},
		},
		{ method: 'GET', url: '/faults', handler: () => ({ status: 200, body: faults.describe() }) },
		{
			method: 'POST',
			url: '/faults',
			handler: ({ body }) => {
				const request = parse(faultsRequestSchema, body);
				faults.set(request.rules, request.seed);
				return { status: 200, body: faults.describe() };
			},
		},
		{
			method: 'DELETE',
			url: '/faults',
			handler: () => {
				faults.clear();
				return { status: 200, body: faults.describe() };
			},
		},
		{ method: 'GET', url: '/config', handler: configAnswer },
		{
			method: 'POST',
			url: '/config',
			handler: ({ body }) => {
				const request = parse(configSchema, body);
				if (request.drafter !== undefined) runtime.config.drafter = request.drafter;
				if (request.primary_timeout_ms !== undefined)
					runtime.config.primaryTimeoutMs = request.primary_timeout_ms;
				return configAnswer();
			},
		},
	];
}
