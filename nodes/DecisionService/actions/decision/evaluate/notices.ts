/**
 * Evaluate's last words: what the run cost, and the summary (with the rows not scored said) as
 * notices in n8n's output pane. The figures and the sentences are src/evaluate's.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { costOfMetrics, summaryOf, type Cost, type Metrics } from '../../../../../src/evaluate';
import { addHints, type DecideStats } from '../../../pipeline/receipt';
import { badRowText, type BadRow, type NotScored } from './inputs';

const unique = (values: string[]) => [...new Set(values)];

/**
 * The cost: what this node charged (live and compared decides), beside what the carried runs
 * were paid upstream.
 */
export function costOf(
	metrics: Metrics,
	stats: DecideStats,
	liveCharged: number,
	compared: number | undefined,
): Cost {
	return {
		...costOfMetrics(metrics),
		charged: stats.charged,
		live: liveCharged,
		mayHaveBeenCharged: stats.mayHaveBeenCharged,
		...(compared !== undefined
			? { compared: { version: compared, charged: stats.charged - liveCharged } }
			: {}),
	};
}

/** The summary, with the rows not scored said, shown as notices in the output pane. */
export function summaryNotices(
	context: IExecuteFunctions,
	metrics: Metrics,
	unscored: { badRows: BadRow[]; notScored: NotScored[] },
	cost: Cost,
	/** Sentences said after the summary's own (the rows a version change left out). */
	more: ReadonlyArray<string | undefined> = [],
) {
	const summary = summaryOf(metrics, cost);
	for (const sentence of more) if (sentence) summary.sentences.push(sentence);
	const badRows = unscored.badRows.map(badRowText);
	const notScoredBecause = unique(unscored.notScored.map((each) => each.reason)).join('; ');
	if (unscored.notScored.length)
		summary.sentences.push(
			`Partial: ${unscored.notScored.length} rows not scored (${notScoredBecause}); these figures are not compared with earlier ones, nor a baseline.`,
		);
	if (badRows.length)
		summary.sentences.push(`${badRows.length} rows not scored, to fix: ${badRows.join(' ')}`);
	addHints(
		context,
		[summary.headline, ...summary.sentences].map((message) => ({
			message,
			type: 'info' as const,
			location: 'outputPane' as const,
		})),
	);
	return { summary, said: { badRows, notScoredBecause } };
}
