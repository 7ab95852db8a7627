export * from './client';
export * from './errors';
export { errorFromResponse } from './error-from-response';
export * from './transport';
export { RateGate, rateGateFor } from './rate-gate';
export { BoundedCache, type BoundedCacheOptions } from './bounded-cache';
export type { RateWindowInfo } from './rate-headers';
export {
	ConcurrencyLimiter,
	DEFAULT_MAX_CONCURRENCY,
	MAX_IN_FLIGHT,
	forEachBounded,
} from './concurrency';
export { checkBaseUrl } from './base-url';
export {
	DECISION_REUSE_MS,
	RecentDecisions,
	recentDecisions,
	type RecentDecision,
} from './recent-decisions';
