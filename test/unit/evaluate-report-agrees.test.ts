import { evaluate, renderReport, type ScoredItem } from '../../src/evaluate';
import { type EvaluationDecision } from '../../src/answer';
import { answerOfRun } from '../support/answers';

// The report's fixed words agree with its own figures (issue 45): the note under the all-traffic
// table says what an audited row of that table stands for, and the chart's legend lists only the
// lines the chart draws.

const decision: EvaluationDecision = { type: 'route', keys: ['billing', 'technical'] };

/** A reviewed row expecting `billing`, right or wrong, in a stratum. */
function row(right: boolean, stratum: 'doubtful' | 'audited', auditShare?: number): ScoredItem {
	const said = right ? 'billing' : 'technical';
	const run =
		stratum === 'doubtful'
			? answerOfRun({
					status: 'uncertain',
					choice: '__uncertain__',
					confidence: 0.4,
					probabilities: right
						? { billing: 0.6, technical: 0.4 }
						: { billing: 0.3, technical: 0.7 },
				})
			: answerOfRun({ status: 'ok', choice: said, confidence: 0.9 });
	return {
		expected: 'billing',
		run,
		charged: 0,
		stratum,
		...(auditShare === undefined ? {} : { auditShare }),
	};
}

/** The text of the note under the all-traffic table. */
function strataNote(html: string): string {
	const table = html.indexOf('<table class="strata">');
	const start = html.indexOf('<p class="note">', table);
	return html.slice(start, html.indexOf('</p>', start)).replace(/<[^>]+>/g, '');
}

describe('the all-traffic note says what the table says', () => {
	it.each([
		[0.2, 'each audited row picked at 20.0% stands for 5 items'],
		[0.05, 'each audited row picked at 5.0% stands for 20 items'],
		[0.3, 'each audited row picked at 30.0% stands for 3.3 items'],
	])('audited at %s', (share, words) => {
		const items = [
			row(true, 'doubtful'),
			row(false, 'doubtful'),
			...Array.from({ length: 4 }, (_, at) => row(at < 3, 'audited', share)),
		];
		const html = renderReport(evaluate(decision, items).metrics);
		expect(html).toContain(`Audited at ${(share * 100).toFixed(1)}%`);
		expect(strataNote(html)).toContain(words);
		expect(strataNote(html)).not.toMatch(/5%, each stands for 20\)|Audit Share of 5%/);
	});

	it('names every share when the share changed mid-way', () => {
		const items = [
			row(true, 'doubtful'),
			row(true, 'audited', 0.5),
			row(false, 'audited', 0.5),
			row(true, 'audited', 0.1),
		];
		const note = strataNote(renderReport(evaluate(decision, items).metrics));
		expect(note).toContain(
			'each audited row picked at 50.0% stands for 2, one picked at 10.0% stands for 10 items',
		);
	});
});

describe("the coverage chart's legend lists only what it draws", () => {
	const legends = (html: string) =>
		[...html.matchAll(/<p class="legend">([\s\S]*?)<\/p>/g)].map((m) =>
			m[1].replace(/<[^>]+>/g, ''),
		);

	it('no recommended threshold: no green line, and no legend for one', () => {
		// Two answered items prove little: nothing is recommended.
		const items = [row(true, 'audited', 1), row(true, 'audited', 1)];
		const { metrics } = evaluate(decision, items);
		expect(metrics.recommended.confidence).toBeNull();
		const html = renderReport(metrics);
		expect(html).not.toContain('data-recommended=');
		expect(legends(html).length).toBeGreaterThan(0);
		for (const legend of legends(html)) {
			expect(legend).toContain('accuracy (band: its 95% interval)');
			expect(legend).not.toContain('lowest threshold');
		}
	});

	it('a recommended threshold: its green line and its legend', () => {
		const items = Array.from({ length: 60 }, () => row(true, 'audited', 1));
		const { metrics } = evaluate(decision, items);
		expect(metrics.recommended.confidence).not.toBeNull();
		const html = renderReport(metrics);
		expect(html).toContain('data-recommended=');
		expect(
			legends(html).some((legend) => legend.includes('lowest threshold surely reaching')),
		).toBe(true);
	});
});
