/**
 * Max Concurrency: how many decides one execution may have in flight at once. It is a ceiling,
 * not a pace: the key's rate gate (rate-gate.ts) lets through what the plan's window has left and
 * holds the rest until the reset, so the default lets a run that fits the window go at once.
 */

/**
 * The default: the largest plan's window budget (Scale and Enterprise, 600 a minute), so a run
 * the window can take goes at once, as the HTTP Request node would send it, without its 429s.
 */
export const DEFAULT_MAX_CONCURRENCY = 600;
/** The most the option allows. */
export const MAX_IN_FLIGHT = 1_000;
