/**
 * The receipt of one Decide run: n8n execution hints shown above the output panel (units charged,
 * items per output, uncertain / pending / fallback counts, personal-data substitutions). Rate-limit
 * waits are not listed: the client does not report the waits of requests that succeeded.
 */
import type { IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';
import type { RunAnswer } from '../../../src/contract';

/** What decideAll did: requests answered by the service, answers reused, items refused locally. */
export interface DecideStats {
	/** Decides that got a run back from the service in this run of the node: one unit each. */
	charged: number;
	/** Answers reused from an earlier try in the same execution (not charged again). */
	reused: number;
	/** Failures after the request left: the service may have charged them. */
	mayHaveBeenCharged: number;
	/** Items not sent because Max Decides per Execution was reached. */
	overBudget: number;
}

export const newStats = (): DecideStats => ({
	charged: 0,
	reused: 0,
	mayHaveBeenCharged: 0,
	overBudget: 0,
});

const plural = (count: number, one: string, many = `${one}s`) =>
	`${count} ${count === 1 ? one : many}`;

/** Audit Share in this run: the answers picked, the share, whether the list has an Audit output. */
export interface AuditTally {
	picked: number;
	fraction: number;
	hasOutput: boolean;
	/** Single Output: one output for every item, so the picked answers are only marked. */
	single?: boolean;
}

/** The receipt's lines, from the stats, the results and the items placed on each named output. */
export function receiptHints(
	stats: DecideStats,
	results: ReadonlyArray<RunAnswer | Error>,
	outputs: ReadonlyArray<{ name: string; items: INodeExecutionData[] }>,
	closeCalls = 0,
	audit: AuditTally = { picked: 0, fraction: 0, hasOutput: false },
): NodeExecutionHint[] {
	const runs = results.filter((result): result is RunAnswer => !(result instanceof Error));
	const failed = results.length - runs.length;
	const count = (status: string) => runs.filter((run) => run.status === status).length;
	const fallback = runs.filter(
		(run) => run.engine === 'llm_fallback' || run.fallback_reason !== undefined,
	).length;
	const pii = runs.reduce(
		(sum, run) => sum + (typeof run.pii_redacted === 'number' ? run.pii_redacted : 0),
		0,
	);
	let charged = `Charged ${plural(stats.charged, 'unit')}`;
	if (stats.reused)
		charged += ` (${stats.reused} answers reused from an earlier try, not charged again)`;
	if (stats.mayHaveBeenCharged)
		charged += `; ${stats.mayHaveBeenCharged} failed after sending and may have been charged`;
	const hints: NodeExecutionHint[] = [
		{ message: `${charged}.`, type: 'info', location: 'outputPane' },
	];
	const perOutput = outputs
		.filter((output) => output.items.length > 0)
		.map((output) => `${output.name} ${output.items.length}`);
	if (perOutput.length) {
		hints.push({
			message: `Items per output: ${perOutput.join(', ')}.`,
			type: 'info',
			location: 'outputPane',
		});
	}
	const statuses = [
		`${count('uncertain')} uncertain`,
		`${count('pending')} pending review`,
		`${fallback} answered by the fallback engine`,
	];
	if (closeCalls) statuses.push(`${plural(closeCalls, 'close call')} sent to Uncertain`);
	if (failed) statuses.push(`${failed} failed`);
	hints.push({ message: `${statuses.join(', ')}.`, type: 'info', location: 'outputPane' });
	if (pii) {
		hints.push({
			message: `Personal data: ${plural(pii, 'substitution')} before the engine saw the input.`,
			type: 'info',
			location: 'outputPane',
		});
	}
	if (audit.fraction > 0) {
		const share = `${Math.round(audit.fraction * 1000) / 10} %`;
		hints.push(
			audit.hasOutput || audit.single
				? {
						message: audit.hasOutput
							? `Audit Share ${share}: ${plural(audit.picked, 'confident answer')} also sent to Audit for a person to check.`
							: `Audit Share ${share}: ${plural(audit.picked, 'confident answer')} marked audit_share (Single Output has no Audit output).`,
						type: 'info',
						location: 'outputPane',
					}
				: {
						message: `Audit Share ${share} is set but there is no Audit output yet: add it with Refresh Output List, in the ⋮ menu beside Output names (${plural(audit.picked, 'answer')} marked audit_share, no copy sent).`,
						type: 'warning',
						location: 'outputPane',
					},
		);
	}
	if (stats.overBudget) {
		hints.push({
			message: `${plural(stats.overBudget, 'item')} not sent: Max Decides per Execution reached (not charged).`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	return hints;
}

/** Adds the hints where n8n has execution hints (n8n 1.x builds without them: nothing shown). */
export function addHints(context: IExecuteFunctions, hints: NodeExecutionHint[]): void {
	const add = (context as Partial<Pick<IExecuteFunctions, 'addExecutionHints'>>).addExecutionHints;
	if (typeof add === 'function' && hints.length) add.call(context, ...hints);
}
