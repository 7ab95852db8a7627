/**
 * What each item brings to an evaluation, read before anything is spent: its expected answer
 * (checked against the decision), the answer it already carries (scored free), whether its run or
 * its review was already counted on an earlier item, and, after the decides, what is scored and
 * why the rest is not: a bad row (to fix) or a row left unscored (the cap, the service: a partial
 * run). No row stops an evaluation. Long because every way a row is read and judged is kept in
 * one place, so a row is never judged twice differently.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';
import { ownValue, type RunAnswer } from '../../../../../src/contract';
import { readAnswer, type ItemAnswer } from '../../../../../src/answer/item-answer';
import { kindOf } from '../../../../../src/answer/kinds';
import { checkExpected, STRATA, stratumOf, type ScoredItem } from '../../../../../src/evaluate';
import { storedReviewId, type EvaluationDecision } from '../../../../../src/answer';
import { slugOf } from '../../../pipeline/input';
import type { Prepared } from '../../../pipeline/prepare';

/** Marks an item that needs no decide (it failed already, or carries its run). */
export class NotAsked extends Error {}

/** The answer an earlier Decide (or Review) left on the item, compact or whole (src/answer/item-answer.ts). */
export function carriedAnswer(
	json: IDataObject,
	field: string,
	decision: EvaluationDecision,
): ItemAnswer | undefined {
	return readAnswer(ownValue(json, field), decision.type, decision.keys);
}

/**
 * The answer a stored review row keeps (`run_id`, `machine_status`, `machine_answer`, `version`,
 * `confidence`: src/answer/labeled-row.ts) and the version that gave it: scored free while that
 * version is live, so a watch never decides a row twice on one version, nor sends a doubtful row
 * to the service's review queue again. Undefined when the row keeps no run or no status.
 */
export function storedAnswer(
	json: IDataObject,
	decision: EvaluationDecision,
): { answer: ItemAnswer; version: number | null } | undefined {
	const runId = ownValue(json, 'run_id');
	const status = ownValue(json, 'machine_status');
	if (typeof runId !== 'string' || runId === '' || typeof status !== 'string' || status === '')
		return undefined;
	const kind = kindOf(decision.type);
	const answer: ItemAnswer = { runId, status, probabilities: {}, ...(kind ? { kind } : {}) };
	const cell = expectedCell(ownValue(json, 'machine_answer'));
	const read = cell ? checkExpected(decision, cell.value, 0) : undefined;
	if (read?.ok) {
		const keys = Array.isArray(read.value) ? read.value : [read.value];
		answer.guess = keys;
		if (status === 'ok') answer.answer = keys;
	}
	const confidence = ownValue(json, 'confidence');
	const number = typeof confidence === 'string' ? Number(confidence) : confidence;
	if (typeof number === 'number' && Number.isFinite(number)) answer.confidence = number;
	const version = ownValue(json, 'version');
	const versionNumber = typeof version === 'string' ? Number(version) : version;
	return {
		answer,
		version:
			typeof versionNumber === 'number' && Number.isFinite(versionNumber) && version !== ''
				? versionNumber
				: null,
	};
}

/** When the row was reviewed (its `reviewed_at`), in ms; null when it does not say. */
export function reviewedAtOf(json: IDataObject): number | null {
	const value = ownValue(json, 'reviewed_at');
	const time =
		value instanceof Date
			? value.getTime()
			: typeof value === 'string' && value !== ''
				? Date.parse(value)
				: NaN;
	return Number.isFinite(time) ? time : null;
}

export interface Checked {
	expected: Array<string | string[] | undefined>;
	errors: Array<Error | undefined>;
	/** Rows of items nobody reviewed (status `not_reviewed`): never scored, see NotReviewedRow. */
	notReviewed?: number[];
	/** What to fix, for each item whose expected answer is bad (its error says it too). */
	fixes?: Array<string | undefined>;
}

const NOTHING_SENT = 'Nothing was sent for this item, so nothing was charged.';

/**
 * A row Review wrote for an item nobody reviewed (status `not_reviewed`, empty answer): not a bad
 * row, not scored, not charged, and not a partial run. It is the rest of its stratum's population
 * in the accuracy over all traffic: the reviewed rows of the stratum stand for it.
 */
export class NotReviewedRow extends Error {}

export const NOT_REVIEWED_WORDS =
	'Not reviewed: not scored; in the accuracy over all traffic the reviewed rows of its kind stand for it';

/** Whether a row is one Review wrote for an item nobody reviewed (its own `status` cell). */
export function isNotReviewed(json: IDataObject): boolean {
	const status = ownValue(json, 'status');
	return typeof status === 'string' && status.trim().toLowerCase() === 'not_reviewed';
}

/**
 * An expected answer as a row holds it: undefined when it has none (empty, blank), a JSON-text
 * list (`["spam","promotion"]`, as a sheet or a table keeps a list) read as the list it is.
 */
export function expectedCell(raw: unknown): { value: unknown } | undefined {
	if (raw === undefined || raw === null) return undefined;
	if (typeof raw !== 'string') return { value: raw };
	const text = raw.trim();
	if (text === '') return undefined;
	if (text.startsWith('[') && text.endsWith(']')) {
		try {
			const list: unknown = JSON.parse(text);
			if (Array.isArray(list)) return { value: list };
		} catch {
			// Not JSON: read as written (a label may hold brackets), checked against the keys.
		}
	}
	return { value: raw };
}

/** The problem of one item's expected answer, with what to fix; undefined when it is good. */
function expectedProblem(
	decision: EvaluationDecision,
	raw: unknown,
	itemIndex: number,
): { message: string; fix: string; value?: undefined } | { value: string | string[] } {
	const kind = kindOf(decision.type);
	const word = kind?.word ?? 'answer';
	const keys = decision.keys.map((key) => JSON.stringify(key)).join(', ');
	const cell = expectedCell(raw);
	if (!cell)
		return {
			message: 'No expected answer: the item (the row) has none',
			fix: `Give the row its answer, ${kind?.many ? 'labels' : `one ${word}`} of the decision (${keys}), or remove the row.`,
		};
	const result = checkExpected(decision, cell.value, itemIndex);
	if (result.ok) return { value: result.value };
	return {
		message: result.problem.message,
		fix: `Set the row's answer to ${kind?.many ? 'labels' : `one ${word}`} of the decision, or remove the row.`,
	};
}

/**
 * Every item's expected answer checked before any decide; one evaluation measures one decision.
 * A bad one fails its item only: every bad row is named, none stops the evaluation.
 */
export function checkAll(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	decision: EvaluationDecision,
	slug: string,
): Checked {
	const checked: Checked = { expected: [], errors: [], fixes: [] };
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		let error: NodeOperationError | undefined;
		try {
			const itemSlug = slugOf(context, itemIndex);
			if (itemSlug !== slug) {
				error = new NodeOperationError(
					context.getNode(),
					`This item evaluates "${itemSlug}", the first item "${slug}"; one evaluation measures one decision`,
					{ itemIndex, description: `Evaluate one decision per node. ${NOTHING_SENT}` },
				);
			} else if (isNotReviewed(items[itemIndex].json)) {
				checked.errors[itemIndex] = new NotReviewedRow(NOT_REVIEWED_WORDS);
				(checked.notReviewed ??= []).push(itemIndex);
				continue;
			} else {
				const raw = context.getNodeParameter('expected', itemIndex, undefined) as unknown;
				const read = expectedProblem(decision, raw, itemIndex);
				if ('message' in read) {
					error = new NodeOperationError(context.getNode(), read.message, {
						itemIndex,
						description: `${read.fix} ${NOTHING_SENT}`,
					});
					(checked.fixes ??= [])[itemIndex] = read.fix;
				} else checked.expected[itemIndex] = read.value;
			}
		} catch (thrown) {
			// An expression that fails on this item (Expected Answer, the decision): this row only.
			error = new NodeOperationError(
				context.getNode(),
				thrown instanceof Error ? thrown.message : String(thrown),
				{ itemIndex, description: `Fix the item or the expression. ${NOTHING_SENT}` },
			);
		}
		checked.errors[itemIndex] = error;
	}
	return checked;
}

/**
 * Items an earlier item already stands for: the same run carried (a classify item Review put on
 * two outputs, merged), or the same stored review (a review stored once per picked label before
 * reviews had an id: its execution and run). Each such item and the item it is counted on; a
 * repeat is not decided, charged nor counted again.
 */
export function repeatsOf(
	carried: ReadonlyArray<ItemAnswer | undefined>,
	reviewIds: ReadonlyArray<string | undefined> = [],
): Map<number, number> {
	const first = new Map<string, number>();
	const repeats = new Map<number, number>();
	const count = Math.max(carried.length, reviewIds.length);
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		const runId = carried[itemIndex]?.runId;
		const reviewId = reviewIds[itemIndex];
		// JSON keys: a run id and a review id never collide, whatever they hold.
		const key = runId
			? JSON.stringify(['run', runId])
			: reviewId
				? JSON.stringify(['review', reviewId])
				: undefined;
		if (key === undefined) continue;
		const earlier = first.get(key);
		if (earlier === undefined) first.set(key, itemIndex);
		else repeats.set(itemIndex, earlier);
	}
	return repeats;
}

/** Each item's stored review (its `review_id`, else its execution and run); none for a failed item. */
export function reviewIdsOf(
	items: INodeExecutionData[],
	checked: Checked,
): Array<string | undefined> {
	return items.map((item, itemIndex) =>
		checked.errors[itemIndex] ? undefined : storedReviewId(item.json),
	);
}

export interface Scoring {
	scored: ScoredItem[];
	/** The input item of each scored item. */
	scoredIndexes: number[];
	failures: Map<number, Error>;
	/** Rows of items nobody reviewed (NotReviewedRow), with what the output says of them. */
	notReviewed?: Map<number, string>;
}

/** The scored items: the carried answer or the fresh run; failures and repeats stay apart. */
export function scoreItems(
	itemCount: number,
	checked: Checked,
	carried: ReadonlyArray<ItemAnswer | undefined>,
	repeats: ReadonlyMap<number, number>,
	results: ReadonlyArray<RunAnswer | Error>,
	readRun: (run: RunAnswer) => ItemAnswer,
	left: ReadonlyMap<number, string> = new Map(),
): Scoring {
	const scoring: Scoring = { scored: [], scoredIndexes: [], failures: new Map() };
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		// Rows answered by an earlier version, beyond the version-change sample: not scored here.
		if (left.has(itemIndex)) continue;
		const error = checked.errors[itemIndex];
		const result = results[itemIndex];
		const carriedHere = carried[itemIndex];
		if (error instanceof NotReviewedRow)
			(scoring.notReviewed ??= new Map()).set(itemIndex, error.message);
		else if (error) scoring.failures.set(itemIndex, error);
		else if (repeats.has(itemIndex)) continue;
		else if (result === undefined && !carriedHere)
			scoring.failures.set(itemIndex, new Error('Not sent: the execution was stopped'));
		else if (carriedHere) {
			scoring.scored.push({ expected: checked.expected[itemIndex], run: carriedHere, charged: 0 });
			scoring.scoredIndexes.push(itemIndex);
		} else if (result instanceof Error) scoring.failures.set(itemIndex, result);
		else {
			scoring.scored.push({
				expected: checked.expected[itemIndex],
				run: readRun(result),
				charged: 1,
			});
			scoring.scoredIndexes.push(itemIndex);
		}
	}
	return scoring;
}

/**
 * The cells (`stratum`, `audit_share`) of the rows of items nobody reviewed, each item once: a row
 * whose run (or review) was reviewed after all, or already counted on another such row, is not
 * counted again.
 */
export function notReviewedCells(
	items: INodeExecutionData[],
	checked: Checked,
	scoring: Scoring,
): Array<{ stratum: unknown; auditShare: unknown }> {
	const seen = new Set<string>();
	for (const at of scoring.scoredIndexes) {
		const runId = ownValue(items[at].json, 'run_id');
		if (typeof runId === 'string' && runId) seen.add(JSON.stringify(['run', runId]));
	}
	const cells: Array<{ stratum: unknown; auditShare: unknown }> = [];
	for (const at of checked.notReviewed ?? []) {
		const json = items[at].json;
		const runId = ownValue(json, 'run_id');
		const reviewId = storedReviewId(json);
		const key =
			typeof runId === 'string' && runId
				? JSON.stringify(['run', runId])
				: reviewId
					? JSON.stringify(['review', reviewId])
					: undefined;
		if (key !== undefined && seen.has(key)) continue;
		if (key !== undefined) seen.add(key);
		cells.push({ stratum: ownValue(json, 'stratum'), auditShare: ownValue(json, 'audit_share') });
	}
	return cells;
}

/** A row not scored because of what it holds: named, with what to fix. */
export interface BadRow {
	item: number;
	/** The row's own id (a Data Table row's), when it has one. */
	row?: string | number;
	problem: string;
	fix: string;
}

/** A row left unscored for a reason not its own (the cap, the service): the run is partial. */
export interface NotScored {
	item: number;
	row?: string | number;
	reason: string;
}

/** The row's own id, as a Data Table (or a sheet) gives it. */
function rowIdOf(item: INodeExecutionData | undefined): string | number | undefined {
	const id = item ? ownValue(item.json, 'id') : undefined;
	return typeof id === 'number' || (typeof id === 'string' && id !== '') ? id : undefined;
}

/** A bad row in words: the item, its row id, the problem, what to fix. */
export function badRowText(row: BadRow): string {
	const where = row.row === undefined ? `Item ${row.item}` : `Item ${row.item} (row ${row.row})`;
	return `${where}: ${row.problem.replace(/\.$/, '')}. ${row.fix}`;
}

/** Statuses a service gives to an input it refuses: the row's problem, not the run's. */
const REFUSED_INPUT = new Set(['400', '413', '422']);

/**
 * Why each failed item was not scored: its expected answer or its input (a bad row, to fix), or
 * the cap and the service (not scored: the run is partial).
 */
export function unscoredOf(
	items: INodeExecutionData[],
	failures: ReadonlyMap<number, Error>,
	checked: Checked,
	prepared: readonly Prepared[],
	notAsked: NotAsked,
): { badRows: BadRow[]; notScored: NotScored[] } {
	const badRows: BadRow[] = [];
	const notScored: NotScored[] = [];
	for (const [item, error] of [...failures].sort(([a], [b]) => a - b)) {
		const row = rowIdOf(items[item]);
		const entry = prepared[item];
		const before =
			checked.errors[item] ??
			(entry && 'error' in entry && entry.error !== notAsked ? entry.error : undefined);
		const httpCode = (error as { httpCode?: unknown }).httpCode;
		const description = (error as { description?: unknown }).description;
		const fix =
			checked.fixes?.[item] ?? (typeof description === 'string' && description ? description : '');
		if (before || (typeof httpCode === 'string' && REFUSED_INPUT.has(httpCode)))
			badRows.push({
				item,
				...(row === undefined ? {} : { row }),
				problem: error.message,
				fix: fix || 'Fix the row or remove it.',
			});
		else notScored.push({ item, ...(row === undefined ? {} : { row }), reason: error.message });
	}
	return { badRows, notScored };
}

/** Which stored rows are scored from their answer, which decided again, which left out. */
export interface StoredPlan {
	/** Each item's answer to score from: carried by the item, or stored on the live version. */
	carried: Array<ItemAnswer | undefined>;
	/** Rows answered by another version, decided again (the sample), with their old answer. */
	sampled: Map<number, ItemAnswer>;
	/** Rows answered by another version not decided again: why they are not scored. */
	left: Map<number, string>;
	/** Rows scored from their stored answer (free). */
	fromStore: number;
	/** The versions the sampled and left rows were answered by. */
	oldVersions: number[];
	/**
	 * The change to the live version was tested at an earlier run (the last full figures were on
	 * it): when it was, and the rows still on another version are left out, not paid again.
	 */
	tested?: { at: string | null };
}

/** A row answered by another version, its kind, and where it stands in "the most recent rows". */
interface OlderRow {
	itemIndex: number;
	stratum: (typeof STRATA)[number];
	at: number;
	order: number;
	answer: ItemAnswer;
}

/**
 * The order of "the most recent rows": by `reviewed_at`, newest first; rows without it (rows a
 * team loaded) after those, the last added first: the Data Table row's `id` (ids grow as rows are
 * added), else the table's order.
 */
function mostRecentFirst(a: OlderRow, b: OlderRow): number {
	return b.at - a.at || b.order - a.order || b.itemIndex - a.itemIndex;
}

/**
 * The order the Version Change Sample takes rows in: the most recent of each kind in turn
 * (doubtful, audited, loaded, then again), so every kind is in the sample. Most recent alone, a
 * week of doubtful reviews fills it: a version worse on the confident answers, most of the
 * traffic, went unseen more often (a 10-point drop found on the first run in 93.8 % of 600 changes,
 * in turn 98.0 %: bench/quality-year.ts). A kind with no rows left gives its turn to the others.
 */
function inTurnsByKind(rows: readonly OlderRow[]): OlderRow[] {
	const queues = STRATA.map((stratum) =>
		rows.filter((row) => row.stratum === stratum).sort(mostRecentFirst),
	);
	const turns: OlderRow[] = [];
	for (let depth = 0; turns.length < rows.length; depth++)
		for (const queue of queues) if (depth < queue.length) turns.push(queue[depth]);
	return turns;
}

function orderOf(json: IDataObject, itemIndex: number): number {
	const id = ownValue(json, 'id');
	const number = typeof id === 'string' && id !== '' ? Number(id) : id;
	return typeof number === 'number' && Number.isFinite(number) ? number : itemIndex;
}

/**
 * The plan of a watch over stored rows: a row stored on the live version is scored from its
 * answer; of the rows stored on another version, `sample` rows, the most recent of each kind in
 * turn (inTurnsByKind), are decided again and paired with their stored answer, the others left
 * out of the figures (sample 0: all decided). `tested`: the change was tested at an earlier run, so none is decided again:
 * one change, one test, at most `sample` units. Rows with no stored answer are decided as any
 * labeled item.
 */
export function planStored(
	items: INodeExecutionData[],
	checked: Checked,
	carried: ReadonlyArray<ItemAnswer | undefined>,
	decision: EvaluationDecision,
	liveVersion: number | null,
	sample: number,
	tested?: { at: string | null },
): StoredPlan {
	const plan: StoredPlan = {
		carried: [...carried],
		sampled: new Map(),
		left: new Map(),
		fromStore: 0,
		oldVersions: [],
		...(tested ? { tested } : {}),
	};
	const older: OlderRow[] = [];
	const versions = new Set<number>();
	items.forEach((item, itemIndex) => {
		if (checked.errors[itemIndex] || carried[itemIndex]) return;
		const stored = storedAnswer(item.json, decision);
		if (!stored) return;
		if (stored.version !== null && stored.version === liveVersion) {
			plan.carried[itemIndex] = stored.answer;
			plan.fromStore++;
			return;
		}
		if (stored.version !== null) versions.add(stored.version);
		const at = reviewedAtOf(item.json) ?? -Infinity;
		older.push({
			itemIndex,
			stratum: stratumOf(item.json),
			at,
			order: orderOf(item.json, itemIndex),
			answer: stored.answer,
		});
	});
	const live = liveVersion ?? '–';
	inTurnsByKind(older).forEach((each, at) => {
		if (tested)
			plan.left.set(
				each.itemIndex,
				`Answered by an earlier version; version ${live} was live at the last run${tested.at ? ` (${tested.at})` : ''}, which tested the change: not decided again (Version Change Sample)`,
			);
		else if (sample > 0 && at >= sample)
			plan.left.set(
				each.itemIndex,
				`Answered by an earlier version; not among the ${sample} rows decided again, the most recent of each kind (Version Change Sample)`,
			);
		else plan.sampled.set(each.itemIndex, each.answer);
	});
	plan.oldVersions = [...versions].sort((a, b) => a - b);
	return plan;
}
