import { ownValue } from './own';

/**
 * The level a score run lands on: `legend[round(raw_score)]`, since `raw_score` is the position on
 * the 0..N-1 level scale and `legend` maps level indexes, lowest first, to their labels (docs/api.md,
 * Run). Undefined when the run carries no raw score or legend, or when the rounded score has no entry.
 */
export function levelOf(run: {
	raw_score?: number;
	legend?: Record<string, string>;
}): string | undefined {
	if (run.raw_score === undefined || !run.legend || !Number.isFinite(run.raw_score)) {
		return undefined;
	}
	const level = ownValue(run.legend, String(Math.round(run.raw_score)));
	return typeof level === 'string' ? level : undefined;
}
