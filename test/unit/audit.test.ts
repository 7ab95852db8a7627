/**
 * The audit sample (src/answer/audit.ts) and where it shows: the Outputs list's Audit entry, the answer's
 * `audit_share`, and the stratum a review row records.
 */
import type { INodeParameters, ResourceMapperField } from 'n8n-workflow';
import {
	AUDIT_QUEUE_COLUMNS,
	auditFraction,
	auditQueueRow,
	canonicalText,
	inAuditSample,
	uniformOf,
} from '../../src/answer/audit';
import { readAnswer } from '../../src/answer/item-answer';
import { configuredOutputs } from '../../nodes/DecisionService/outputs/plan';
import { outputsLayout, reviewLayout } from '../../nodes/DecisionService/outputs/layout';
import {
	AUDIT_OUTPUT_NAME,
	ENTRY,
	ERROR_KEEPER_NAME,
	forReview,
	freshOutputsList,
	outputsListFor,
} from '../../nodes/DecisionService/outputs/list';
import { strataOf } from '../../nodes/DecisionService/actions/decision/review/labeled-context';
import { reviewRow } from '../../src/answer/labeled-row';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';

const decision = {
	slug: 'ticket-routing',
	type: 'route',
	instructions: 'Which team should handle this support ticket?',
	options: ['billing', 'technical', 'sales', 'account'],
} as Parameters<typeof outputsListFor>[0];

const names = (schema: ResourceMapperField[], extra: INodeParameters = {}) =>
	configuredOutputs({ routes: { schema }, ...extra } as unknown as INodeParameters).map(
		(output) => output.displayName,
	);

describe('the sample', () => {
	it('reads an input the same whatever the order of its keys, own keys only', () => {
		expect(canonicalText({ b: 1, a: [{ y: 2, x: 'é' }] })).toBe(
			canonicalText({ a: [{ x: 'é', y: 2 }], b: 1 }),
		);
		expect(canonicalText({ a: 1 })).not.toBe(canonicalText({ a: '1' }));
		const parsed = JSON.parse('{"__proto__": "x", "constructor": 1}') as object;
		expect(canonicalText(parsed)).toBe('{"__proto__":"x","constructor":1}');
		expect(canonicalText({ a: undefined, b: 2 })).toBe('{"b":2}');
	});

	it('picks the same inputs every time, and about the share of them', () => {
		const inputs = Array.from({ length: 20_000 }, (_, at) => ({ subject: `Ticket ${at}` }));
		const picked = inputs.filter((input) => inAuditSample('ticket-routing', input, 0.05));
		const again = inputs.filter((input) => inAuditSample('ticket-routing', input, 0.05));
		expect(again).toEqual(picked);
		// Binomial(20,000, 0.05): mean 1,000, sd 30.8; these inputs are fixed, so this is exact.
		expect(Math.abs(picked.length - 1000)).toBeLessThan(5 * 30.8);
		// A larger share keeps every item a smaller one picked (the same number under both).
		const more = new Set(
			inputs.filter((input) => inAuditSample('ticket-routing', input, 0.2)).map((i) => i.subject),
		);
		expect(picked.every((input) => more.has(input.subject))).toBe(true);
		// Another decision draws another sample.
		const other = inputs.filter((input) => inAuditSample('lead-scoring', input, 0.05));
		expect(other).not.toEqual(picked);
	});

	it('spreads the hash evenly over [0, 1): every tenth holds about a tenth', () => {
		const tenths = new Array(10).fill(0);
		for (let at = 0; at < 10_000; at++) tenths[Math.floor(uniformOf(`x${at}`) * 10)]++;
		// Chi-square with 9 degrees of freedom: 27.9 is its 99.9th percentile.
		const chi = tenths.reduce((sum, count) => sum + (count - 1000) ** 2 / 1000, 0);
		expect(chi).toBeLessThan(27.9);
	});

	it('reads the share a user sets as a fraction, anything else as none', () => {
		expect(auditFraction(5)).toBe(0.05);
		expect(auditFraction(250)).toBe(1);
		for (const bad of [0, -3, Number.NaN, '5', undefined, null]) expect(auditFraction(bad)).toBe(0);
		expect(inAuditSample('x', {}, 0)).toBe(false);
		expect(inAuditSample('x', {}, 1)).toBe(true);
	});

	it('writes one flat queue row with every column the queue table has', () => {
		const row = auditQueueRow({
			decision: 'ticket-routing',
			version: 2,
			runId: 'run_1',
			machineAnswer: 'billing',
			confidence: 0.93,
			fraction: 0.05,
			item: { subject: 'Refund', decision: { run_id: 'run_1', status: 'ok' } },
			queuedAt: '2026-11-27T10:00:00.000Z',
			executionId: '41',
			workflowId: 'w1',
		});
		expect(Object.keys(row)).toEqual(AUDIT_QUEUE_COLUMNS.map((column) => column.name));
		expect(row.audit_id).toBe('41/run_1');
		expect(JSON.parse(String(row.item))).toEqual({
			subject: 'Refund',
			decision: { run_id: 'run_1', status: 'ok' },
		});
		for (const value of Object.values(row)) expect(['string', 'number']).toContain(typeof value);
	});
});

describe('the Audit output', () => {
	it('is added to a new list when a share is set, after Other', () => {
		expect(names(freshOutputsList(decision))).toEqual([...TICKET_ROUTING_OUTPUTS]);
		expect(names(freshOutputsList(decision, { audit: true }))).toEqual([
			...TICKET_ROUTING_OUTPUTS,
			AUDIT_OUTPUT_NAME,
		]);
	});

	it('is appended to a saved list after a kept error position, so no wire moves', () => {
		const saved = freshOutputsList(decision);
		const merged = outputsListFor(decision, saved, { audit: true });
		expect(names(merged)).toEqual([
			...TICKET_ROUTING_OUTPUTS,
			ERROR_KEEPER_NAME,
			AUDIT_OUTPUT_NAME,
		]);
		// Once there it stays, with or without a share, and is not added twice.
		expect(names(outputsListFor(decision, merged))).toEqual(names(merged));
		expect(names(outputsListFor(decision, merged, { audit: true }))).toEqual(names(merged));
		const layout = outputsLayout(merged);
		expect(layout.audit).toBe(TICKET_ROUTING_OUTPUTS.length + 1);
		expect(layout.errorKeepers).toEqual([TICKET_ROUTING_OUTPUTS.length]);
		expect(outputsLayout(saved).audit).toBeUndefined();
	});

	it('is not one of Review’s outputs: a person’s answer is a key', () => {
		const list = freshOutputsList(decision, { audit: true });
		expect(forReview(list).find((field) => field.id === ENTRY.audit)?.display).toBe(false);
		const review = configuredOutputs({
			operation: 'review',
			routes: { schema: list },
		} as unknown as INodeParameters).map((output) => output.displayName);
		expect(review).not.toContain(AUDIT_OUTPUT_NAME);
		expect(reviewLayout(list).count).toBe(review.length);
	});

	it('deleted from the list keeps its place, empty and marked, and receives nothing', () => {
		const list = freshOutputsList(decision, { audit: true }).map((field) =>
			field.id === ENTRY.audit ? { ...field, removed: true } : field,
		);
		expect(names(list).at(-1)).toBe(`✕ ${AUDIT_OUTPUT_NAME}`);
		expect(outputsLayout(list).audit).toBeUndefined();
	});
});

describe('the answer and the review row', () => {
	const answer = { run_id: 'run_1', status: 'ok', choice: 'billing', confidence: 0.9 };

	it('reads audit_share from the answer, only a share in (0, 1]', () => {
		expect(readAnswer({ ...answer, audit_share: 0.05 })?.auditShare).toBe(0.05);
		for (const bad of [0, 1.5, '0.05', -1])
			expect(readAnswer({ ...answer, audit_share: bad })?.auditShare).toBeUndefined();
	});

	it('says why a person saw the item: audited, doubtful, or neither', () => {
		const item = (decisionField: object) => ({ json: { decision: decisionField } });
		expect(strataOf(item({ ...answer, audit_share: 0.05 }), 'decision')).toEqual({
			stratum: 'audited',
			auditShare: 0.05,
		});
		expect(strataOf(item({ run_id: 'r', status: 'uncertain' }), 'decision')).toEqual({
			stratum: 'doubtful',
		});
		expect(strataOf(item({ run_id: 'r', status: 'pending' }), 'decision').stratum).toBe('doubtful');
		expect(strataOf(item({ ...answer, close_call: true }), 'decision').stratum).toBe('doubtful');
		expect(strataOf(item(answer), 'decision')).toEqual({});
		expect(strataOf({ json: { error: 'x' } }, 'decision')).toEqual({});
		// The answer under another Result Field.
		expect(strataOf({ json: { team: { ...answer, audit_share: 0.1 } } }, 'team').auditShare).toBe(
			0.1,
		);
	});

	it('writes stratum and audit_share on the row, the share only on an audited one', () => {
		const base = {
			picked: ['billing'],
			labels: false,
			agreed: true,
			decision: 'ticket-routing',
			machineAnswer: ['billing'],
			reviewedAt: '2026-11-27T10:00:00.000Z',
		};
		const audited = reviewRow({ ...base, stratum: 'audited', auditShare: 0.05 });
		expect([audited.stratum, audited.audit_share]).toEqual(['audited', 0.05]);
		const doubtful = reviewRow({ ...base, stratum: 'doubtful', auditShare: 0.05 });
		expect([doubtful.stratum, doubtful.audit_share]).toEqual(['doubtful', undefined]);
		expect('stratum' in reviewRow(base)).toBe(false);
	});
});
