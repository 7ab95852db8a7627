// The watch's message: what changed since the last evaluation in a few lines a Slack or e-mail node
// sends as they are (docs/quality-watch.md). drift.ts compares the figures; this says them, and
// holds the shapes both use (a change, the run's notes): drift.ts imports this file, never the
// other way (no import circle). Pure.
import { signed, type Evidence } from './evidence';
import type { FiguresRow } from './figures-row';

/** A figure then and now; `points`: the change in percentage points (rates only). */
export interface Change {
	before: number | null;
	after: number | null;
	points?: number | null;
}

export interface AnswerChange {
	key: string;
	precision: Change;
	recall: Change;
}

/** What the message says beside the figures: the rows to fix, why rows went unscored, the cost. */
export interface RunNotes {
	/** Each bad row named, with what to fix. */
	badRows?: readonly string[];
	/** Why rows went unscored (a partial run). */
	notScoredBecause?: string;
	/** Runs the items carried, paid by the node that decided them (one unit each). */
	paidUpstream?: number;
	/**
	 * The tests behind the alert (recent rows, a version change). When given, the alert is theirs
	 * (a test passed and its drop reaches the threshold), not the raw points of the whole table.
	 */
	evidence?: readonly Evidence[];
	/** Lines said before the cost (what the run decided and why). */
	extraLines?: readonly string[];
	/**
	 * The doubtful rows (left to a person) in words: said after the figures, and in place of the
	 * accuracy lines when no row was answered (their guesses are what there is to say).
	 */
	doubtful?: readonly string[];
}

/** The figures compared, each then and now (drift.ts `changesOf`). */
export interface Changes {
	accuracy: Change;
	coverage: Change;
	minConfidence: Change;
	closeCallGap: Change;
}

const percent = (value: number | null): string =>
	value === null ? '–' : `${Math.round(value * 1000) / 10}%`;

const setting = (value: number | null): string =>
	// Null: none recommended, too few items to be sure or none reaching the target (the report says which).
	value === null ? 'none recommended yet' : value === 0 ? 'none needed' : value.toFixed(2);

function rateLine(name: string, each: Change): string {
	const now = `${name} ${percent(each.after)}`;
	if (each.points === null || each.points === undefined) return now;
	return `${now} (${signed(each.points)} points, was ${percent(each.before)})`;
}

function settingLine(name: string, each: Change, compared: boolean): string {
	const now = `${name}: ${setting(each.after)}`;
	if (!compared) return now;
	return each.before === each.after ? `${now} (unchanged)` : `${now} (was ${setting(each.before)})`;
}

function answerLine(each: AnswerChange): string {
	const part = (name: string, figure: Change) =>
		figure.before === figure.after
			? `${name} ${percent(figure.after)}`
			: `${name} ${percent(figure.before)} → ${percent(figure.after)}`;
	return `${each.key}: ${part('precision', each.precision)}, ${part('recall', each.recall)}`;
}

const plural = (count: number, one: string, many = `${one}s`) =>
	`${count} ${count === 1 ? one : many}`;

const when = (row: FiguresRow) =>
	row.evaluated_at ? `${row.evaluated_at.slice(0, 16).replace('T', ' ')} UTC` : 'the last run';

/** The message's first lines: which decision, since when, and the figures now (and then). */
export function figureLines(
	before: FiguresRow | undefined,
	current: FiguresRow,
	name: string,
	changes: Changes,
	perAnswer: AnswerChange[],
	doubtful: readonly string[] | undefined,
): string[] {
	const version =
		before && before.live_version !== null && before.live_version !== current.live_version
			? `live version ${current.live_version} (was ${before.live_version})`
			: `live version ${current.live_version ?? '–'}`;
	const since = before
		? before.evaluated_at
			? ` since ${before.evaluated_at.slice(0, 16).replace('T', ' ')} UTC`
			: ' since the last evaluation'
		: '';
	// A full run's not_scored: rows the Version Change Sample left out (the closing lines say why).
	const partial = current.partial
		? ` (partial: ${plural(current.not_scored, 'row')} not scored)`
		: current.not_scored
			? ` (${plural(current.not_scored, 'row')} left out)`
			: '';
	return [
		`${name}, ${version}, on ${current.total} labeled items${since}${partial}:`,
		...(current.answered === 0 && doubtful?.length
			? []
			: [
					`• ${rateLine('Accuracy', changes.accuracy)}: ${current.right} of ${current.answered} answered right`,
					`• ${rateLine('Answered', changes.coverage)}`,
				]),
		...(doubtful ?? []),
		...perAnswer.map((each) => `• ${answerLine(each)}`),
		`• ${settingLine('Recommended minimum confidence', changes.minConfidence, Boolean(before))}; ${settingLine('Close Call Gap', changes.closeCallGap, Boolean(before))}`,
	];
}

/** The verdict line(s): partial, the evidence's words, the baseline, the alert, or no change. */
export function verdictLines(
	previous: FiguresRow | undefined,
	before: FiguresRow | undefined,
	current: FiguresRow,
	alert: { evidence: Evidence[]; dropped: boolean; accuracyDrop: number | null; threshold: number },
	changes: Changes,
	perAnswer: AnswerChange[],
	notScoredBecause: string | undefined,
): string[] {
	if (current.partial)
		return [
			`Partial run: ${plural(current.not_scored, 'row')} not scored${notScoredBecause ? ` (${notScoredBecause})` : ''}. Not compared with ${previous ? `the figures of ${when(previous)}` : 'earlier figures'}, and never a baseline: the next run compares with the last full one.`,
		];
	if (alert.evidence.length)
		return [
			...(before ? [] : ['No earlier figures: this run is the baseline of the figures.']),
			...alert.evidence.map((each) => each.words),
		];
	if (!before) return ['No earlier figures: this run is the baseline.'];
	if (alert.dropped)
		return [
			`Alert: accuracy dropped ${alert.accuracyDrop!.toFixed(1)} points, beyond the ${alert.threshold}-point threshold.`,
		];
	if (!perAnswer.length && changes.accuracy.points === 0 && changes.coverage.points === 0)
		return ['Nothing changed.'];
	return [];
}

/** The message's last lines: what the run decided, the rows to fix, the cost. */
export function closingLines(current: FiguresRow, notes: RunNotes): string[] {
	const lines = [...(notes.extraLines ?? [])];
	const badRows = notes.badRows ?? [];
	if (badRows.length)
		lines.push(
			`${plural(badRows.length, 'row')} not scored, to fix:`,
			...badRows.map((each) => `• ${each}`),
		);
	const upstream = notes.paidUpstream
		? ` here; the ${plural(notes.paidUpstream, 'run')} the items carried were paid upstream (${plural(notes.paidUpstream, 'unit')})`
		: '';
	lines.push(`Cost: ${plural(current.units_charged, 'unit')}${upstream}.`);
	return lines;
}
