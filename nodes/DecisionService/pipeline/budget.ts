/**
 * Max Decides per Execution: how many decides this node has sent in one execution, so items
 * beyond the limit fail before a request (nothing charged). Keyed by execution and node, as
 * answer-memo.ts keys its answers: n8n re-running the node in the same execution (Retry On Fail)
 * continues the count instead of resetting it, and answers it reuses from the memo are not counted
 * again (they were not sent again). Bounded in entries and time, oldest dropped first (the
 * process's maps and their limits: docs/what-happens-when.md).
 */
import { NodeOperationError, type INode } from 'n8n-workflow';
import { BoundedCache } from '../../../src/client';

export class ExecutionBudget {
	/** Decides sent per key; the object is changed in place when one is given back. */
	private readonly spent: BoundedCache<string, { count: number }>;

	constructor(maxEntries = 5_000, ttlMs = 6 * 60 * 60 * 1000, now: () => number = Date.now) {
		this.spent = new BoundedCache({ maxEntries, ttlMs, now });
	}

	static key(executionId: string, nodeName: string): string {
		return JSON.stringify([executionId, nodeName]);
	}

	/** Decides already sent under this key (0 when none or expired). */
	used(key: string): number {
		return this.spent.get(key)?.count ?? 0;
	}

	/** Gives back a decide whose request the service refused without charging it. */
	giveBack(key: string): void {
		const entry = this.spent.get(key);
		if (entry && entry.count > 0) entry.count--;
	}

	/** Takes one decide when fewer than `max` were sent; false when the limit is reached. */
	take(key: string, max: number): boolean {
		const used = this.used(key);
		if (used >= max) return false;
		this.spent.set(key, { count: used + 1 });
		return true;
	}
}

/** The process's budget counter, shared by every Decide node (keys carry the execution and node). */
export const executionBudget = new ExecutionBudget();

/** The error of an item not sent because the execution's limit was reached. */
export function budgetExceededError(
	node: INode,
	itemIndex: number,
	max: number,
): NodeOperationError {
	return new NodeOperationError(node, `Not sent: Max Decides per Execution (${max}) is reached`, {
		itemIndex,
		description:
			'No request was sent for this item, so no quota was spent. Raise Max Decides per Execution (0 = no limit) or split the run.',
	});
}
