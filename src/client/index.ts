export * from './client';
export * from './errors';
export { errorFromResponse } from './error-from-response';
export * from './transport';
export { forEachBounded } from './pool';
export { RateGate, rateGateFor, type RateWindowInfo } from './rate-gate';
export { ConcurrencyLimiter } from './limiter';
export { checkBaseUrl } from './base-url';
