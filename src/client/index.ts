export * from './client';
export * from './errors';
export * from './transport';
export { RateGate, rateGateFor, type RateWindowInfo } from './rate-gate';
export { ConcurrencyLimiter } from './limiter';
