import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { z } from 'zod/v4';
import {
	decideRequestSchema,
	feedbackRequestSchema,
	localeSchema,
	slugSchema,
	UNCERTAIN_CHOICE,
	type CreateDecisionResponse,
	type Decision,
	type DecisionList,
	type FeedbackRecord,
	type Locale,
	type Run,
	type Template,
	type TemplateList,
} from '../src/contract';
import {
	issuesToDetails,
	normalizeKey,
	validateCreateDecisionRequest,
	validateDecideInput,
	type ValidatedCreateRequest,
} from '../src/contract/validation';
import { sleep } from './clock';
import {
	createResponse,
	decisionView,
	summaryView,
	upgradeUrl,
	versionFromDefinition,
	type DefinitionBody,
	type StoredDecision,
} from './decisions';
import { draftDefinition } from './drafter';
import { flattenText, modelOf, runEngine } from './engine';
import { ApiError, invalidRequest, type Result } from './errors';
import { pseudonymise } from './pii';
import { TEMPLATES, type TemplateDefinition } from './seed';
import type { Account, SandboxStore } from './store';

/** What the /v1 handlers share: the store, the sandbox's settings, and its public origin. */
export interface Runtime {
	store: SandboxStore;
	origin: string;
	config: {
		drafter: boolean;
		/** How long the primary engine hangs before the fallback answers, under a `primary_timeout` fault. */
		primaryTimeoutMs: number;
	};
}

/** Per-request facts the handlers need from the HTTP layer. */
export interface CallContext {
	account: Account;
	/** Set by a `primary_timeout` fault. */
	primaryTimeout: boolean;
	/** A latency fault's wait in the engine (`latency_at: 'engine'`), once the quota is reserved; 0 for none. */
	engineLatencyMs?: number;
	/** Called when a decide passes the quota check: the unit is charged unless the answer is an error. */
	onQuotaReserved(period: string): void;
}

function checkSlug(slug: string): void {
	const parsed = slugSchema.safeParse(slug);
	if (!parsed.success) throw invalidRequest(issuesToDetails(parsed.error.issues, 'slug'));
}

function findDecision(runtime: Runtime, account: Account, slug: string): StoredDecision {
	const decision = runtime.store.decision(account, slug);
	if (!decision) throw new ApiError('decision_not_found', `No decision "${slug}" in this account.`);
	return decision;
}

// -- POST /decide/{slug} ----------------------------------------------------------------------

export async function decide(
	runtime: Runtime,
	call: CallContext,
	slug: string,
	body: unknown,
): Promise<Result> {
	const started = performance.now();
	const { store } = runtime;
	const { account } = call;
	checkSlug(slug);
	const parsed = decideRequestSchema.safeParse(body);
	if (!parsed.success) throw invalidRequest(issuesToDetails(parsed.error.issues));
	const request = parsed.data;
	const decision = findDecision(runtime, account, slug);
	if (decision.live_version === null) {
		throw new ApiError(
			'decision_not_live',
			`The decision "${slug}" is a draft: publish a version before calling its endpoint.`,
		);
	}
	const versionNumber = request.options?.version ?? decision.live_version;
	const version = decision.versions.find((candidate) => candidate.version === versionNumber);
	if (!version) {
		throw new ApiError(
			'version_not_found',
			`The decision "${slug}" has no version ${versionNumber}.`,
			{
				versions: decision.versions.map((candidate) => candidate.version),
			},
		);
	}
	if (typeof request.input !== 'string') {
		const details = validateDecideInput(version.context.fields, request.input);
		if (details.length)
			throw invalidRequest(details, 'The input does not match the declared context fields.');
	}

	const plan = store.plan(account);
	const quota = store.reserveQuota(account);
	if (!quota.ok) {
		const retryAfter = store.quotaRetryAfter();
		throw new ApiError(
			'quota_exceeded',
			`Monthly quota reached (${quota.used} of ${quota.quota} decisions). It resets on the first day of next month (UTC); upgrading resumes service immediately.`,
			{
				used: quota.used,
				quota: quota.quota,
				retry_after: retryAfter,
				upgrade_url: upgradeUrl(runtime.origin),
			},
			{ 'retry-after': String(retryAfter) },
		);
	}
	call.onQuotaReserved(quota.period);
	if (call.engineLatencyMs) await sleep(call.engineLatencyMs);

	const pseudonymised = pseudonymise(request.input, version.context.fields, account.pii_mode);
	let engine: 'jev' | 'llm_fallback' = 'jev';
	let fallbackReason: string | undefined;
	if (request.options?.engine === 'llm') {
		engine = 'llm_fallback';
		fallbackReason = 'forced_by_request';
	} else if (call.primaryTimeout) {
		await sleep(runtime.config.primaryTimeoutMs);
		if (request.options?.engine === 'jev') {
			throw new ApiError(
				'gateway_timeout',
				'The primary engine timed out and the call forced it (options.engine "jev"), so no fallback answered.',
			);
		}
		engine = 'llm_fallback';
		fallbackReason = 'primary_timeout';
	}
	const text = flattenText(pseudonymised.value);
	const result = runEngine(
		{ type: decision.type, instructions: version.instructions, items: version.items },
		text,
		engine,
	);

	const runId = `run_${randomUUID().replace(/-/g, '')}`;
	let status: Run['status'] = 'ok';
	let reviewUrl: string | undefined;
	if (result.confidence < version.confidence_threshold) {
		// human_review needs Starter or above; on Free it behaves as uncertain_branch.
		if (version.uncertainty_policy === 'human_review' && plan.humanReview) {
			status = 'pending';
			reviewUrl = `${runtime.origin}/app/reviews/${runId}`;
		} else {
			status = 'uncertain';
		}
	}
	const run: Run = {
		run_id: runId,
		decision: decision.slug,
		version: version.version,
		status,
		...(decision.type === 'route'
			? { choice: status === 'uncertain' ? UNCERTAIN_CHOICE : result.choice }
			: {}),
		...(decision.type === 'score'
			? { score: result.score, raw_score: result.raw_score, legend: result.legend }
			: {}),
		...(decision.type === 'classify' ? { labels: result.labels } : {}),
		probabilities: result.probabilities,
		confidence: result.confidence,
		confidence_source: engine === 'jev' ? 'calibrated' : 'self_reported',
		engine,
		model: modelOf(engine),
		latency_ms: Math.max(0, Math.round(performance.now() - started)),
		pii_redacted: pseudonymised.count,
	};
	if (fallbackReason) run.fallback_reason = fallbackReason;
	if (reviewUrl) run.review_url = reviewUrl;

	store.addRun(account, {
		run_id: runId,
		decision: decision.slug,
		version: version.version,
		created_at: store.clock.iso(),
		input: pseudonymised.value,
		pii_redacted: pseudonymised.count,
		pii_kinds: pseudonymised.kinds,
		explanation: result.explanation,
		response: run,
	});
	return { status: 200, body: run };
}

// -- POST /runs/{run_id}/feedback -------------------------------------------------------------

export function feedback(runtime: Runtime, account: Account, runId: string, body: unknown): Result {
	const parsed = feedbackRequestSchema.safeParse(body);
	if (!parsed.success) throw invalidRequest(issuesToDetails(parsed.error.issues));
	const run = runtime.store.run(account, runId);
	if (!run) {
		throw new ApiError(
			'run_not_found',
			`No run "${runId}" in this account (unknown, or purged after the plan's retention).`,
		);
	}
	runtime.store.setFeedback(run, parsed.data.feedback, parsed.data.note);
	const record: FeedbackRecord = { run_id: run.run_id, feedback: parsed.data.feedback };
	if (parsed.data.note !== undefined) record.note = parsed.data.note;
	return { status: 200, body: record };
}

// -- GET /templates ---------------------------------------------------------------------------

export function templateView(template: TemplateDefinition, locale: Locale): Template {
	const text = template.text[locale];
	const field =
		template.type === 'route' ? 'options' : template.type === 'score' ? 'levels' : 'labels';
	return {
		key: template.key,
		type: template.type,
		name: text.name,
		description: text.description,
		use_case: text.use_case,
		featured: template.featured,
		[field]: text.items.map((item) => item.key),
	};
}

const templatesQuerySchema = z.object({ locale: z.optional(localeSchema) });

export function templates(query: unknown): Result {
	const parsed = templatesQuerySchema.safeParse(query ?? {});
	if (!parsed.success) throw invalidRequest(issuesToDetails(parsed.error.issues));
	const locale = parsed.data.locale ?? 'en';
	const body: TemplateList = {
		locale,
		templates: TEMPLATES.map((template) => templateView(template, locale)),
	};
	return { status: 200, body };
}

// -- GET /decisions, GET /decisions/{slug} ----------------------------------------------------

export function listDecisions(runtime: Runtime, account: Account): Result {
	const body: DecisionList = { decisions: runtime.store.decisions(account).map(summaryView) };
	return { status: 200, body };
}

export function getDecision(runtime: Runtime, account: Account, slug: string): Result {
	checkSlug(slug);
	const body: Decision = decisionView(findDecision(runtime, account, slug));
	return { status: 200, body };
}

// -- POST /decisions --------------------------------------------------------------------------

/** Turns a template into the definition it stands for, in the requested locale. */
function definitionFromTemplate(
	template: TemplateDefinition,
	locale: Locale,
	name: string | undefined,
): DefinitionBody {
	const text = template.text[locale];
	const itemsField =
		template.type === 'route' ? 'options' : template.type === 'score' ? 'levels' : 'labels';
	const items =
		template.type === 'score'
			? text.items.map((item) => ({ label: item.key, description: item.description }))
			: text.items.map((item) => ({ ...item }));
	const body = {
		name: name ?? text.name,
		description: text.description,
		type: template.type,
		instructions: text.instructions,
		context: { description: text.context_description, fields: template.fields },
		[itemsField]: items,
		...(template.confidence_threshold === undefined
			? {}
			: { confidence_threshold: template.confidence_threshold }),
	};
	return body as DefinitionBody;
}

/** Runs a drafted or template definition through the contract's validation, as a client's would be. */
function validated(definition: unknown): Extract<ValidatedCreateRequest, { shape: 'definition' }> {
	const result = validateCreateDecisionRequest(definition);
	if (!result.ok)
		throw new ApiError('generation_failed', 'The drafted definition is not valid.', result.details);
	if (result.value.shape !== 'definition') throw new Error('internal: a definition was expected');
	return result.value;
}

export function createDecision(runtime: Runtime, account: Account, body: unknown): Result {
	const { store } = runtime;
	const checked = validateCreateDecisionRequest(body);
	if (!checked.ok) throw invalidRequest(checked.details);
	const request = checked.value;

	let definition: Extract<ValidatedCreateRequest, { shape: 'definition' }>;
	if (request.shape === 'template') {
		const template = TEMPLATES.find((candidate) => candidate.key === request.body.template);
		if (!template) {
			throw new ApiError(
				'template_not_found',
				`No template "${request.body.template}" (see GET /templates).`,
			);
		}
		definition = validated(
			definitionFromTemplate(template, request.body.locale ?? 'en', request.body.name),
		);
	} else if (request.shape === 'description') {
		if (!runtime.config.drafter) {
			throw new ApiError(
				'generation_unavailable',
				'Decision generation is not configured on this environment: create the decision from a template or a definition.',
			);
		}
		const draft = draftDefinition({
			describe: request.body.describe,
			name: request.body.name,
			type: request.body.type,
		});
		if (!draft.ok) throw new ApiError('generation_failed', draft.message);
		definition = validated(draft.definition);
	} else {
		definition = request;
	}

	const common = request.body;
	const slug = common.slug ?? normalizeKey(definition.body.name);
	if (!slug) {
		throw invalidRequest([
			{ field: 'name', message: 'gives an empty slug: use letters or digits, or send a slug' },
		]);
	}
	const existing = store.decision(account, slug);
	const plan = store.plan(account);
	if (existing)
		return {
			status: 200,
			body: createResponse(existing, false, runtime.origin, plan.maxLiveDecisions),
		};

	const now = store.clock.iso();
	const decision: StoredDecision = {
		slug,
		name: definition.body.name,
		description: common.description ?? definition.body.description ?? '',
		type: definition.body.type,
		live_version: null,
		created_at: now,
		updated_at: now,
		versions: [versionFromDefinition(definition.body, definition.items, 1, now)],
	};
	if (common.publish !== false) {
		if (plan.maxLiveDecisions !== null && store.liveCount(account) >= plan.maxLiveDecisions) {
			decision.publish_error = 'plan_limit';
		} else {
			decision.live_version = 1;
		}
	}
	store.insertDecision(account, decision);
	const response: CreateDecisionResponse = createResponse(
		decision,
		true,
		runtime.origin,
		plan.maxLiveDecisions,
	);
	return { status: 201, body: response };
}
