/**
 * Plans of the "Limits" table of docs/api.md, plus the sandbox-only `unlimited` plan for benchmarks
 * (no rate limit, no quota; its responses carry no X-RateLimit-* headers).
 */
export const PLAN_NAMES = ['free', 'starter', 'pro', 'scale', 'unlimited'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export type PiiMode = 'standard' | 'strict';

export interface Plan {
	name: PlanName;
	/** Decide calls per UTC calendar month; null = no quota. */
	quota: number | null;
	/** Successful requests per rate window (a minute unless the control surface scales it); null = no limit. */
	rateLimit: number | null;
	retentionDays: number;
	/** Decisions live at once; null = unlimited. */
	maxLiveDecisions: number | null;
	/** `uncertainty_policy: human_review` sends runs to review (status `pending`); otherwise it acts as `uncertain_branch`. */
	humanReview: boolean;
	/** Whether strict PII mode may be switched on for the account. */
	strictPiiAvailable: boolean;
}

export const PLANS: Record<PlanName, Plan> = {
	free: {
		name: 'free',
		quota: 100,
		rateLimit: 30,
		retentionDays: 7,
		maxLiveDecisions: 3,
		humanReview: false,
		strictPiiAvailable: false,
	},
	starter: {
		name: 'starter',
		quota: 5000,
		rateLimit: 60,
		retentionDays: 30,
		maxLiveDecisions: null,
		humanReview: true,
		strictPiiAvailable: false,
	},
	pro: {
		name: 'pro',
		quota: 50_000,
		rateLimit: 120,
		retentionDays: 30,
		maxLiveDecisions: null,
		humanReview: true,
		strictPiiAvailable: true,
	},
	scale: {
		name: 'scale',
		quota: 500_000,
		rateLimit: 600,
		retentionDays: 30,
		maxLiveDecisions: null,
		humanReview: true,
		strictPiiAvailable: true,
	},
	unlimited: {
		name: 'unlimited',
		quota: null,
		rateLimit: null,
		retentionDays: 30,
		maxLiveDecisions: null,
		humanReview: true,
		strictPiiAvailable: true,
	},
};

export const DAY_MS = 24 * 60 * 60 * 1000;
