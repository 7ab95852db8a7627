import { readFileSync } from 'node:fs';
import { answerOfRun } from '../support/answers';
import { join } from 'node:path';
import { UNCERTAIN_CHOICE } from '../../src/contract';
import { evaluate, type ScoredItem } from '../../src/evaluate';
import {} from '../../src/answer';
import { flattenText, modelOf, runEngine } from '../../sandbox/engine';
import { SEED_DECISIONS } from '../../sandbox/seed';
import {
	isMislabeled,
	makeLabeledSet,
	SIZE,
	TEAMS,
	toCsv,
	toReviewsCsv,
} from '../../scripts/make-labeled-set';
import { LABELED_ROW_COLUMNS } from '../../src/answer';
import type { ItemAnswer } from '../../src/answer/item-answer';
import type { Prepared } from '../../nodes/DecisionService/pipeline/prepare';
import {
	NotAsked,
	badRowText,
	expectedCell,
	repeatsOf,
	unscoredOf,
} from '../../nodes/DecisionService/actions/decision/evaluate/inputs';

// The labeled set of examples/ticket-routing-labeled.csv, run through the sandbox's own engine
// (sandbox/engine.ts, the jev engine the demo decision `ticket-routing` answers with), then
// through evaluate(): the same figures the Evaluate operation would show on the sandbox.

const CSV = join(__dirname, '..', '..', 'examples', 'ticket-routing-labeled.csv');

/** RFC 4180 rows (quoted fields, doubled quotes). */
function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let field = '';
	let quoted = false;
	for (let i = 0; i < text.length; i += 1) {
		const c = text[i];
		if (quoted) {
			if (c === '"' && text[i + 1] === '"') {
				field += '"';
				i += 1;
			} else if (c === '"') quoted = false;
			else field += c;
		} else if (c === '"') quoted = true;
		else if (c === ',') {
			row.push(field);
			field = '';
		} else if (c === '\n') {
			row.push(field);
			rows.push(row);
			row = [];
			field = '';
		} else field += c;
	}
	if (field || row.length) rows.push([...row, field]);
	return rows;
}

const ticketRouting = SEED_DECISIONS.find((d) => d.slug === 'ticket-routing');
if (!ticketRouting?.options || !Array.isArray(ticketRouting.options)) {
	throw new Error('the seed has no ticket-routing decision');
}
const definition = {
	type: 'route' as const,
	instructions: ticketRouting.instructions,
	items: (ticketRouting.options as Array<{ key: string; description: string }>).map((o) => ({
		key: o.key,
		description: o.description,
	})),
};
const THRESHOLD = ticketRouting.confidence_threshold ?? 0.6;

describe('the labeled ticket set', () => {
	const text = readFileSync(CSV, 'utf8');
	const [header, ...rows] = parseCsv(text);

	it('is what scripts/make-labeled-set.ts generates (seeded, byte for byte)', () => {
		expect(text).toBe(toCsv(makeLabeledSet()));
		expect(header).toEqual(['id', 'subject', 'body', 'expected']);
		expect(rows).toHaveLength(SIZE);
		expect(SIZE).toBeGreaterThanOrEqual(200);
		for (const team of TEAMS) expect(rows.filter((r) => r[3] === team).length).toBeGreaterThan(50);
		const tickets = makeLabeledSet();
		const mislabeled = tickets.filter((t) => t.expected !== t.truth).map((t) => t.id);
		expect(mislabeled).toEqual([8, 29, 50, 71, 92, 113, 134, 155, 176, 197, 218, 239]);
		expect(mislabeled.every(isMislabeled)).toBe(true);
		// the .md lists the same rows
		const md = readFileSync(CSV.replace(/\.csv$/, '.md'), 'utf8');
		for (const id of mislabeled) expect(md).toMatch(new RegExp(`\\|\\s*${id}\\s*\\|`));
	});

	it("ships in the reviews table's columns too: the same tickets, one row each, a key per row", () => {
		const reviewsText = readFileSync(CSV.replace(/\.csv$/, '-reviews.csv'), 'utf8');
		expect(reviewsText).toBe(toReviewsCsv(makeLabeledSet()));
		const [columns, ...reviewRows] = parseCsv(reviewsText);
		expect(columns).toEqual(['review_id', 'status', 'answer', 'decision', 'input']);
		// Every column is one of the table's, with its type text.
		for (const column of columns)
			expect(LABELED_ROW_COLUMNS.find((each) => each.name === column)?.type).toBe('string');
		expect(reviewRows).toHaveLength(SIZE);
		expect(new Set(reviewRows.map((row) => row[0])).size).toBe(SIZE);
		reviewRows.forEach(([reviewId, status, answer, decision, input], index) => {
			const [id, subject, body, expected] = rows[index];
			expect({ reviewId, status, answer, decision }).toEqual({
				reviewId: `labeled-set/${id}`,
				status: 'labeled',
				answer: expected,
				decision: 'ticket-routing',
			});
			expect(JSON.parse(input)).toEqual({ subject, body });
		});
	});

	it('is routed mostly right by the sandbox engine; evaluate() measures it', () => {
		const items: ScoredItem[] = rows.map(([, subject, body, expected]) => {
			const result = runEngine(definition, flattenText({ subject, body }), 'jev');
			// As the sandbox does for a Free account (uncertain_branch): below the threshold → uncertain.
			const uncertain = result.confidence < THRESHOLD;
			return {
				expected,
				charged: 1,
				run: answerOfRun({
					status: uncertain ? 'uncertain' : 'ok',
					choice: uncertain ? UNCERTAIN_CHOICE : result.choice,
					probabilities: result.probabilities,
					confidence: result.confidence,
					confidence_source: 'calibrated',
					engine: 'jev',
					model: modelOf('jev'),
				}),
			};
		});
		const { metrics, problems } = evaluate(
			{ type: 'route', keys: definition.items.map((i) => i.key) },
			items,
			{ targetAccuracy: 0.95 },
		);
		expect(problems).toEqual([]);
		// Against the true teams (the mislabeled rows put back), for the record.
		const truth = makeLabeledSet();
		const truthMetrics = evaluate(
			{ type: 'route', keys: definition.items.map((i) => i.key) },
			items.map((item, i) => ({ ...item, expected: truth[i].truth })),
		).metrics;
		// Deterministic engine, deterministic set: exact figures (docs in examples/ticket-routing-labeled.md).
		// 220 of 240 answered (20 uncertain: the vague tickets mostly); 207 of 220 match the labels,
		// 217 of 220 the true teams (the 10 more are mislabeled rows the engine answered right).
		expect(metrics.answered).toBe(220);
		expect(metrics.accuracy).toBe(207 / 220);
		expect(truthMetrics.accuracy).toBe(217 / 220);
		// 0.80 keeps 211 tickets at 95.3 %, but its 95 % interval starts at 91.5 %: on 240 tickets
		// no confidence surely reaches 95 % (src/evaluate/stats.ts), so none is recommended.
		expect(metrics.recommended.confidence).toBeNull();
		expect(metrics.recommended.notYet.confidence).toMatchObject({ threshold: 0.8, items: 211 });
		// Against 90 %, the answers surely reach it as they are (Wilson 90.2–96.5 %): threshold 0.
		const ninety = evaluate({ type: 'route', keys: definition.items.map((i) => i.key) }, items, {
			targetAccuracy: 0.9,
		}).metrics;
		expect(ninety.recommended.confidence).toMatchObject({ threshold: 0, count: 220 });
		expect(metrics.total).toBe(SIZE);
		expect(metrics.accuracy).toBeGreaterThan(0.85);
		expect(metrics.coverage).toBeGreaterThan(0.75);
		expect(truthMetrics.accuracy).toBeGreaterThan(metrics.accuracy as number);
		expect(metrics.units).toEqual({ charged: SIZE, fresh: SIZE, reused: 0 });
	});
});

describe('stored rows as labeled items (Evaluate, evaluate/inputs.ts)', () => {
	const run = (runId: string) => ({ runId }) as ItemAnswer;

	it('reads a JSON-text list as the list it is; an empty or blank answer as none', () => {
		expect(expectedCell('["spam","promotion"]')).toEqual({ value: ['spam', 'promotion'] });
		expect(expectedCell(' ["spam"] ')).toEqual({ value: ['spam'] });
		// Not JSON: read as written, then checked against the keys (a label may hold brackets).
		expect(expectedCell('[spam')).toEqual({ value: '[spam' });
		expect(expectedCell('billing')).toEqual({ value: 'billing' });
		expect(expectedCell(2)).toEqual({ value: 2 });
		for (const none of [undefined, null, '', '   ']) expect(expectedCell(none)).toBeUndefined();
	});

	it('counts a review stored twice once, and a carried run once: each repeat names its first', () => {
		const carried = [undefined, run('r1'), undefined, run('r1'), undefined, undefined];
		const reviews = ['12/r9', undefined, '12/r9', undefined, 'run:r1', '13/r9'];
		expect([...repeatsOf(carried, reviews)]).toEqual([
			[2, 0],
			[3, 1],
		]);
		// `__proto__` and `constructor` are ids like any other.
		expect([...repeatsOf([], ['__proto__', 'constructor', '__proto__'])]).toEqual([[2, 0]]);
	});

	it('tells a bad row (its answer, its input, a refused input) from a row the cap or the service left unscored', () => {
		const notAsked = new NotAsked('not asked');
		const items = [0, 1, 2, 3, 4].map((id) => ({ json: { id: id + 10 } }));
		const badAnswer = Object.assign(new Error('No expected answer: the item (the row) has none'), {
			description: 'Give the row its answer.',
		});
		const badInput = new Error('Field "body" is required');
		const refused = Object.assign(new Error('Invalid input'), { httpCode: '422' });
		const capped = new Error('Not sent: Max Decides per Execution (1) is reached');
		const failures = new Map<number, Error>([
			[4, capped],
			[0, badAnswer],
			[1, badInput],
			[3, refused],
		]);
		const checked = { expected: [], errors: [badAnswer] };
		const prepared = [
			{ error: badAnswer },
			{ error: badInput },
			{ slug: 's', input: {} },
			{ slug: 's', input: {} },
			{ error: notAsked },
		] as Prepared[];
		const { badRows, notScored } = unscoredOf(items, failures, checked, prepared, notAsked);
		expect(badRows.map((row) => [row.item, row.row])).toEqual([
			[0, 10],
			[1, 11],
			[3, 13],
		]);
		expect(badRowText(badRows[0])).toBe(
			'Item 0 (row 10): No expected answer: the item (the row) has none. Give the row its answer.',
		);
		expect(notScored).toEqual([{ item: 4, row: 14, reason: capped.message }]);
	});
});
