/**
 * Answers already received in this process, so that n8n re-running Decide in the same execution
 * (Retry On Fail, an agent retrying a tool call) never decides an item again: one decide is one
 * charged unit, whatever happened after it. A failure that may have been charged is remembered
 * too, and fails again without a request. Keyed by execution, node, item and a digest of what was
 * asked (so a changed input is decided anew); bounded in entries and time, oldest dropped first
 * (the process's maps and their limits: docs/what-happens-when.md).
 */
import { createHash } from 'crypto';
import { BoundedCache } from '../../../src/client';
import type { RunAnswer } from '../../../src/contract';

export type MemoOutcome = { run: RunAnswer } | { chargedFailure: Error };

export interface MemoKeyParts {
	executionId: string;
	nodeName: string;
	itemIndex: number;
	/** What the request asks: slug, input, version, engine. */
	request: unknown;
}

export class AnswerMemo {
	private readonly entries: BoundedCache<string, MemoOutcome>;

	constructor(maxEntries = 20_000, ttlMs = 6 * 60 * 60 * 1000, now: () => number = Date.now) {
		this.entries = new BoundedCache({ maxEntries, ttlMs, now });
	}

	static key(parts: MemoKeyParts): string {
		return createHash('sha256')
			.update(JSON.stringify([parts.executionId, parts.nodeName, parts.itemIndex, parts.request]))
			.digest('hex');
	}

	get(key: string): MemoOutcome | undefined {
		return this.entries.get(key);
	}

	set(key: string, outcome: MemoOutcome): void {
		this.entries.set(key, outcome);
	}

	get size(): number {
		return this.entries.size;
	}
}

/** The process's memo, shared by every Decide node (keys carry the execution and node). */
export const answerMemo = new AnswerMemo();
