// The report's "Since the last evaluation" section: what a quality watch compares (drift.ts) as a
// table, the answers that moved, the tests behind the alert (or the raw drop beyond the threshold). Pure;
// every string from data is escaped.
import { escapeHtml } from '../html';
import type { Change, Drift } from './drift';

const rate = (value: number | null) => (value === null ? '–' : `${Math.round(value * 1000) / 10}%`);
const setting = (value: number | null) =>
	value === null ? 'none recommended yet' : value === 0 ? 'none needed' : value.toFixed(2);
const points = (change: Change) =>
	change.points === null || change.points === undefined
		? ''
		: `${change.points > 0 ? '+' : change.points < 0 ? '−' : '±'}${Math.abs(change.points).toFixed(1)} points`;

function row(name: string, before: string, after: string, change: string): string {
	return `<tr><td class="key">${escapeHtml(name)}</td><td>${before}</td><td>${after}</td><td>${change}</td></tr>`;
}

/** The section; a partial run's notice; empty when the report has nothing to compare with. */
export function driftSection(drift: Drift | undefined): string {
	if (drift?.partial) {
		// The message's partial line says why and what it was not compared with.
		const line = drift.message.split('\n').find((each) => each.startsWith('Partial run:'));
		return `<h2>A partial run</h2><p class="alert" role="alert">${escapeHtml(line ?? 'Partial run: some rows were not scored.')}</p>`;
	}
	if (!drift || !drift.compared) return '';
	const rows = [
		row(
			'Accuracy',
			rate(drift.accuracy.before),
			rate(drift.accuracy.after),
			points(drift.accuracy),
		),
		row(
			'Answered',
			rate(drift.coverage.before),
			rate(drift.coverage.after),
			points(drift.coverage),
		),
		...drift.per_answer.flatMap((each) => [
			row(
				`${each.key}: precision`,
				rate(each.precision.before),
				rate(each.precision.after),
				points(each.precision),
			),
			row(
				`${each.key}: recall`,
				rate(each.recall.before),
				rate(each.recall.after),
				points(each.recall),
			),
		]),
		row(
			'Minimum confidence',
			setting(drift.min_confidence.before),
			setting(drift.min_confidence.after),
			'',
		),
		row(
			'Close Call Gap',
			setting(drift.close_call_gap.before),
			setting(drift.close_call_gap.after),
			'',
		),
	].join('');
	const since = drift.previous_evaluated_at
		? ` (${escapeHtml(drift.previous_evaluated_at.slice(0, 16).replace('T', ' '))} UTC, version ${drift.previous_version ?? '–'})`
		: '';
	// With evidence (the watch's tests), each test in words, the one that alerts marked; else the
	// raw drop beyond the threshold.
	const evidence = drift.evidence ?? [];
	const alert = evidence.length
		? evidence
				.map((each) =>
					each.alert
						? `<p class="alert" role="alert">${escapeHtml(each.words)}</p>`
						: `<p>${escapeHtml(each.words)}</p>`,
				)
				.join('')
		: drift.dropped
			? `<p class="alert" role="alert">Accuracy dropped ${(drift.accuracy_drop ?? 0).toFixed(1)} points, beyond the ${drift.threshold}-point threshold.</p>`
			: '';
	return `<h2>Since the last evaluation${since}</h2>${alert}<div class="scroll"><table class="classes drift"><thead><tr><th></th><th>Before</th><th>Now</th><th>Change</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}
