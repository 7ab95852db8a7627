/**
 * A version change through n8n-core's engine against the sandbox (issue 43): every kind of row
 * (reviewed, audited, loaded with or without `review_id`) keeps the answer it was decided with on
 * its own row (`stored_row`, by the Data Table `id`), so a worse version is tested on all of them,
 * paired; one change is one alert and costs at most the Version Change Sample in all, however many
 * runs follow (the previous figures are the memory); a run says what it left out. Units are
 * checked against the sandbox's usage counter.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { runNode } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { publishTicketVersion } from '../support/versions';
import { makeLabeledSet } from '../../scripts/make-labeled-set';
import { locator } from './helpers';

const KEY = DEMO_KEYS.pro;
const SLUG = 'ticket-routing';
let sb: TestSandbox;

beforeAll(async () => {
	sb = await startTestSandbox();
});
afterAll(async () => {
	await sb.close();
});
beforeEach(async () => {
	await sb.control('POST', '/reset');
});

const used = async () => (await sb.usage(KEY)).used;

/** A Data Table row as n8n's Data Table node gives it: its own `id`, the team's columns. */
type Row = IDataObject & { id: number };

const KINDS = ['reviewed', 'audited', 'loaded with review_id', 'loaded'] as const;
type Kind = (typeof KINDS)[number];

/** `count` labeled rows of each kind, none with a stored answer yet. */
function tableRows(count: number): Array<Row & { kind: Kind }> {
	const set = makeLabeledSet();
	const now = Date.now();
	return KINDS.flatMap((kind, k) =>
		Array.from({ length: count }, (_, at) => {
			const ticket = set[k * count + at];
			const row: Row & { kind: Kind } = {
				id: k * count + at + 1,
				kind,
				decision: SLUG,
				input: JSON.stringify({ subject: ticket.subject, body: ticket.body }),
				answer: ticket.expected,
			};
			if (kind === 'reviewed' || kind === 'audited')
				Object.assign(row, {
					review_id: `exec/${kind}/${at}`,
					status: 'reviewed',
					stratum: kind === 'reviewed' ? 'doubtful' : 'audited',
					reviewed_at: new Date(now - (30 + at) * 24 * 3600 * 1000).toISOString(),
					...(kind === 'audited' ? { audit_share: 0.2 } : {}),
				});
			if (kind === 'loaded with review_id') row.review_id = `labeled-set/${at}`;
			return row;
		}),
	);
}

async function watch(
	rows: Row[],
	previousFigures: IDataObject[],
	options: IDataObject = {},
): Promise<{ report: IDataObject; scored: INodeExecutionData[]; drift: INodeExecutionData[] }> {
	// Previous figures are rows (objects), as the watch example's expression gives them.
	const parameters = {
		resource: 'decision',
		operation: 'evaluate',
		decision: locator(SLUG),
		inputMode: 'json',
		jsonInput: '={{ $json.input }}',
		expected: '={{ $json.answer }}',
		evaluateOptions: { previousFigures, versionChangeSample: 200, ...options },
	} as unknown as INodeParameters;
	const result = await runNode({
		parameters,
		items: rows,
		credentials: { apiKey: KEY, baseUrl: sb.baseUrl },
	});
	expect(result.error).toBeUndefined();
	const [[report], scored, drift] = result.outputs;
	return { report: report.json, scored, drift };
}

/** What the watch example's *Store new answers* does: each `stored_row` updates its row by `id`. */
function storeNewAnswers<T extends Row>(rows: T[], scored: INodeExecutionData[]): T[] {
	const updates = new Map<unknown, IDataObject>();
	for (const item of scored) {
		const update = item.json.stored_row as IDataObject | undefined;
		if (update) updates.set(update.id, update);
	}
	return rows.map((row) => {
		const update = updates.get(row.id);
		if (!update) return row;
		// The row keeps its own id (a system column the Data Table node never writes).
		return { ...row, ...update, id: row.id };
	});
}

/** Version 2: billing and technical swap descriptions (far worse on the same rows, by design). */
async function publishWorseVersion(): Promise<number> {
	await publishTicketVersion(sb, KEY);
	return (await sb.client(KEY).getDecision(SLUG)).live_version as number;
}

type Evidence = { kind: string; rows: number; alert: boolean; points: number };
const evidenceOf = (report: IDataObject) =>
	((report.drift as IDataObject | undefined)?.evidence ?? []) as Evidence[];

describe('a version change is tested on every kind of row, once', () => {
	it('every kind keeps its answer on its row, and a worse version alerts on all of them, paired', async () => {
		let rows = tableRows(10);
		const v1 = (await sb.client(KEY).getDecision(SLUG)).live_version as number;
		// Run 1: nothing stored yet: every row decided once, its answer kept on its row.
		let before = await used();
		const first = await watch(rows, []);
		expect((await used()) - before).toBe(rows.length);
		for (const item of first.scored)
			expect(item.json.stored_row).toMatchObject({ id: item.json.id, version: v1 });
		expect(String(first.report.message)).toContain(
			`${rows.length} rows with no stored answer decided on version ${v1} (${rows.length} units; store their answers`,
		);
		rows = storeNewAnswers(rows, first.scored);
		// Run 2, same version: every row scored free from the answer it keeps.
		before = await used();
		const again = await watch(rows, [first.report.figures as IDataObject]);
		expect((await used()) - before).toBe(0);
		expect(String(again.report.message)).toContain(
			`${rows.length} stored rows scored from the answer version ${v1}`,
		);

		// Version 2 goes live: every kind of row is decided again and paired with its stored answer.
		const v2 = await publishWorseVersion();
		before = await used();
		const changed = await watch(rows, [
			first.report.figures as IDataObject,
			again.report.figures as IDataObject,
		]);
		expect((await used()) - before).toBe(rows.length);
		const charged = changed.scored.filter((item) => item.json.charged === 1);
		for (const kind of KINDS)
			expect(charged.filter((item) => item.json.kind === kind)).toHaveLength(10);
		const version = evidenceOf(changed.report).find((each) => each.kind === 'version')!;
		// Every row judged on both versions is paired, whatever its kind.
		expect(version.rows).toBeGreaterThan(rows.length * 0.75);
		expect(version).toMatchObject({ alert: true });
		expect(changed.drift).toHaveLength(1);
		// The drop the alert is held to is the one shown.
		expect((changed.report.drift as IDataObject).accuracy_drop).toBe(
			Math.round(-version.points * 10) / 10,
		);
		expect((changed.report.drift as IDataObject).drop_of).toBe('version');
		for (const item of charged)
			expect(item.json.stored_row).toMatchObject({ id: item.json.id, version: v2 });
	});
});

describe('one change, one alert, at most the sample in all', () => {
	it('the run after the change decides nothing again, alerts no more, and says what it left out', async () => {
		let rows = tableRows(10); // 40 rows
		const SAMPLE = 25;
		const first = await watch(rows, [], { versionChangeSample: SAMPLE });
		rows = storeNewAnswers(rows, first.scored);
		const figures = [first.report.figures as IDataObject];
		const v2 = await publishWorseVersion();

		// Run A: the change met: the sample decided and paired, the rest left out and said.
		let before = await used();
		const a = await watch(rows, figures, { versionChangeSample: SAMPLE });
		const unitsA = (await used()) - before;
		expect(unitsA).toBe(SAMPLE);
		expect(evidenceOf(a.report).find((each) => each.kind === 'version')).toMatchObject({
			alert: true,
		});
		expect(a.drift).toHaveLength(1);
		// The sample takes the most recent row of each kind in turn (doubtful, audited, loaded):
		// 25 of 10 + 10 + 20 rows are 9, 8 and 8 (loaded: the highest ids), not the 20 reviews first.
		const decided: Record<string, number> = {};
		for (const item of a.scored.filter((each) => each.json.charged === 1))
			decided[String(item.json.kind)] = (decided[String(item.json.kind)] ?? 0) + 1;
		expect(decided).toEqual({ reviewed: 9, audited: 8, loaded: 8 });
		const left = rows.length - SAMPLE;
		expect(a.report.figures).toMatchObject({ total: SAMPLE, not_scored: left, partial: false });
		const message = String(a.report.message);
		expect(message).toMatch(
			new RegExp(`on ${SAMPLE} labeled items since .* \\(${left} rows left out\\):`),
		);
		expect(message).toContain(
			`${left} rows answered by version 1 left out of these figures: beyond the ${SAMPLE} decided again on version ${v2}, the most recent of each kind (Version Change Sample).`,
		);
		// The report's summary (the HTML report's first lines) says it too.
		expect(String(a.report.summary)).toContain(
			`${left} rows answered by version 1 left out of these figures`,
		);
		expect(a.scored.filter((item) => item.json.scored === false)).toHaveLength(left);
		rows = storeNewAnswers(rows, a.scored);
		figures.push(a.report.figures as IDataObject);

		// Run B: the same change, already tested: nothing decided again, no second alert.
		before = await used();
		const b = await watch(rows, figures, { versionChangeSample: SAMPLE });
		expect((await used()) - before).toBe(0);
		expect(evidenceOf(b.report).map((each) => each.kind)).not.toContain('version');
		expect(b.drift).toEqual([]);
		const words = String(b.report.message);
		expect(words).not.toContain('The live version changed');
		expect(words).toContain(
			`${left} rows answered by version 1 left out of these figures: version ${v2} was live at the last run`,
		);
		expect(words).toContain('Cost: 0 units');
		expect(b.report.figures).toMatchObject({ total: SAMPLE, not_scored: left, partial: false });
		// In all, the change cost the sample and no more.
		expect(unitsA).toBeLessThanOrEqual(SAMPLE);
	});
});
