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
import type { IncomingHttpHeaders } from 'node:http';
import type { Runtime } from './api';
import { decisionView, normaliseFields, shownVersion, type StoredVersion } from './decisions';
import { ApiError, invalidRequest, type Result } from './errors';
import { faultsRequestSchema, type FaultInjector } from './faults';
import { DAY_MS } from './plans';
import type { Account } from './store';

/**
 * The control surface (outside /v1, no auth): what tests and demos use to drive the sandbox.
 * Registered only when control is on (default: only on a loopback host).
 *
 *   POST /_control/reset                        back to the seed state
 *   GET|POST /_control/clock                    { advance_ms?, set?, rate_window_ms? } → { now, rate_window_ms }
 *                                                 (bounded: see clockSchema)
 *   GET /_control/usage?key=…                   { plan, used, quota, period, rate: { limit, remaining, reset_ms } }
 *   POST /_control/usage                        { key, used } sets this month's usage
 *   POST /_control/decisions/:slug/versions     { key, options|levels|labels?, instructions?, context?,
 *                                                 confidence_threshold?, uncertainty_policy?, publish? } → Decision
 *                                                 (+ created_version); items without a description keep
 *                                                 the live version's description for the same key
 *   POST /_control/decisions/:slug/live         { key, version } → Decision (rollback or publish)
 *   GET /_control/runs/:run_id?key=…            the stored run (pseudonymised input, the answer sent,
 *                                                 feedback and every feedback received)
 *   GET|POST|DELETE /_control/faults            fault rules (see faults.ts)
 *   GET|POST /_control/config                   { drafter?, primary_timeout_ms? }
 *
 * Every control request must be addressed to a loopback name and, when it has a body, carry
 * `application/json` (see controlGuard).
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

/** One `advance_ms` moves the virtual clock by at most this much. */
export const MAX_CLOCK_STEP_MS = 400 * DAY_MS;
/** The virtual clock never runs further ahead of real time than this (about ten years). */
export const MAX_CLOCK_OFFSET_MS = 3653 * DAY_MS;
/** A rate window lasts at most an hour (the API's is a minute; tests shrink it). */
export const MAX_RATE_WINDOW_MS = 3_600_000;

/**
 * Clock moves are bounded so that a typo or a hostile value cannot push the sandbox into a state
 * no test can read (dates past year 9999, a clock behind its own runs): `advance_ms` is 0..400
 * days, never negative (POST /_control/reset goes back to real time); `set` is an instant between
 * real time and ten years ahead; the sum of moves stays within ten years of real time.
 */
const clockSchema = z.object({
	advance_ms: z
		.number()
		.finite()
		.min(0, {
			message:
				'must not be negative: the virtual clock only moves forward (POST /_control/reset goes back to real time)',
		})
		.max(MAX_CLOCK_STEP_MS, {
			message: `must be at most ${MAX_CLOCK_STEP_MS} ms (400 days) per move`,
		})
		.optional(),
	set: z
		.string()
		.refine((value) => !Number.isNaN(Date.parse(value)), {
			message: 'must be an ISO 8601 date-time',
		})
		.optional(),
	rate_window_ms: z
		.number()
		.int()
		.min(1)
		.max(MAX_RATE_WINDOW_MS, { message: `must be at most ${MAX_RATE_WINDOW_MS} ms (one hour)` })
		.optional(),
});

/** Refuses a `set` or an advance that would leave [real time, real time + MAX_CLOCK_OFFSET_MS]. */
function checkClockMove(
	request: z.output<typeof clockSchema>,
	clock: { now(): number },
	realNow: number,
): void {
	// One second of slack: a caller that reads "now" and sets it back is not moving the clock.
	const slackMs = 1_000;
	let target = clock.now();
	if (request.set !== undefined) {
		target = Date.parse(request.set);
		if (target < realNow - slackMs)
			throw invalidRequest([
				{
					field: 'set',
					message:
						'must not be in the past: the virtual clock never runs behind real time (POST /_control/reset goes back to it)',
				},
			]);
	}
	if (request.advance_ms !== undefined) target += request.advance_ms;
	if (target - realNow > MAX_CLOCK_OFFSET_MS) {
		throw invalidRequest([
			{
				field: request.advance_ms !== undefined ? 'advance_ms' : 'set',
				message: `would move the virtual clock more than ${MAX_CLOCK_OFFSET_MS / DAY_MS} days (about ten years) ahead of real time`,
			},
		]);
	}
}

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
				checkClockMove(request, store.clock, Date.now());
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

/** The host names the control surface answers to (any port). */
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The host name of a `Host` header (`name[:port]`, IPv6 in brackets), lower case; undefined when malformed. */
export function hostNameOf(host: string): string | undefined {
	const match = /^(\[[0-9a-f:.]+\]|[^[\]:/\s@]+)(?::(\d{1,5}))?$/i.exec(host.trim());
	return match ? match[1].toLowerCase() : undefined;
}

function isLoopbackName(name: string | undefined): boolean {
	return name !== undefined && LOOPBACK_NAMES.has(name);
}

function mediaTypeOf(contentType: string): string {
	return contentType.split(';')[0].trim().toLowerCase();
}

/**
 * Why a control request is refused, or undefined when it may go on. The control surface has no
 * authentication and can wipe or rewrite the sandbox, so it only answers what a local test or
 * script sends:
 * - `Host` must name a loopback address (127.0.0.1, localhost or [::1], any port): a web page
 *   that rebinds its own domain to 127.0.0.1 still sends its own name as Host.
 * - `Origin`, when sent (browsers send it on cross-site requests), must be a loopback origin.
 * - A body must be `application/json`: an HTML form or a `fetch` without preflight from a page
 *   can only send text/plain, form or multipart bodies.
 */
export function controlGuard(headers: IncomingHttpHeaders): ApiError | undefined {
	const host = headers.host;
	if (!isLoopbackName(host === undefined ? undefined : hostNameOf(host))) {
		return new ApiError(
			'forbidden',
			'The control surface only answers requests addressed to a loopback host (127.0.0.1, localhost or [::1]).',
			undefined,
			{},
			403,
		);
	}
	const origin = headers.origin;
	if (origin !== undefined) {
		let name: string | undefined;
		try {
			const url = new URL(origin);
			if (url.protocol === 'http:' || url.protocol === 'https:') name = url.hostname;
		} catch {
			name = undefined;
		}
		if (!isLoopbackName(name?.toLowerCase())) {
			return new ApiError(
				'forbidden',
				'The control surface refuses requests from a page that is not served from a loopback origin.',
				undefined,
				{},
				403,
			);
		}
	}
	const contentType = headers['content-type'];
	const length = Number(headers['content-length'] ?? 0);
	const hasBody = headers['transfer-encoding'] !== undefined || length > 0;
	if (
		(contentType !== undefined && mediaTypeOf(contentType) !== 'application/json') ||
		(contentType === undefined && hasBody)
	) {
		return new ApiError(
			'unsupported_media_type',
			'The control surface only accepts JSON bodies: send "Content-Type: application/json".',
			undefined,
			{},
			415,
		);
	}
	return undefined;
}
