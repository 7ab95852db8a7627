/**
 * Answers already received in this process, so that n8n re-running Decide in the same execution
 * (Retry On Fail, an agent retrying a tool call) never decides an item again: one decide is one
 * charged unit, whatever happened after it. A failure that may have been charged is remembered
 * too, and fails again without a request. Keyed by execution, node, item and a digest of what was
 * asked (so a changed input is decided anew); bounded in entries and time, oldest dropped first.
 */
import { createHash } from 'crypto';
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
	private readonly entries = new Map<string, { outcome: MemoOutcome; expiresAt: number }>();

	constructor(
		private readonly maxEntries = 20_000,
		private readonly ttlMs = 6 * 60 * 60 * 1000,
		private readonly now: () => number = Date.now,
	) {}

	static key(parts: MemoKeyParts): string {
		return createHash('sha256')
			.update(JSON.stringify([parts.executionId, parts.nodeName, parts.itemIndex, parts.request]))
			.digest('hex');
	}

	get(key: string): MemoOutcome | undefined {
		const entry = this.entries.get(key);
		if (!entry) return undefined;
		if (entry.expiresAt <= this.now()) {
			this.entries.delete(key);
			return undefined;
		}
		return entry.outcome;
	}

	set(key: string, outcome: MemoOutcome): void {
		this.entries.delete(key);
		this.entries.set(key, { outcome, expiresAt: this.now() + this.ttlMs });
		// A Map iterates in insertion order: the first keys are the oldest.
		while (this.entries.size > this.maxEntries) {
			const oldest = this.entries.keys().next().value;
			if (oldest === undefined) break;
			this.entries.delete(oldest);
		}
	}

	get size(): number {
		return this.entries.size;
	}
}

/** The process's memo, shared by every Decide node (keys carry the execution and node). */
export const answerMemo = new AnswerMemo();
