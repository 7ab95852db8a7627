/**
 * Decide: prepare every item (anything that fails locally fails before a request, so it spends no
 * quota), decide the prepared ones up to Max Concurrency at a time (the key's rate gate sends what
 * the plan's window has left and holds the rest for the reset), then put each answer on its outputs.
 */
import {
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type ResourceMapperValue,
} from 'n8n-workflow';
import {
	DecisionServiceError,
	forEachBounded,
	type DecisionClient,
	type RecentDecision,
} from '../../../../../src/client';
import { jsonCopy, type Decision, type RunAnswer } from '../../../../../src/contract';
import { validateDecideInput } from '../../../../../src/contract/validation';
import { toNodeError } from '../../../errors';
import { createDecisionClient } from '../../../transport';
import type { DecideNodeOptions } from './description';
import { inputFor, slugOf, type DecideInput } from './input';
import { AnswerMemo, answerMemo } from './answer-memo';
import { errorObject, failedItemJson } from './failed-item';
import { answerOf, itemPerTarget, otherNote, targetsFor } from './routing';
import { OUTPUTS_LIST_PARAMETER, outputsLayout, type OutputsLayout } from '../../../outputs-list';
import { answerToolCall, runsAsTool } from './tool';
import { ExecutionBudget, budgetExceededError, executionBudget } from './budget';
import { closeCallFields, closeCallOf } from './close-calls';
import { addHints, newStats, receiptHints, type DecideStats } from './receipt';
import { configuredOutputs } from '../../../expressions';

export type Prepared = { slug: string; input: DecideInput } | { error: Error };

/** The problems of an input against its decision's declared fields, as one error naming the item. */
function validationError(
	n8n: IExecuteFunctions,
	decision: Decision,
	input: DecideInput,
	itemIndex: number,
): NodeOperationError | undefined {
	const problems = validateDecideInput(decision.context.fields, input);
	if (!problems.length) return undefined;
	const listed = problems
		.map((problem) => `field "${problem.field.replace(/^input\./, '')}" ${problem.message}`)
		.join('; ');
	return new NodeOperationError(n8n.getNode(), listed.charAt(0).toUpperCase() + listed.slice(1), {
		itemIndex,
		description: `Decision "${decision.slug}" declares these fields. No request was sent for this item, so no quota was spent.`,
	});
}

/**
 * Every item's slug and input, checked against its decision unless the user turned that off.
 * `skip` (Evaluate): items that need no decide get that error entry instead, and are not read.
 * Every item is read first and each decision asked for as soon as its slug is known, so the
 * round trip overlaps the reading of the other items; the checks then go in item order, so
 * without continue-on-fail the first item that fails is the one reported. A decision reused from
 * an earlier execution is fetched again before an input is refused against it; one kept for over a
 * minute serves the checks and is fetched again beside the run, once the checks are done (so no run
 * waits for that read: recent-decisions.ts).
 */
export async function prepareItems(
	n8n: IExecuteFunctions,
	items: INodeExecutionData[],
	client: DecisionClient,
	validate: boolean,
	skip?: (itemIndex: number) => Error | undefined,
): Promise<Prepared[]> {
	const continueOnFail = n8n.continueOnFail();
	const decisions = new Map<string, RecentDecision>();
	const read: Array<Prepared | { skipped: Error }> = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const skipped = skip?.(itemIndex);
		if (skipped) {
			read.push({ skipped });
			continue;
		}
		try {
			const slug = slugOf(n8n, itemIndex);
			if (!slug) {
				throw new NodeOperationError(n8n.getNode(), 'No decision selected', {
					itemIndex,
				});
			}
			const input = inputFor(n8n, items[itemIndex], itemIndex);
			if (validate && !decisions.has(slug)) {
				const asked = client.recentDecision(slug);
				// Awaited below, in item order; until then a failure must not go unhandled.
				asked.decision.catch(() => undefined);
				decisions.set(slug, asked);
			}
			read.push({ slug, input });
		} catch (error) {
			read.push({ error: toNodeError(n8n.getNode(), error, itemIndex) });
			// Without continue-on-fail this item fails the node unless an earlier one fails its check.
			if (!continueOnFail) break;
		}
	}
	const prepared: Prepared[] = [];
	for (let itemIndex = 0; itemIndex < read.length; itemIndex++) {
		const entry = read[itemIndex];
		if ('skipped' in entry) {
			prepared.push({ error: entry.skipped });
			continue;
		}
		try {
			if ('error' in entry) throw entry.error;
			if (validate) {
				let asked = decisions.get(entry.slug)!;
				let invalid = validationError(n8n, await asked.decision, entry.input, itemIndex);
				if (invalid && asked.reused) {
					asked = client.recentDecision(entry.slug, true);
					decisions.set(entry.slug, asked);
					invalid = validationError(n8n, await asked.decision, entry.input, itemIndex);
				}
				if (invalid) throw invalid;
			}
			prepared.push(entry);
		} catch (error) {
			const nodeError = toNodeError(n8n.getNode(), error, itemIndex);
			if (!continueOnFail) throw nodeError;
			prepared.push({ error: nodeError });
		}
	}
	for (const asked of decisions.values()) asked.refresh?.();
	return prepared;
}

/**
 * One run (or error) per prepared item, up to Max Concurrency at a time; the client's rate gate
 * lets through what the key's window has left and holds the rest. After a failure without
 * continue-on-fail nothing more is sent; Stop aborts requests in flight and rate-limit waits, and
 * no item starts after it.
 */
export async function decideAll(
	n8n: IExecuteFunctions,
	client: DecisionClient,
	prepared: Prepared[],
	options: DecideNodeOptions,
	stats: DecideStats = newStats(),
): Promise<Array<RunAnswer | Error>> {
	const continueOnFail = n8n.continueOnFail();
	const signal = n8n.getExecutionCancelSignal();
	const asked = {
		version: options.version ? options.version : undefined,
		engine: options.engine && options.engine !== 'auto' ? options.engine : undefined,
	};
	const requestOptions = { ...asked, signal };
	const results = new Array<RunAnswer | Error>(prepared.length);
	const executionId = n8n.getExecutionId();
	const nodeName = n8n.getNode().name;
	const maxDecides = options.maxDecides && options.maxDecides > 0 ? options.maxDecides : 0;
	const budgetKey = ExecutionBudget.key(executionId, nodeName);
	let firstFailure: Error | undefined;
	const fail = (itemIndex: number, error: unknown) => {
		const nodeError = toNodeError(n8n.getNode(), error, itemIndex);
		if (!continueOnFail) firstFailure ??= nodeError;
		results[itemIndex] = nodeError;
	};
	await forEachBounded(
		prepared.length,
		client.maxConcurrency,
		async (itemIndex) => {
			const entry = prepared[itemIndex];
			if ('error' in entry) {
				results[itemIndex] = entry.error;
				return;
			}
			const key = AnswerMemo.key({
				executionId,
				nodeName,
				itemIndex,
				request: { slug: entry.slug, input: entry.input, ...asked },
			});
			const remembered = answerMemo.get(key);
			if (remembered) {
				stats.reused++;
				if ('run' in remembered) results[itemIndex] = remembered.run;
				else fail(itemIndex, remembered.chargedFailure);
				return;
			}
			// Max Decides per Execution: counted per execution, so a retry continues the count.
			if (maxDecides && !executionBudget.take(budgetKey, maxDecides)) {
				stats.overBudget++;
				fail(itemIndex, budgetExceededError(n8n.getNode(), itemIndex, maxDecides));
				return;
			}
			try {
				const run = await client.decide(entry.slug, entry.input, requestOptions);
				answerMemo.set(key, { run });
				stats.charged++;
				results[itemIndex] = run;
			} catch (error) {
				// Not sent again in this execution: the service may have run (and charged) it.
				if (error instanceof DecisionServiceError && error.mayHaveBeenCharged) {
					answerMemo.set(key, { chargedFailure: error });
					stats.mayHaveBeenCharged++;
				} else if (maxDecides && error instanceof DecisionServiceError) {
					// Refused without a charge (a 400, a 429): it does not count against the limit.
					executionBudget.giveBack(budgetKey);
				}
				fail(itemIndex, error);
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
	results: Array<RunAnswer | Error>,
	layout: OutputsLayout | undefined,
	options: DecideNodeOptions,
	usesErrorOutput: boolean,
	closeCalls: { count: number } = { count: 0 },
): INodeExecutionData[][] {
	const outputs: INodeExecutionData[][] = Array.from(
		{ length: layout ? layout.count : 1 },
		() => [],
	);
	const resultField = options.resultField?.trim() || 'decision';
	results.forEach((result, itemIndex) => {
		const pairedItem = { item: itemIndex };
		const item = items[itemIndex];
		if (result instanceof Error) {
			outputs[layout ? layout.other : 0].push({
				json: failedItemJson(item, result, usesErrorOutput),
				pairedItem,
			});
			// What n8n's error output would hold: the item's fields and the error.
			for (const keeper of layout && usesErrorOutput ? layout.errorKeepers : []) {
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
		const targets = layout ? (close ? [layout.uncertain] : targetsFor(result, layout)) : [0];
		for (const [target, each] of itemPerTarget(
			{ json, binary: item.binary, pairedItem },
			targets,
		)) {
			outputs[target].push(each);
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
	let layout: OutputsLayout | undefined;
	if (this.getNodeParameter('outputMode', 0) === 'routeToOutputs') {
		const routes = this.getNodeParameter(OUTPUTS_LIST_PARAMETER, 0) as ResourceMapperValue;
		layout = outputsLayout(routes.schema ?? []);
	}
	const results = await decideEach();
	const usesErrorOutput = this.getNode().onError === 'continueErrorOutput';
	const closeCalls = { count: 0 };
	const outputs = placeResults(items, results, layout, options, usesErrorOutput, closeCalls);
	// The receipt: what this run spent and where its items went, as n8n execution hints.
	const names = layout
		? configuredOutputs(this.getNode().parameters).map((output, index) =>
				typeof output === 'object' && output.displayName ? output.displayName : `Output ${index}`,
			)
		: ['Output'];
	addHints(
		this,
		receiptHints(
			stats,
			results,
			outputs.map((each, index) => ({ name: names[index] ?? `Output ${index}`, items: each })),
			closeCalls.count,
		),
	);
	return outputs;
}
