// Accuracy over all traffic in people's words: the sentences of the summary, the report's tiles
// and table notes, and the message's line say the same figure, coverage and "not enough items
// yet" (issue 43). Pure. The figures are all-traffic.ts's.
import type { Metrics } from './metrics';
import { intervalWords, itemCount } from './tables';
import { NOT_YET, roughly } from './all-traffic';
import { percent } from './setting-effects';

/** Whether any row says why a person saw it (a stratum, good or bad): then the estimate is said. */
export function hasStrata(metrics: Metrics): boolean {
	const { rows, leftOut, notReviewed } = metrics.allTraffic;
	const placed = rows.doubtful + rows.audited + notReviewed.doubtful + notReviewed.audited;
	return placed + leftOut.total - leftOut.handAdded > 0;
}

/** "40 doubtful and 12 audited items, standing for about 280 items". */
export function allTrafficBasis(metrics: Metrics): string {
	const { rows, standsFor } = metrics.allTraffic;
	return `${rows.doubtful} doubtful and ${rows.audited} audited ${rows.doubtful + rows.audited === 1 ? 'item' : 'items'}, standing for about ${itemCount(roughly(Math.round(standsFor.total)))}`;
}

/**
 * What the estimate covers and how it counts the rows it cannot judge: "40 of 80 doubtful items
 * reviewed; the other 40 are taken to be like them." and "4 of 5 reviewed doubtful rows had no
 * guess (a tie with no suggestion): counted as not answered right." "" when neither happened.
 */
export function allTrafficCoverage(metrics: Metrics): string {
	const { rows, notReviewed, strata } = metrics.allTraffic;
	const parts: string[] = [];
	for (const name of ['doubtful', 'audited'] as const) {
		if (notReviewed[name]) {
			const all = rows[name] + notReviewed[name];
			parts.push(
				`${rows[name]} of ${all} ${name} items reviewed; the other ${notReviewed[name] === 1 ? '1 is' : `${notReviewed[name]} are`} taken to be like them.`,
			);
		}
		const ties = strata.filter((s) => s.stratum === name).reduce((sum, s) => sum + s.noGuess, 0);
		if (ties)
			parts.push(
				`${ties} of ${rows[name]} reviewed ${name} rows had no guess (a tie with no suggestion): counted as not answered right.`,
			);
	}
	return parts.map((part) => ` ${part}`).join('');
}

/**
 * The accuracy over all traffic as the message's line: "• Over all traffic: 91.2% (95% interval
 * 84–96%), 8 of 12 doubtful items reviewed …", or "not enough items yet (…)"; none without strata.
 */
export function allTrafficLines(metrics: Metrics): string[] {
	if (!hasStrata(metrics)) return [];
	const { allTraffic } = metrics;
	const figure =
		allTraffic.accuracy === null
			? (allTraffic.reason ?? NOT_YET)
			: `${percent(allTraffic.accuracy)} (95% interval ${intervalWords(allTraffic.accuracyInterval)})`;
	return [`• Over all traffic: ${figure}.${allTrafficCoverage(metrics)}`];
}

/** The rows left out of the estimate, and why: "" when none was. */
function leftOutWords(metrics: Metrics): string {
	const { leftOut } = metrics.allTraffic;
	const parts = [
		leftOut.handAdded && `${leftOut.handAdded} added by hand (no stratum)`,
		leftOut.badStratum && `${leftOut.badStratum} with a stratum other than doubtful or audited`,
		leftOut.badShare &&
			`${leftOut.badShare} audited with an audit share that is not a number above 0 and at most 1`,
	].filter((part): part is string => Boolean(part));
	return parts.length
		? ` Left out of it: ${leftOut.total} ${leftOut.total === 1 ? 'row' : 'rows'}, ${parts.join(', ')}.`
		: '';
}

/**
 * Accuracy over all traffic and the confident answers' accuracy, when rows say why a person saw
 * them (their stratum); nothing otherwise.
 */
export function allTrafficSentences(metrics: Metrics): string[] {
	if (!hasStrata(metrics)) return [];
	const { allTraffic } = metrics;
	if (allTraffic.accuracy === null || allTraffic.reason)
		return [
			`Accuracy over all traffic: ${allTraffic.reason ?? NOT_YET}${allTraffic.rows.audited ? '.' : ": set Decide's Audit Share (Decide → Options → Audit Share (%)) so that a sample of the confident answers is reviewed too."}${allTrafficCoverage(metrics)}${leftOutWords(metrics)}`,
		];
	return [
		`Accuracy over all traffic (estimated from ${allTrafficBasis(metrics)}): ${percent(allTraffic.accuracy)} (95% interval ${intervalWords(allTraffic.accuracyInterval)}).${allTrafficCoverage(metrics)}${leftOutWords(metrics)}`,
		confidentSentence(metrics),
	];
}

/**
 * The audited answers' accuracy: a count at one Audit Share; after a change of share the weighed
 * figure first, so the count beside it is not read as the rate.
 */
function confidentSentence(metrics: Metrics): string {
	const { allTraffic, confidentAccuracy } = metrics;
	const interval = `95% interval ${intervalWords(confidentAccuracy.accuracyInterval)}`;
	const shares = allTraffic.strata.filter((stratum) => stratum.stratum === 'audited').length;
	if (shares <= 1 || confidentAccuracy.accuracy === null)
		return `Answers sent straight to their output: right on ${confidentAccuracy.right} of ${confidentAccuracy.n} audited (${interval}).`;
	return `Answers sent straight to their output: ${percent(confidentAccuracy.accuracy)} right (${interval}), from ${confidentAccuracy.right} of ${confidentAccuracy.n} audited at ${shares} Audit Shares, each weighed by the answers it stands for.`;
}
