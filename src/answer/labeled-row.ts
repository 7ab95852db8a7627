// A reviewed item as one flat row: what Review writes as an item's `review`, what n8n's Data Table
// node stores with no column mapped by hand (its insert takes text, numbers, yes/no and empty
// values, never an object or a list), and what a quality watch reads back as a labeled item
// (docs/quality-watch.md). Pure.
import { answerText as feedbackAnswerText, kindOf } from './kinds';

/** The columns of the labeled set's table, in the order a table is created with them. */
export const LABELED_ROW_COLUMNS: ReadonlyArray<{
	name: string;
	type: 'string' | 'number' | 'boolean';
}> = [
	{ name: 'review_id', type: 'string' },
	{ name: 'status', type: 'string' },
	{ name: 'answer', type: 'string' },
	{ name: 'agreed', type: 'boolean' },
	{ name: 'note', type: 'string' },
	{ name: 'feedback', type: 'string' },
	{ name: 'feedback_sent', type: 'boolean' },
	{ name: 'feedback_error', type: 'string' },
	{ name: 'decision', type: 'string' },
	{ name: 'version', type: 'number' },
	{ name: 'run_id', type: 'string' },
	{ name: 'machine_status', type: 'string' },
	{ name: 'machine_answer', type: 'string' },
	{ name: 'confidence', type: 'number' },
	{ name: 'stratum', type: 'string' },
	{ name: 'audit_share', type: 'number' },
	{ name: 'input', type: 'string' },
	{ name: 'reviewed_at', type: 'string' },
	{ name: 'execution_id', type: 'string' },
	{ name: 'workflow_id', type: 'string' },
];

/**
 * An answer as one text, in the one encoding feedback uses (src/answer/kinds.ts, `answerText`): the key,
 * or the labels joined with "," (`billing,refund`), or `no label`; so `review.answer` sent as it is
 * by Send Feedback says what Review sent. Rows written before used ", ": Evaluate and Send Feedback
 * read both.
 */
export function rowAnswerText(keys: readonly string[], list: boolean): string {
	return feedbackAnswerText(kindOf(list ? 'classify' : 'route')!, keys);
}

export interface ReviewRowInput {
	/** The keys the person picked. */
	picked: readonly string[];
	/** classify: the answer is a set of labels (written as one text). */
	labels: boolean;
	agreed: boolean;
	note?: string;
	/** The feedback sent on the run: its text, whether the service took it, its error. */
	feedback?: { value?: unknown; sent?: unknown; error?: unknown };
	decision: string;
	/** The version that ran, when the item says; else the live version when the review was sent. */
	version?: number;
	runId?: string;
	machineStatus?: string;
	machineAnswer: readonly string[];
	confidence?: number;
	/**
	 * Why a person saw it: `doubtful` (Decide sent it to Uncertain or Pending Review, every such
	 * item is sent to review) or `audited` (a confident answer picked by Decide's Audit Share, at
	 * `auditShare`, a number 0–1). Evaluate weighs the two to estimate accuracy over all traffic.
	 */
	stratum?: ReviewStratum;
	auditShare?: number;
	/** What the decision was asked: a text, or the fields sent. */
	input?: string | Record<string, unknown>;
	reviewedAt: string;
	executionId?: string;
	workflowId?: string;
}

/** FNV-1a over a text, as 8 hex digits: a short, stable name for what a runless item was asked. */
function fingerprint(text: string): string {
	let hash = 0x811c9dc5;
	for (let at = 0; at < text.length; at++) {
		hash ^= text.charCodeAt(at);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash.toString(16).padStart(8, '0');
}

/**
 * One id per review: the execution and the run reviewed (an item with no run: what it was asked
 * and the pick). Every copy Review puts on a picked label's output carries the same id, so a Data
 * Table Upsert keyed on it stores one row per review, and a re-run stores it again in place.
 */
export function reviewIdOf(review: {
	executionId?: string;
	runId?: string;
	input?: string | Record<string, unknown>;
	picked?: readonly string[];
}): string | undefined {
	if (!review.executionId) return undefined;
	if (review.runId) return `${review.executionId}/${review.runId}`;
	const asked =
		typeof review.input === 'string' ? review.input : JSON.stringify(review.input ?? null);
	return `${review.executionId}/asked-${fingerprint(JSON.stringify([asked, review.picked ?? []]))}`;
}

/**
 * The review a stored row is (rows stored before `review_id` existed: their execution and run),
 * or undefined for a row a team added by hand. Read as the row's own keys only.
 */
export function storedReviewId(row: object): string | undefined {
	const own = (key: string): unknown =>
		Object.prototype.hasOwnProperty.call(row, key)
			? (row as Record<string, unknown>)[key]
			: undefined;
	const id = own('review_id');
	if (typeof id === 'string' && id.trim() !== '') return id;
	const executionId = own('execution_id');
	const runId = own('run_id');
	return typeof executionId === 'string' && typeof runId === 'string' && executionId && runId
		? reviewIdOf({ executionId, runId })
		: undefined;
}

type Cell = string | number | boolean | null;

/** Why a labeled row was reviewed: see ReviewRowInput.stratum. */
export type ReviewStratum = 'doubtful' | 'audited';

/** The machine's side of a row, the same whatever a person did: see ReviewRowInput. */
type MachineSide = Omit<ReviewRowInput, 'picked' | 'agreed' | 'note' | 'feedback' | 'reviewedAt'>;

/**
 * An item a person did not review, as the same flat row (status `not_reviewed`): left for later
 * when the page was submitted, or still waiting when the time limit passed. Counted by Evaluate as
 * a doubtful (or audited) item with no person's answer: `answer` is empty, `agreed` and `note`
 * are left out, no feedback was sent. `review_id` is the one a review of the item in that
 * execution would have had (reviewIdOf). `reviewed_at` is when the item was left: the submit that
 * left it, or the time limit.
 */
export interface LeftRowInput extends MachineSide {
	leftAt: string;
}

export function notReviewedRow(left: LeftRowInput): Record<string, Cell> {
	const row: Record<string, Cell> = {};
	const id = reviewIdOf({ ...left, picked: [] });
	if (id) row.review_id = id;
	Object.assign(row, { status: 'not_reviewed', answer: '' });
	return { ...row, ...machineSide(left), reviewed_at: left.leftAt, ...runOf(left) };
}

/**
 * The review of one item: `review_id` (one per review, reviewIdOf), `status`, `answer`, `agreed`,
 * `note`, `feedback` (the text sent to the service) as before, then what makes it a labeled item:
 * the decision, its version, the run, the machine's answer, what it was asked (JSON text), when
 * and in which execution. Every value is a text, a number or a yes/no; a value not known is left
 * out (the table keeps it empty).
 */
export function reviewRow(review: ReviewRowInput): Record<string, Cell> {
	const row: Record<string, Cell> = {};
	const id = reviewIdOf(review);
	if (id) row.review_id = id;
	Object.assign(row, {
		status: 'reviewed',
		answer: rowAnswerText(review.picked, review.labels),
		agreed: review.agreed,
	});
	if (review.note) row.note = review.note;
	if (review.feedback) {
		const { value, sent, error } = review.feedback;
		if (typeof value === 'string') row.feedback = value;
		row.feedback_sent = sent === true;
		if (typeof error === 'string' && error) row.feedback_error = error;
	}
	return { ...row, ...machineSide(review), reviewed_at: review.reviewedAt, ...runOf(review) };
}

/** The decision, its version, the run, the machine's answer, why it was shown, what it was asked. */
function machineSide(review: MachineSide): Record<string, Cell> {
	const row: Record<string, Cell> = { decision: review.decision };
	if (review.version !== undefined) row.version = review.version;
	if (review.runId) row.run_id = review.runId;
	if (review.machineStatus) row.machine_status = review.machineStatus;
	if (review.machineAnswer.length || review.labels)
		row.machine_answer = rowAnswerText(review.machineAnswer, review.labels);
	if (review.confidence !== undefined) row.confidence = review.confidence;
	if (review.stratum) row.stratum = review.stratum;
	if (review.stratum === 'audited' && review.auditShare !== undefined)
		row.audit_share = review.auditShare;
	if (review.input !== undefined)
		row.input = typeof review.input === 'string' ? review.input : JSON.stringify(review.input);
	return row;
}

/** The execution and the workflow. */
function runOf(review: MachineSide): Record<string, Cell> {
	const row: Record<string, Cell> = {};
	if (review.executionId) row.execution_id = review.executionId;
	if (review.workflowId) row.workflow_id = review.workflowId;
	return row;
}
