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
import { failedTargets, itemPerTarget, otherNote, targetsFor } from '../../../outputs/targets';
import { configuredOutputs } from '../../../outputs/configured';
import { answerOf, errorObject, failedItemJson } from '../../../pipeline/item-json';
import { answerToolCall, runsAsTool } from '../../../pipeline/tool';
import { closeCallFields, closeCallOf } from '../../../pipeline/close-calls';
import { addHints, newStats, receiptHints } from '../../../pipeline/receipt';
import { prepareItems } from '../../../pipeline/prepare';
import { decideAll } from '../../../pipeline/decide-all';

/**
 * Each result on its outputs. A failed item (continue-on-fail) on Other or the only output, and
 * with n8n's error output also on every output kept where the error output used to be. An item
 * sent to several outputs (classify) is a separate copy on each, so a branch that edits its item
 * cannot change another branch's.
 */
function placeResults(
	items: INodeExecutionData[],
	results: Array<RunAnswer | Error>,
	layout: OutputsLayout | undefined,
	single: { index: number; count: number },
	options: DecideNodeOptions,
	usesErrorOutput: boolean,
	closeCalls: { count: number },
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
				: { other: single.index, keepers: [] };
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
			closeCalls.count++;
		}
		const json = { ...item.json, [resultField]: answer };
		const targets = layout ? targetsFor(result, layout, close !== undefined) : [single.index];
		for (const [target, each] of itemPerTarget({ json, binary: item.binary, pairedItem }, targets))
			outputs[target].push(each);
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
	const decideEach = async () =>
		await decideAll(
			this,
			client,
			await prepareItems(this, items, client, validate),
			options,
			stats,
		);
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
	const closeCalls = { count: 0 };
	const outputs = placeResults(
		items,
		results,
		layout,
		single,
		options,
		usesErrorOutput,
		closeCalls,
	);
	// The receipt: what this run spent and where its items went, as the canvas shows them: n8n
	// moves a failed item (its json only the error) to its own Error output after this returns.
	const names = configuredOutputs(this.getNode().parameters).map((output) =>
		typeof output === 'object' && output.displayName ? output.displayName : 'Output',
	);
	const movedToError = (each: INodeExecutionData) =>
		usesErrorOutput && Object.keys(each.json).every((key) => key === 'error');
	const shown = outputs.map((each, index) => ({
		name: names[index] ?? `Output ${index}`,
		items: each.filter((item) => !movedToError(item)),
	}));
	shown.push({ name: 'Error', items: outputs.flat().filter(movedToError) });
	addHints(this, receiptHints(stats, results, shown, closeCalls.count));
	return outputs;
}
