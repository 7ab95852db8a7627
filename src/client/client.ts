import {
	BOUNDS,
	SLUG_PATTERN,
	createDecisionResponseSchema,
	decisionListSchema,
	decisionSchema,
	feedbackRecordSchema,
	runAnswerSchema,
	templateListSchema,
	type CreateDecisionRequest,
	type CreateDecisionResponse,
	type DecideRequestOptions,
	type Decision,
	type DecisionSummary,
	type FeedbackRecord,
	type Locale,
	type RunAnswer,
	type TemplateList,
} from '../contract';
import { validateCreateDecisionRequest } from '../contract/validation';
import { recentDecisions, type RecentDecision } from './recent-decisions';
import { Requester, type DecisionClientOptions } from './requester';

export type { DecisionClientOptions } from './requester';

export interface DecideCallOptions extends DecideRequestOptions {
	signal?: AbortSignal;
}

/**
 * Typed client of the Decision Service API: one method per operation. How each request is sent,
 * limited and retried is the Requester's business (requester.ts); how bytes move, the transport's.
 */
export class DecisionClient {
	private readonly requester: Requester;

	constructor(options: DecisionClientOptions) {
		this.requester = new Requester(options);
	}

	/**
	 * Most requests in flight at once (Max Concurrency). A caller deciding many items starts the
	 * next one while fewer run; the key's rate gate holds what the plan's window cannot take yet.
	 */
	get maxConcurrency(): number {
		return this.requester.maxConcurrency;
	}

	/** POST /decide/{slug}. Metered: never sent twice unless the first provably did not arrive. */
	async decide(
		slug: string,
		input: string | Record<string, unknown>,
		options: DecideCallOptions = {},
	): Promise<RunAnswer> {
		const { signal, ...decideOptions } = options;
		const body: Record<string, unknown> = { input };
		if (decideOptions.version !== undefined || decideOptions.engine !== undefined) {
			body.options = decideOptions;
		}
		const path = `/decide/${this.slugPath(slug)}`;
		const label = `decide on "${slug}"`;
		return this.requester.send(
			{
				method: 'POST',
				path,
				body,
				retry: 'metered',
				rateLimited: true,
				schema: runAnswerSchema,
				label,
			},
			signal,
		);
	}

	/**
	 * POST /decisions in any of its three shapes. Checked locally first (a 400 costs a round trip).
	 * Retried after a dropped connection only when a name or slug makes it idempotent.
	 */
	async createDecision(
		request: CreateDecisionRequest,
		signal?: AbortSignal,
	): Promise<CreateDecisionResponse> {
		const label = 'create decision';
		const validation = validateCreateDecisionRequest(request);
		if (!validation.ok) throw this.requester.refusedLocally(label, validation.details);
		const idempotent =
			request.slug !== undefined || request.name !== undefined || 'template' in request;
		return this.requester.send(
			{
				method: 'POST',
				path: '/decisions',
				body: request,
				retry: idempotent ? 'safe' : 'once',
				rateLimited: true,
				schema: createDecisionResponseSchema,
				label,
			},
			signal,
		);
	}

	async getDecision(slug: string, signal?: AbortSignal): Promise<Decision> {
		const path = `/decisions/${this.slugPath(slug)}`;
		const label = `get decision "${slug}"`;
		return this.requester.send(
			{ method: 'GET', path, retry: 'safe', rateLimited: false, schema: decisionSchema, label },
			signal,
		);
	}

	/**
	 * The decision to check inputs against: fetched by this process for the same key less than a
	 * minute ago (even by another execution), or now; `fresh` always fetches (recent-decisions.ts).
	 */
	recentDecision(slug: string, fresh = false): RecentDecision {
		return recentDecisions.get(
			`${this.requester.identity}|${slug}`,
			() => this.getDecision(slug),
			this.requester.now(),
			fresh,
		);
	}

	async listDecisions(signal?: AbortSignal): Promise<DecisionSummary[]> {
		const list = await this.requester.send(
			{
				method: 'GET',
				path: '/decisions',
				retry: 'safe',
				rateLimited: false,
				schema: decisionListSchema,
				label: 'list decisions',
			},
			signal,
		);
		return list.decisions;
	}

	async listTemplates(locale?: Locale, signal?: AbortSignal): Promise<TemplateList> {
		const path = `/templates${locale ? `?locale=${encodeURIComponent(locale)}` : ''}`;
		return this.requester.send(
			{
				method: 'GET',
				path,
				retry: 'safe',
				rateLimited: false,
				schema: templateListSchema,
				label: 'list templates',
			},
			signal,
		);
	}

	async sendFeedback(
		runId: string,
		feedback: { feedback: string; note?: string },
		signal?: AbortSignal,
	): Promise<FeedbackRecord> {
		const label = `send feedback on run "${runId}"`;
		if (!runId.trim()) {
			throw this.requester.refusedLocally('send feedback', [
				{ field: 'run_id', message: 'is required' },
			]);
		}
		if (!feedback.feedback?.trim()) {
			const problem = { field: 'feedback', message: 'must be a non-empty string' };
			throw this.requester.refusedLocally('send feedback', [problem]);
		}
		return this.requester.send(
			{
				method: 'POST',
				path: `/runs/${encodeURIComponent(runId)}/feedback`,
				body: feedback,
				retry: 'once',
				rateLimited: false,
				schema: feedbackRecordSchema,
				label,
			},
			signal,
		);
	}

	private slugPath(slug: string): string {
		if (!SLUG_PATTERN.test(slug) || slug.length > BOUNDS.slugMax) {
			const message = `"${slug}" is not a valid slug (lower-case letters and digits separated by single hyphens, at most ${BOUNDS.slugMax})`;
			throw this.requester.refusedLocally('call', [{ field: 'slug', message }]);
		}
		return slug;
	}
}
