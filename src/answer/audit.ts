/**
 * The audit sample: which confident answers a person also checks. Chosen at random but the same
 * for the same question: a hash of the decision and the input as sent, read as a number in [0, 1),
 * is under the share. A retry, a re-run or another execution asking the same thing picks the same
 * items, so a sample cannot be re-drawn until it looks good, and the share is each item's
 * inclusion probability (Evaluate weighs audited rows by 1 / share). Pure, no n8n.
 */

/**
 * The input as one text that does not depend on the order of an object's keys (n8n and users
 * build objects in any order): keys sorted at every level, own keys only.
 */
export function canonicalText(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const keys = Object.keys(value).sort();
		const record = value as Record<string, unknown>;
		return `{${keys
			.filter((key) => record[key] !== undefined)
			.map((key) => `${JSON.stringify(key)}:${canonicalText(record[key])}`)
			.join(',')}}`;
	}
	// undefined in a list is written null, as JSON does.
	return JSON.stringify(value) ?? 'null';
}

/**
 * FNV-1a over the text's UTF-16 code units, then MurmurHash3's 32-bit finaliser so that every bit
 * of the result depends on every input bit (FNV alone leaves the high bits poorly mixed for short
 * texts), read as a fraction of 2³².
 */
export function uniformOf(text: string): number {
	let hash = 0x811c9dc5;
	for (let at = 0; at < text.length; at++) {
		hash ^= text.charCodeAt(at);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	hash ^= hash >>> 16;
	hash = Math.imul(hash, 0x85ebca6b) >>> 0;
	hash ^= hash >>> 13;
	hash = Math.imul(hash, 0xc2b2ae35) >>> 0;
	hash ^= hash >>> 16;
	return (hash >>> 0) / 2 ** 32;
}

/**
 * The share as a fraction in (0, 1], from the percentage a user sets; 0 for none or a value that
 * is not a number above 0.
 */
export function auditFraction(percent: unknown): number {
	if (typeof percent !== 'number' || !Number.isFinite(percent) || percent <= 0) return 0;
	return Math.min(percent, 100) / 100;
}

/** Whether this decision's answer to this input is in the audit sample at `fraction` (0–1). */
export function inAuditSample(slug: string, input: unknown, fraction: number): boolean {
	if (!(fraction > 0)) return false;
	return uniformOf(canonicalText([slug, input])) < fraction;
}

/** The columns of an audit queue's table (a Data Table the Audit output is stored in). */
export const AUDIT_QUEUE_COLUMNS: ReadonlyArray<{
	name: string;
	type: 'string' | 'number';
}> = [
	{ name: 'audit_id', type: 'string' },
	{ name: 'decision', type: 'string' },
	{ name: 'version', type: 'number' },
	{ name: 'run_id', type: 'string' },
	{ name: 'machine_answer', type: 'string' },
	{ name: 'confidence', type: 'number' },
	{ name: 'audit_share', type: 'number' },
	{ name: 'item', type: 'string' },
	{ name: 'queued_at', type: 'string' },
	{ name: 'execution_id', type: 'string' },
	{ name: 'workflow_id', type: 'string' },
];

export interface AuditQueueInput {
	decision: string;
	version?: number;
	runId: string;
	/** The answer as one text (src/answer/kinds.ts, `answerText`). */
	machineAnswer: string;
	confidence?: number;
	fraction: number;
	/** What a reviewer sees: the fields as sent (a text input as `text`) and the answer, under its field. */
	item: Record<string, unknown>;
	queuedAt: string;
	executionId?: string;
	workflowId?: string;
}

/**
 * One audited answer as one flat row (texts and numbers only: n8n's Data Table stores it as it
 * is). `item` is the item to review as JSON text: an Edit Fields node in JSON mode given
 * `{{ $json.item }}` turns the row back into it, for Review. `audit_id` names the run once.
 */
export function auditQueueRow(audit: AuditQueueInput): Record<string, string | number> {
	const row: Record<string, string | number> = {
		audit_id: `${audit.executionId ?? 'manual'}/${audit.runId}`,
		decision: audit.decision,
	};
	if (audit.version !== undefined) row.version = audit.version;
	row.run_id = audit.runId;
	row.machine_answer = audit.machineAnswer;
	if (audit.confidence !== undefined) row.confidence = audit.confidence;
	row.audit_share = audit.fraction;
	row.item = JSON.stringify(audit.item);
	row.queued_at = audit.queuedAt;
	if (audit.executionId) row.execution_id = audit.executionId;
	if (audit.workflowId) row.workflow_id = audit.workflowId;
	return row;
}
