/**
 * The row of an item a person did not review (src/answer/labeled-row.ts, notReviewedRow): the
 * same columns as a reviewed row, `status: 'not_reviewed'`, no answer, and the machine's side as
 * a review of it would have written it, so Evaluate can count the doubtful items not reviewed.
 */
import { LABELED_ROW_COLUMNS, notReviewedRow, reviewRow } from '../../src/answer';

const machine = {
	labels: false,
	decision: 'ticket-routing',
	version: 3,
	runId: 'run_1',
	machineStatus: 'pending',
	machineAnswer: ['billing'],
	confidence: 0.41,
	stratum: 'doubtful' as const,
	input: { subject: 'Invoice and crash' },
	executionId: '12',
	workflowId: 'wf1',
};

describe('notReviewedRow', () => {
	it("the machine's side of a review, no person's answer, the time it was left", () => {
		expect(notReviewedRow({ ...machine, leftAt: '2026-12-07T10:00:00.000Z' })).toEqual({
			review_id: '12/run_1',
			status: 'not_reviewed',
			answer: '',
			decision: 'ticket-routing',
			version: 3,
			run_id: 'run_1',
			machine_status: 'pending',
			machine_answer: 'billing',
			confidence: 0.41,
			stratum: 'doubtful',
			input: '{"subject":"Invoice and crash"}',
			reviewed_at: '2026-12-07T10:00:00.000Z',
			execution_id: '12',
			workflow_id: 'wf1',
		});
	});

	it('has the review_id a review of the same item in that execution has, and only known columns', () => {
		const left = notReviewedRow({ ...machine, leftAt: 'x' });
		const reviewed = reviewRow({ ...machine, picked: ['sales'], agreed: false, reviewedAt: 'x' });
		expect(left.review_id).toBe(reviewed.review_id);
		const columns = new Set(LABELED_ROW_COLUMNS.map((column) => column.name));
		for (const key of Object.keys(left)) expect(columns).toContain(key);
	});

	it('an item with no run: named by what it was asked, as a review is; no guess, no machine_answer', () => {
		const row = notReviewedRow({
			...machine,
			runId: undefined,
			machineAnswer: [],
			machineStatus: 'failed',
			leftAt: 'x',
		});
		expect(row.review_id).toMatch(/^12\/asked-[0-9a-f]{8}$/);
		expect(row).not.toHaveProperty('run_id');
		expect(row).not.toHaveProperty('machine_answer');
		const other = notReviewedRow({ ...machine, runId: undefined, input: 'other', leftAt: 'x' });
		expect(other.review_id).not.toBe(row.review_id);
	});

	it('an audited item left for later keeps its stratum and share', () => {
		const row = notReviewedRow({ ...machine, stratum: 'audited', auditShare: 0.2, leftAt: 'x' });
		expect(row).toEqual(expect.objectContaining({ stratum: 'audited', audit_share: 0.2 }));
	});
});
