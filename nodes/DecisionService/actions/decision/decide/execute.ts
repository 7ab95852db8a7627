/**
 * Decide: the shared pipeline (prepare every item, decide up to Max Concurrency; pipeline/), then
 * each answer written on its item and the item put on the outputs outputs/targets.ts says.
 */
import type { IExecuteFunctions, INodeExecutionData, ResourceMapperValue } from 'n8n-workflow';
import { jsonCopy, type RunAnswer } from '../../../../../src/contract';
import { createDecisionClient } from '../../../transport';
import type { DecideNodeOptions } from './description';
import { OUTPUTS_LIST_PARAMETER } from '../../../outputs/list';
import { outputsLayout, singleOutputPlace, type OutputsLayout } from '../../../outputs/layout';
import {
	anomalyOf,
	failedTargets,
	itemPerTarget,
	otherNote,
	targetsFor,
} from '../../../outputs/targets';
import { outputsPlan } from '../../../outputs/plan';
import { answerOf, errorObject, failedItemJson } from '../../../pipeline/item-json';
import { answerToolCall, runsAsTool } from '../../../pipeline/tool';
import { closeCallFields, closeCallOf } from '../../../pipeline/close-calls';
import { addHints, newStats, receiptHints } from '../../../pipeline/receipt';
import { prepareItems, type Prepared } from '../../../pipeline/prepare';
import { decideAll } from '../../../pipeline/decide-all';
import { auditFraction, auditQueueRow, inAuditSample } from '../../../../../src/answer/audit';
import { answerText, kindOfRun } from '../../../../../src/answer/kinds';

/** Audit Share: what picking an item for the audit sample needs besides its run. */
interface AuditSampling {
	/** The share as a fraction (0 = off). */
	fraction: number;
	prepared: Prepared[];
	executionId?: string;
	workflowId?: string;
	queuedAt: string;
}

/**
 * The audit row of a confident answer the sample picks (src/answer/audit.ts), or undefined: an answer
 * that went to Uncertain, Pending Review or Other, or an item outside the sample.
 */
function auditRowOf(
	sampling: AuditSampling,
	itemIndex: number,
	run: RunAnswer,
	answer: Record<string, unknown>,
	resultField: string,
): Record<string, string | number> | undefined {
	const prepared = sampling.prepared[itemIndex];
	if (!sampling.fraction || !prepared || 'error' in prepared) return undefined;
	const kind = kindOfRun(run);
	const keys = kind?.answerOf(run);
	if (run.status !== 'ok' || !kind || !keys || anomalyOf(run) !== undefined) return undefined;
	if (!inAuditSample(prepared.slug, prepared.input, sampling.fraction)) return undefined;
	const asked = prepared.input;
	return auditQueueRow({
		decision: prepared.slug,
		version: run.version,
		runId: run.run_id,
		machineAnswer: answerText(kind, keys),
		confidence: run.confidence,
		fraction: sampling.fraction,
		item: {
			...(typeof asked === 'string' ? { text: asked } : jsonCopy(asked)),
			// The answer as its item carries it: marked, so Review records the row as audited.
			[resultField]: { ...answer, audit_share: sampling.fraction },
		},
		queuedAt: sampling.queuedAt,
		executionId: sampling.executionId,
		workflowId: sampling.workflowId,
	});
}

/**
 * Each result on its outputs. A failed item (continue-on-fail) on Other or All Items, and with
 * n8n's error output also on every output kept where the error output used to be (Route to
 * Outputs and Single Output alike). An item
 * sent to several outputs (classify) is a separate copy on each, so a branch that edits its item
 * cannot change another branch's.
 */
function placeResults(
	items: INodeExecutionData[],
	results: Array<RunAnswer | Error>,
	layout: OutputsLayout | undefined,
	single: ReturnType<typeof singleOutputPlace>,
	options: DecideNodeOptions,
	usesErrorOutput: boolean,
	tally: { closeCalls: number; audited: number },
	sampling: AuditSampling,
): INodeExecutionData[][] {
	const outputs: INodeExecutionData[][] = Array.from(
		{ length: layout ? layout.count : single.count },
		() => [],
	);
	const resultField = options.resultField?.trim() || 'decision';
	results.forEach((result, itemIndex) => {
		const pairedItem = { item: itemIndex };
		const item = items[itemIndex];
		if (result instanceof Error) {
			const failed = layout
				? failedTargets(layout, usesErrorOutput)
				: { other: single.index, keepers: usesErrorOutput ? single.errorKeepers : [] };
			outputs[failed.other].push({
				json: failedItemJson(item, result, usesErrorOutput),
				pairedItem,
			});
			// What n8n's error output would hold: the item's fields and the error.
			for (const keeper of failed.keepers) {
				outputs[keeper].push({
					json: { ...jsonCopy(item.json), error: errorObject(result) },
					pairedItem,
				});
			}
			return;
		}
		const answer = answerOf(result, options.simplify !== false);
		const note = layout ? otherNote(result, layout) : undefined;
		if (note) answer.routing_note = note;
		// Close Call Gap: the two most probable answers within the gap go to Uncertain.
		const close = note ? undefined : closeCallOf(result, layout, options.closeCallGap);
		if (close) {
			Object.assign(answer, closeCallFields(close));
			tally.closeCalls++;
		}
		// Audit Share: a confident answer in the sample is marked, and its row goes to Audit.
		const auditRow =
			note || close ? undefined : auditRowOf(sampling, itemIndex, result, answer, resultField);
		if (auditRow) {
			answer.audit_share = sampling.fraction;
			tally.audited++;
		}
		const json = { ...item.json, [resultField]: answer };
		const targets = layout ? targetsFor(result, layout, close !== undefined) : [single.index];
		for (const [target, each] of itemPerTarget({ json, binary: item.binary, pairedItem }, targets))
			outputs[target].push(each);
		if (auditRow && layout?.audit !== undefined)
			outputs[layout.audit].push({ json: auditRow, pairedItem });
	});
	return outputs;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as DecideNodeOptions;
	const client = await createDecisionClient(this, {
		concurrency: options.concurrency,
		timeoutMs: (options.timeout ?? 15) * 1000,
		maxRateLimitWaitMs: (options.maxRateLimitWait ?? 120) * 1000,
	});
	// A pinned version's fields may differ from the live version's (the only ones GET returns):
	// the service checks them instead, and its 400 is not charged.
	const validate = options.validateInput !== false && !options.version;
	const stats = newStats();
	let prepared: Prepared[] = [];
	const decideEach = async () => {
		prepared = await prepareItems(this, items, client, validate);
		return await decideAll(this, client, prepared, options, stats);
	};
	if (runsAsTool(this)) return await answerToolCall(items, decideEach);
	// Single Output keeps the saved list too (description.ts): its items leave after the kept outputs.
	const routes = this.getNodeParameter(
		OUTPUTS_LIST_PARAMETER,
		0,
		{},
	) as Partial<ResourceMapperValue>;
	const schema = Array.isArray(routes.schema) ? routes.schema : [];
	const layout =
		this.getNodeParameter('outputMode', 0) === 'routeToOutputs' ? outputsLayout(schema) : undefined;
	const single = singleOutputPlace(schema);
	const results = await decideEach();
	const usesErrorOutput = this.getNode().onError === 'continueErrorOutput';
	const tally = { closeCalls: 0, audited: 0 };
	const sampling: AuditSampling = {
		fraction: auditFraction(options.auditShare),
		prepared,
		executionId: this.getExecutionId(),
		workflowId: this.getWorkflow().id,
		queuedAt: new Date().toISOString(),
	};
	const outputs = placeResults(
		items,
		results,
		layout,
		single,
		options,
		usesErrorOutput,
		tally,
		sampling,
	);
	// The receipt: what this run spent and where its items went, as the canvas shows them: n8n
	// moves a failed item (its json only the error) to its own Error output after this returns.
	const names = outputsPlan(this.getNode().parameters).map((output) => output.name || 'Output');
	const movedToError = (each: INodeExecutionData) =>
		usesErrorOutput && Object.keys(each.json).every((key) => key === 'error');
	const shown = outputs.map((each, index) => ({
		name: names[index] ?? `Output ${index}`,
		items: each.filter((item) => !movedToError(item)),
	}));
	shown.push({ name: 'Error', items: outputs.flat().filter(movedToError) });
	addHints(
		this,
		receiptHints(stats, results, shown, tally.closeCalls, {
			picked: tally.audited,
			fraction: sampling.fraction,
			hasOutput: layout?.audit !== undefined,
			single: layout === undefined,
		}),
	);
	return outputs;
}
