export * from './client';
export * from './errors';
export { errorFromResponse } from './error-from-response';
export * from './transport';
export { forEachBounded } from './pool';
export { RateGate, rateGateFor, type RateWindowInfo } from './rate-gate';
export { ConcurrencyLimiter } from './limiter';
export { DEFAULT_MAX_CONCURRENCY, MAX_IN_FLIGHT } from './concurrency';
export { checkBaseUrl } from './base-url';
export {
	DECISION_REUSE_MS,
	RecentDecisions,
	recentDecisions,
	type RecentDecision,
} from './recent-decisions';
