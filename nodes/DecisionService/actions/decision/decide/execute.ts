/**
 * Decide: prepare every item (anything that fails locally fails before a request, so it spends no
 * quota), decide the prepared ones a few at a time, then put each answer on its outputs.
 */
import {
	NodeOperationError,
	deepCopy,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type ResourceMapperValue,
} from 'n8n-workflow';
import { forEachBounded, type DecisionClient } from '../../../../../src/client';
import { validateDecideInput, type Decision, type Run } from '../../../../../src/contract';
import { toNodeError } from '../../../errors';
import { createDecisionClient } from '../../../transport';
import type { DecideNodeOptions } from './description';
import { inputFor, slugOf, type DecideInput } from './input';
import { answerOf, itemPerTarget, routeLayout, targetsFor, type RouteLayout } from './routing';
import { answerToolCall, runsAsTool } from './tool';

type Prepared = { slug: string; input: DecideInput } | { error: Error };

/** The problems of an input against its decision's declared fields, as one error naming the item. */
function validationError(
	context: IExecuteFunctions,
	decision: Decision,
	input: DecideInput,
	itemIndex: number,
): NodeOperationError | undefined {
	const problems = validateDecideInput(decision.context.fields, input);
	if (!problems.length) return undefined;
	const listed = problems
		.map((problem) => `field "${problem.field.replace(/^input\./, '')}" ${problem.message}`)
		.join('; ');
	return new NodeOperationError(context.getNode(), `Item ${itemIndex}: ${listed}`, {
		itemIndex,
		description: `Decision "${decision.slug}" declares these fields. No request was sent for this item, so no quota was spent.`,
	});
}

/** Every item's slug and input, checked against its decision unless the user turned that off. */
async function prepareItems(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	client: DecisionClient,
	validate: boolean,
): Promise<Prepared[]> {
	const continueOnFail = context.continueOnFail();
	const decisions = new Map<string, Promise<Decision>>();
	const prepared: Prepared[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const slug = slugOf(context, itemIndex);
			if (!slug) {
				throw new NodeOperationError(context.getNode(), `Item ${itemIndex}: no decision selected`, {
					itemIndex,
				});
			}
			const input = inputFor(context, items[itemIndex], itemIndex);
			if (validate) {
				if (!decisions.has(slug)) decisions.set(slug, client.getDecision(slug));
				const invalid = validationError(context, await decisions.get(slug)!, input, itemIndex);
				if (invalid) throw invalid;
			}
			prepared.push({ slug, input });
		} catch (error) {
			const nodeError = toNodeError(context.getNode(), error, itemIndex);
			if (!continueOnFail) throw nodeError;
			prepared.push({ error: nodeError });
		}
	}
	return prepared;
}

/**
 * One run (or error) per prepared item, `concurrency` at a time. After a failure without
 * continue-on-fail nothing more is sent; Stop aborts requests in flight and rate-limit waits, and
 * no item starts after it.
 */
async function decideAll(
	context: IExecuteFunctions,
	client: DecisionClient,
	prepared: Prepared[],
	options: DecideNodeOptions,
): Promise<Array<Run | Error>> {
	const continueOnFail = context.continueOnFail();
	const signal = context.getExecutionCancelSignal();
	const requestOptions = {
		version: options.version ? options.version : undefined,
		engine: options.engine && options.engine !== 'auto' ? options.engine : undefined,
		signal,
	};
	const results = new Array<Run | Error>(prepared.length);
	let firstFailure: Error | undefined;
	await forEachBounded(
		prepared.length,
		options.concurrency ?? 5,
		async (itemIndex) => {
			const entry = prepared[itemIndex];
			if ('error' in entry) {
				results[itemIndex] = entry.error;
				return;
			}
			try {
				results[itemIndex] = await client.decide(entry.slug, entry.input, requestOptions);
			} catch (error) {
				const nodeError = toNodeError(context.getNode(), error, itemIndex);
				if (!continueOnFail) firstFailure ??= nodeError;
				results[itemIndex] = nodeError;
			}
		},
		() => firstFailure !== undefined || signal?.aborted === true,
	);
	if (firstFailure) throw firstFailure;
	return results;
}

/**
 * Each result on its outputs (failed items, under continue-on-fail, on Other or the only output,
 * and, with n8n's error output, also on every output kept where the error output used to be).
 * An item sent to several outputs (classify) is a separate copy on each, so a branch that edits
 * its item cannot change another branch's.
 */
function placeResults(
	items: INodeExecutionData[],
	results: Array<Run | Error>,
	layout: RouteLayout | undefined,
	options: DecideNodeOptions,
	usesErrorOutput: boolean,
): INodeExecutionData[][] {
	const outputs: INodeExecutionData[][] = Array.from(
		{ length: layout ? layout.count : 1 },
		() => [],
	);
	const resultField = options.resultField?.trim() || 'decision';
	results.forEach((result, itemIndex) => {
		const pairedItem = { item: itemIndex };
		if (result instanceof Error) {
			outputs[layout ? layout.other : 0].push({ json: { error: result.message }, pairedItem });
			// What n8n's error output would hold: the item's fields and the error.
			for (const keeper of layout && usesErrorOutput ? layout.errorKeepers : []) {
				outputs[keeper].push({
					json: { ...deepCopy(items[itemIndex].json), error: result.message },
					pairedItem,
				});
			}
			return;
		}
		const answer = answerOf(result, options.simplify === true);
		const json: IDataObject = { ...items[itemIndex].json, [resultField]: answer };
		const binary = items[itemIndex].binary;
		const targets = layout ? targetsFor(result, layout) : [0];
		for (const [target, item] of itemPerTarget({ json, binary, pairedItem }, targets)) {
			outputs[target].push(item);
		}
	});
	return outputs;
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as DecideNodeOptions;
	const client = await createDecisionClient(this, {
		concurrency: options.concurrency ?? 5,
		timeoutMs: (options.timeout ?? 15) * 1000,
		maxRateLimitWaitMs: (options.maxRateLimitWait ?? 120) * 1000,
	});
	const decideEach = async () =>
		await decideAll(
			this,
			client,
			await prepareItems(this, items, client, options.validateInput !== false),
			options,
		);
	if (runsAsTool(this)) return await answerToolCall(items, decideEach);
	let layout: RouteLayout | undefined;
	if (this.getNodeParameter('outputMode', 0) === 'routeToOutputs') {
		const routes = this.getNodeParameter('routes', 0) as ResourceMapperValue;
		layout = routeLayout(routes.schema ?? []);
	}
	const results = await decideEach();
	const usesErrorOutput = this.getNode().onError === 'continueErrorOutput';
	return placeResults(items, results, layout, options, usesErrorOutput);
}
