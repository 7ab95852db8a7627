/**
 * Close Call Gap (a Decide option): a run whose two most probable answers are within the gap goes
 * to Uncertain instead of its answer's output, with `runner_up` and `gap` on its result. The rule is
 * src/evaluate's `closeCall` (pending stays pending; classify: the label nearest its threshold).
 * Pure: no n8n context.
 */
import type { IDataObject } from 'n8n-workflow';
import type { RunAnswer } from '../../../src/contract';
import { kindOfRun } from '../../../src/answer/kinds';
import { closeCall, type CloseCallJudged } from '../../../src/answer';
import { NO_LABEL_KEY } from '../outputs/list';
import { type OutputsLayout } from '../outputs/layout';

/**
 * The close call of a run answered `ok`, or undefined when it is not one (gap 0 = off, a pending
 * or uncertain run, a run without probabilities). The decision's keys are the saved Outputs list's,
 * in its order (ties follow it).
 */
export function closeCallOf(
	run: RunAnswer,
	layout: OutputsLayout | undefined,
	gap: number | undefined,
): CloseCallJudged | undefined {
	if (!gap || gap <= 0 || run.status !== 'ok') return undefined;
	const kind = kindOfRun(run);
	if (!kind) return undefined;
	const keys = layout ? [...layout.indexOf.keys()].filter((key) => key !== NO_LABEL_KEY) : [];
	const verdict = closeCall(
		{ type: kind.type, keys },
		{ status: run.status, probabilities: run.probabilities, answer: kind.answerOf(run) },
		gap,
	);
	return verdict.verdict === 'close' ? verdict : undefined;
}

/** What a close call adds to the item's result. */
export function closeCallFields(close: CloseCallJudged): IDataObject {
	const fields: IDataObject = { close_call: true, runner_up: close.runnerUp, gap: close.gap };
	if (close.runnerUpRetained !== undefined) fields.runner_up_retained = close.runnerUpRetained;
	return fields;
}
