/**
 * The rows the watch's recent test compares, like with like: each reviewed row in its kind and on
 * its side of the Recent Window (docs/quality-watch.md, "Recent rows").
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { ownValue } from '../../../../../src/contract';
import {
	LOADED,
	rightOf,
	STRATA,
	stratumOf,
	type Metrics,
	type RecentStratum,
} from '../../../../../src/evaluate';
import { reviewedAtOf } from './inputs';

/**
 * A reviewed row the live version judges as another kind than when it was reviewed: a doubtful
 * row it answers, an audited answer it doubts. Its own kind, since a row was reviewed *because*
 * of the version then live: a new version that answers some doubtful rows is judged on them by
 * its answer, not its guess, and would read as a gain among doubtful rows (an audited row it
 * doubts, as a drop) with nothing changed.
 */
const MOVED = { doubtful: 'doubtful (answered now)', audited: 'audited (doubtful now)' } as const;

/**
 * The recent test's rows, like with like: per stratum (doubtful, audited, loaded, and the rows
 * the live version judges as another kind: MOVED), the rows reviewed since `since` (their
 * `reviewed_at`) and the rows before (or with no `reviewed_at`), each right by its answer or (a
 * doubtful run) its guess. A row nobody reviewed (`status` `not_reviewed`) holds no answer of a
 * person: not in the test. Strata in a fixed order.
 */
export function recentStrata(
	items: INodeExecutionData[],
	metrics: Pick<Metrics, 'items'>,
	since: number,
): RecentStratum[] {
	const strata = new Map<string, RecentStratum>(
		[...STRATA, MOVED.doubtful, MOVED.audited].map((stratum) => [
			stratum,
			{ stratum, recent: { successes: 0, n: 0 }, earlier: { successes: 0, n: 0 } },
		]),
	);
	for (const outcome of metrics.items) {
		const right = rightOf(outcome);
		const json = items[outcome.index].json;
		if (right === null || ownValue(json, 'status') === 'not_reviewed') continue;
		const at = reviewedAtOf(json);
		const kind = stratumOf(json);
		const moved = kind !== LOADED && (kind === 'doubtful') === outcome.answered;
		const stratum = strata.get(moved ? MOVED[kind] : kind)!;
		const side = at !== null && at >= since ? stratum.recent : stratum.earlier;
		side.n++;
		if (right) side.successes++;
	}
	return [...strata.values()].filter((each) => each.recent.n + each.earlier.n > 0);
}
