/**
 * The second step: one run (or error) per prepared item, up to Max Concurrency at a time, each
 * answer remembered for n8n's retries and counted against Max Decides per Execution.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { DecisionServiceError, forEachBounded, type DecisionClient } from '../../../src/client';
import type { RunAnswer } from '../../../src/contract';
import { toNodeError } from '../errors';
import { AnswerMemo, answerMemo } from './answer-memo';
import { ExecutionBudget, budgetExceededError, executionBudget } from './budget';
import type { Prepared } from './prepare';
import { newStats, type DecideStats } from './receipt';

/** What a decide is asked with: Decide's options of the same names. */
export interface DecideSettings {
	/** A pinned version; 0 or absent runs the live one. */
	version?: number;
	engine?: 'auto' | 'jev' | 'llm';
	/** Max Decides per Execution; 0 or absent: no limit. */
	maxDecides?: number;
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
	options: DecideSettings,
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
