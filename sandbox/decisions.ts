import {
	ITEMS_FIELD,
	type ContextField,
	type ContextFieldInput,
	type CreateDecisionResponse,
	type Decision,
	type DecisionContext,
	type DecisionSummary,
	type DecisionType,
	type UncertaintyPolicy,
} from '../src/contract';
import type { DefinitionItem, ValidatedCreateRequest } from '../src/contract/validation';

/** Confidence threshold of a decision created without one (our choice; the API is silent). */
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.6;

export type DefinitionBody = Extract<ValidatedCreateRequest, { shape: 'definition' }>['body'];

/** One numbered version of a decision: everything that changes what the endpoint answers. */
export interface StoredVersion {
	version: number;
	created_at: string;
	instructions: string;
	context: DecisionContext;
	items: DefinitionItem[];
	confidence_threshold: number;
	uncertainty_policy: UncertaintyPolicy;
}

export interface StoredDecision {
	slug: string;
	name: string;
	description: string;
	type: DecisionType;
	/** The version served by the endpoint; null while the decision is a draft. */
	live_version: number | null;
	created_at: string;
	updated_at: string;
	/** Every version ever made, oldest first; kept for rollback. */
	versions: StoredVersion[];
	publish_error?: 'plan_limit';
}

/** Declared context fields with the API's defaults filled in (type string, required and pii false). */
export function normaliseFields(fields: readonly ContextFieldInput[] | undefined): ContextField[] {
	return (fields ?? []).map((field) => {
		const out: ContextField = {
			name: field.name,
			type: field.type ?? 'string',
			required: field.required ?? false,
			pii: field.pii ?? false,
		};
		if (field.description !== undefined) out.description = field.description;
		return out;
	});
}

export function versionFromDefinition(
	body: DefinitionBody,
	items: DefinitionItem[],
	version: number,
	now: string,
): StoredVersion {
	const context: DecisionContext = {
		description: body.context?.description ?? '',
		fields: normaliseFields(body.context?.fields),
	};
	if (body.context?.example !== undefined) context.example = body.context.example;
	return {
		version,
		created_at: now,
		instructions: body.instructions,
		context,
		items: items.map((item) => ({ ...item })),
		confidence_threshold: body.confidence_threshold ?? DEFAULT_CONFIDENCE_THRESHOLD,
		uncertainty_policy: body.uncertainty_policy ?? 'uncertain_branch',
	};
}

/** The version GET /decisions/{slug} shows: the live one, or the latest while the decision is a draft. */
export function shownVersion(decision: StoredDecision): StoredVersion {
	const live =
		decision.live_version === null
			? undefined
			: decision.versions.find((v) => v.version === decision.live_version);
	return live ?? decision.versions[decision.versions.length - 1];
}

function itemKeys(
	type: DecisionType,
	version: StoredVersion,
): Partial<Record<'options' | 'levels' | 'labels', string[]>> {
	return { [ITEMS_FIELD[type]]: version.items.map((item) => item.key) };
}

/** The Decision resource (decisionSchema). */
export function decisionView(decision: StoredDecision): Decision {
	const version = shownVersion(decision);
	return {
		...summaryView(decision),
		confidence_threshold: version.confidence_threshold,
		uncertainty_policy: version.uncertainty_policy,
		context: structuredClone(version.context),
		instructions: version.instructions,
		...itemKeys(decision.type, version),
	};
}

export function summaryView(decision: StoredDecision): DecisionSummary {
	return {
		slug: decision.slug,
		name: decision.name,
		description: decision.description,
		type: decision.type,
		live_version: decision.live_version,
		updated_at: decision.updated_at,
	};
}

export function upgradeUrl(origin: string): string {
	return `${origin}/app/settings/billing`;
}

export function planLimitMessage(maxLive: number): string {
	return (
		`Saved as a draft: your plan allows ${maxLive} live decisions at once and ${maxLive} are live. ` +
		'Unpublish another decision or upgrade your plan, then publish this one.'
	);
}

/** The body of a POST /decisions answer (createDecisionResponseSchema). */
export function createResponse(
	decision: StoredDecision,
	created: boolean,
	origin: string,
	maxLive: number | null,
): CreateDecisionResponse {
	const response: CreateDecisionResponse = {
		slug: decision.slug,
		name: decision.name,
		type: decision.type,
		description: decision.description,
		created,
		status: decision.live_version === null ? 'draft' : 'live',
		live_version: decision.live_version,
		url: `${origin}/app/decisions/${decision.slug}`,
		...itemKeys(decision.type, shownVersion(decision)),
	};
	if (decision.live_version === null) {
		if (decision.publish_error === 'plan_limit') {
			response.publish_error = 'plan_limit';
			response.message = planLimitMessage(maxLive ?? 0);
			response.upgrade_url = upgradeUrl(origin);
		} else {
			response.message =
				'Saved as a draft (publish was false): publish it in the app to serve it at its endpoint.';
		}
	}
	return response;
}
