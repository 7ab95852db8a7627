/**
 * The answer on an item: a contract between nodes. Decide writes it with `writeAnswer` (Simplify
 * on: the compact answer; off: the whole run); Evaluate, Review, Send Feedback and the next user's
 * expressions read it back with `readAnswer`, whichever way it was written. Both ways carry what
 * the loop needs: the run, its status, the answer (status ok) or the machine's guess as
 * `suggestion` (uncertain, pending), the level of a score, the probabilities, the confidence, the
 * engine and model. Pure, no n8n; what it reads is untrusted (a user's Code node may have edited it).
 */
import { jsonCopy, ownObject, ownValue, type RunAnswer } from '../contract';
import { guessOf, kindOf, kindOfRun, probabilityEntries, type Kind } from './kinds';

/** An answer as written on an item: JSON. */
export type WrittenAnswer = Record<string, unknown>;

/** An item's answer as the loop reads it. */
export interface ItemAnswer {
	runId: string;
	/** `ok`, `uncertain`, `pending`, or a status this package does not know. */
	status: string;
	/** The decision's kind, when it was given or the answer shows it. */
	kind?: Kind;
	/** The service's answer, as keys: only on a run answered `ok`. */
	answer?: string[];
	/**
	 * The answer, or on a run without one the machine's guess (the most probable option or level,
	 * none on a tie at the top; the labels over their threshold).
	 */
	guess?: string[];
	/** route and score: the level or option written; score: the 0–100 score. */
	score?: number;
	confidence?: number;
	/** Own keys, finite numbers only. */
	probabilities: Record<string, number>;
	confidenceSource?: string;
	engine?: string;
	model?: string;
	reviewUrl?: string;
	/** Decide's Close Call Gap sent it to Uncertain: the runner-up and the gap. */
	closeCall?: { runnerUp?: string; gap?: number };
	/** Why Decide sent it to Other, when it did. */
	routingNote?: string;
	/** Decide's Audit Share picked this confident answer for a person to check, at this share (0–1). */
	auditShare?: number;
}

const asString = (value: unknown): string | undefined =>
	typeof value === 'string' && value !== '' ? value : undefined;
const asNumber = (value: unknown): number | undefined =>
	typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/**
 * What Decide writes on an item. Compact (Simplify, the default): the run ID and status, the answer
 * only on a run answered `ok` (`choice`; `score` and `level`; `labels`), else the machine's guess
 * as `suggestion` so nobody acts on it as the answer; then confidence, probabilities, engine,
 * model and the review link. Whole run: every field the service sent, with `level` for a score and
 * `suggestion` on a run without an answer.
 */
export function writeAnswer(run: RunAnswer, simplify: boolean): WrittenAnswer {
	const kind = kindOfRun(run);
	const given = kind?.answerOf(run);
	const guess = kind ? guessOf(kind, run) : undefined;
	const suggestion =
		run.status !== 'ok' && guess !== undefined && kind ? { suggestion: kind.shown(guess) } : {};
	if (!simplify) {
		const whole: WrittenAnswer = jsonCopy({ ...run });
		// The whole run gains the fields it lacks (a score's level); its own stay as sent.
		if (kind && given)
			for (const [name, each] of Object.entries(kind.fields(given, run))) whole[name] ??= each;
		return { ...whole, ...suggestion };
	}
	const answer: WrittenAnswer = { run_id: run.run_id, status: run.status };
	if (run.status === 'ok' && kind && given) Object.assign(answer, kind.fields(given, run));
	Object.assign(answer, suggestion);
	if (run.confidence !== undefined) answer.confidence = run.confidence;
	const probabilities = probabilityEntries(run);
	if (probabilities.length) answer.probabilities = ownObject(probabilities);
	if (run.engine !== undefined) answer.engine = run.engine;
	if (run.model !== undefined) answer.model = run.model;
	if (run.review_url !== undefined) answer.review_url = run.review_url;
	return answer;
}

/** A suggestion written as a key or a list of keys. */
function keysOf(value: unknown): string[] | undefined {
	if (typeof value === 'string') return value === '' ? undefined : [value];
	if (Array.isArray(value)) return value.filter((key): key is string => typeof key === 'string');
	return undefined;
}

/**
 * An item's answer read back, compact or whole: undefined when the field holds no answer (no run
 * ID or status). `type`: the decision's type when the reader knows it (it tells a compact
 * uncertain answer's kind); `keys`: the decision's keys (a classify guess lists its labels in their
 * order). A tie at the top of the probabilities is no guess (src/answer/kinds.ts, `leaningOf`).
 */
export function readAnswer(
	value: unknown,
	type?: unknown,
	keys?: readonly string[],
): ItemAnswer | undefined {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
	const runId = asString(ownValue(value, 'run_id'));
	const status = asString(ownValue(value, 'status'));
	if (runId === undefined || status === undefined) return undefined;
	const fields = {
		status,
		choice: ownValue(value, 'choice'),
		raw_score: ownValue(value, 'raw_score'),
		legend: ownValue(value, 'legend'),
		score: ownValue(value, 'score'),
		labels: ownValue(value, 'labels'),
		probabilities: ownValue(value, 'probabilities'),
		level: ownValue(value, 'level'),
	};
	const suggestion = keysOf(ownValue(value, 'suggestion'));
	const kind =
		kindOf(type) ??
		kindOfRun(fields) ??
		(Array.isArray(ownValue(value, 'suggestion')) ? kindOf('classify') : undefined);
	// The whole run gives its level through raw_score and legend; the compact answer writes it.
	let given = kind?.answerOf(fields);
	if (given === undefined && kind?.word === 'level' && asString(fields.level))
		given = [fields.level as string];
	const read: ItemAnswer = {
		runId,
		status,
		...(kind ? { kind } : {}),
		probabilities: ownObject(probabilityEntries(fields)),
	};
	if (status === 'ok' && given !== undefined) read.answer = given;
	const guess = given ?? suggestion ?? kind?.leaningOf(fields, keys);
	if (guess !== undefined) read.guess = guess;
	const score = asNumber(fields.score);
	if (score !== undefined) read.score = score;
	const confidence = asNumber(ownValue(value, 'confidence'));
	if (confidence !== undefined) read.confidence = confidence;
	const text = (name: string) => asString(ownValue(value, name));
	const optional: Array<[keyof ItemAnswer, string | undefined]> = [
		['confidenceSource', text('confidence_source')],
		['engine', text('engine')],
		['model', text('model')],
		['reviewUrl', text('review_url')],
		['routingNote', text('routing_note')],
	];
	for (const [name, each] of optional)
		if (each !== undefined) Object.assign(read, { [name]: each });
	const auditShare = asNumber(ownValue(value, 'audit_share'));
	if (auditShare !== undefined && auditShare > 0 && auditShare <= 1) read.auditShare = auditShare;
	if (ownValue(value, 'close_call') === true) {
		read.closeCall = {
			runnerUp: asString(ownValue(value, 'runner_up')),
			gap: asNumber(ownValue(value, 'gap')),
		};
	}
	return read;
}
