/**
 * A version change as a team meets it, in real n8n 2.x (issue 43): labeled rows the team loaded
 * into `decision_reviews` (only `decision`, `input`, `answer`: no review, no `review_id`), the
 * shipped watch (examples/quality-watch.json, its schedule replaced by a webhook):
 *
 * 1. The first run decides each loaded row once and *Store new answers* keeps its answer on its
 *    own row (by the Data Table `id`); the next run on the same version costs 0.
 * 2. A worse version goes live: the run tests it on the loaded rows, paired with their kept
 *    answers, and alerts; the run after it decides nothing, alerts no more.
 * 3. Another version, with a Version Change Sample smaller than the table: the sample decided and
 *    paired (one alert), the rest left out and said in the message, the summary and the figures
 *    row; the run after it costs 0, no alert, and says again what it left out.
 * Every unit is the growth of the sandbox's usage counter in that run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIGURES_ROW_COLUMNS } from '../../src/evaluate';
import { LABELED_ROW_COLUMNS } from '../../src/answer';
import {
	ensureTable,
	findTable,
	insertRows,
	personalProjectId,
	readRows,
	type DataTable,
	type Row,
} from '../../harness/n8n-data-tables';
import { n8nMajor, n8nVersion } from '../../harness/n8n-install';
import type { N8nInstance } from '../../harness/n8n-env';
import {
	exampleOnWebhook,
	startN8nWithWorkflows,
	triggerWebhook,
	waitForExecution,
	type Execution,
	type Item,
	type OwnerSession,
	type WorkflowJson,
} from '../../harness/n8n-executions';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { publishTicketVersion } from '../support/versions';
import { makeLabeledSet } from '../../scripts/make-labeled-set';

jest.setTimeout(900_000);

const KEY = DEMO_KEYS.pro;
const SLUG = 'ticket-routing';
const LOADED = 40;
const SAMPLE = 15;
const EVALUATE = 'Watch quality';
const WATCH = { id: 'dsVcWatch', path: 'version-change-watch' };
const SAMPLED = { id: 'dsVcSampled', path: 'version-change-sampled' };

/** The shipped watch on a webhook; `sample`: its Version Change Sample. */
function watchOn(options: { id: string; path: string }, sample?: number): WorkflowJson {
	const workflow = exampleOnWebhook('quality-watch.json', { ...options, name: options.id });
	const nodes = workflow.nodes.map((node) =>
		node.name === EVALUATE && sample !== undefined
			? {
					...node,
					parameters: {
						...node.parameters,
						evaluateOptions: {
							...(node.parameters.evaluateOptions as Record<string, unknown>),
							versionChangeSample: sample,
						},
					},
				}
			: node,
	);
	return { ...workflow, nodes };
}

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance | undefined;
let session: OwnerSession;
let reviews: DataTable;

interface Watched {
	execution: Execution;
	charged: number;
	report: Record<string, unknown>;
	drift: Item[];
	rows: Row[];
}
const runs: Record<string, Watched> = {};

async function watch(workflow: { id: string; path: string }): Promise<Watched> {
	const before = (await sb.usage(KEY)).used;
	const id = await triggerWebhook(session, workflow.id, workflow.path, {});
	const execution = await waitForExecution(session, id, ['success', 'error', 'crashed'], 300_000);
	expect({ workflow: workflow.id, error: execution.error }).toEqual({
		workflow: workflow.id,
		error: undefined,
	});
	const outputs = execution.outputs[EVALUATE];
	return {
		execution,
		charged: (await sb.usage(KEY)).used - before,
		report: outputs[0][0].json,
		drift: outputs[2] ?? [],
		rows: await readRows(session, reviews),
	};
}

/** A new live version: billing and technical swap descriptions (`swapped`), or as seeded. */
const publish = (swapped: boolean) => publishTicketVersion(sb, KEY, swapped);

type Evidence = { kind: string; alert: boolean; rows: number };
const evidenceOf = (report: Record<string, unknown>) =>
	((report.drift as { evidence?: Evidence[] } | undefined)?.evidence ?? []) as Evidence[];

const on2 = n8nMajor(n8nVersion()) >= 2 ? describe : describe.skip;

on2(`a version change on loaded rows, in n8n ${n8nVersion()}`, () => {
	beforeAll(async () => {
		sb = await startTestSandbox();
		work = mkdtempSync(join(tmpdir(), 'decision-service-version-change-'));
		({ n8n, session } = await startN8nWithWorkflows({
			work,
			sandboxBaseUrl: sb.baseUrl,
			apiKey: KEY,
			workflows: [watchOn(WATCH), watchOn(SAMPLED, SAMPLE)],
		}));
		const project = await personalProjectId(session);
		reviews = await ensureTable(session, project, 'decision_reviews', LABELED_ROW_COLUMNS);
		await ensureTable(session, project, 'decision_quality', FIGURES_ROW_COLUMNS);
		// Rows a team loaded: what docs/quality-watch.md asks of them, no more.
		await insertRows(
			session,
			reviews,
			makeLabeledSet()
				.slice(0, LOADED)
				.map((ticket) => ({
					decision: SLUG,
					input: JSON.stringify({ subject: ticket.subject, body: ticket.body }),
					answer: ticket.expected,
				})),
		);
		runs.first = await watch(WATCH);
		runs.same = await watch(WATCH);
		await publish(true); // version 2: worse
		runs.changed = await watch(WATCH);
		runs.after = await watch(WATCH);
		await publish(false); // version 3: as seeded
		runs.sampled = await watch(SAMPLED);
		runs.afterSample = await watch(SAMPLED);
	});

	afterAll(async () => {
		await n8n?.stop();
		await sb?.close();
		if (work) rmSync(work, { recursive: true, force: true });
	});

	it('decides each loaded row once and keeps its answer on its own row', () => {
		expect(runs.first.charged).toBe(LOADED);
		expect(runs.first.rows).toHaveLength(LOADED);
		for (const row of runs.first.rows)
			expect(row).toMatchObject({ version: 1, run_id: expect.stringMatching(/.+/) });
		// No row added: the answers went on the rows they belong to.
		expect(runs.same.charged).toBe(0);
		expect(String(runs.same.report.message)).toContain(
			`${LOADED} stored rows scored from the answer version 1 gave them: free.`,
		);
	});

	it('a worse version is tested on the loaded rows, paired, and alerts once', () => {
		const { changed, after } = runs;
		expect(changed.charged).toBe(LOADED);
		const version = evidenceOf(changed.report).find((each) => each.kind === 'version');
		expect(version).toMatchObject({ alert: true });
		expect(version!.rows).toBeGreaterThan(LOADED / 2);
		expect(changed.drift).toHaveLength(1);
		const drift = changed.report.drift as { accuracy_drop: number; drop_of: string };
		expect(drift.drop_of).toBe('version');
		expect(String(changed.report.message)).toContain(
			`accuracy down ${drift.accuracy_drop.toFixed(1)} points`,
		);
		for (const row of changed.rows) expect(row.version).toBe(2);
		// The run after: the change is already tested and paid.
		expect(after.charged).toBe(0);
		expect(evidenceOf(after.report).map((each) => each.kind)).not.toContain('version');
		expect(after.drift).toEqual([]);
		expect(String(after.report.message)).not.toContain('The live version changed');
		expect(changed.charged + after.charged).toBeLessThanOrEqual(200);
	});

	it('a sample smaller than the table: one alert, the sample in all, the rest left out and said', () => {
		const { sampled, afterSample } = runs;
		const left = LOADED - SAMPLE;
		expect(sampled.charged).toBe(SAMPLE);
		expect(evidenceOf(sampled.report).find((each) => each.kind === 'version')).toBeDefined();
		expect(sampled.report.figures).toMatchObject({
			live_version: 3,
			total: SAMPLE,
			not_scored: left,
			partial: false,
		});
		const said = `${left} rows answered by version 2 left out of these figures`;
		expect(String(sampled.report.message)).toContain(said);
		expect(String(sampled.report.summary)).toContain(said);
		// The most recent rows: loaded rows have no reviewed_at, so the last added (highest id).
		const decided = sampled.rows.filter((row) => row.version === 3).map((row) => Number(row.id));
		const ids = sampled.rows.map((row) => Number(row.id)).sort((a, b) => b - a);
		expect(decided.sort((a, b) => b - a)).toEqual(ids.slice(0, SAMPLE));
		// The run after: nothing decided, no new alert, what it left out said again.
		expect(afterSample.charged).toBe(0);
		expect(afterSample.drift).toEqual([]);
		expect(evidenceOf(afterSample.report).map((each) => each.kind)).not.toContain('version');
		const message = String(afterSample.report.message);
		expect(message).toContain(`${said}: version 3 was live at the last run`);
		expect(message).toContain('Cost: 0 units');
		expect(afterSample.report.figures).toMatchObject({ total: SAMPLE, not_scored: left });
		expect(sampled.charged + afterSample.charged).toBeLessThanOrEqual(SAMPLE);
	});

	it('keeps one figures row per run, none partial', async () => {
		const figures = await readRows(
			session,
			(await findTable(session, reviews.projectId, 'decision_quality'))!,
		);
		expect(figures.map((row) => [row.live_version, row.total, row.not_scored])).toEqual([
			[1, LOADED, 0],
			[1, LOADED, 0],
			[2, LOADED, 0],
			[2, LOADED, 0],
			[3, SAMPLE, LOADED - SAMPLE],
			[3, SAMPLE, LOADED - SAMPLE],
		]);
	});
});
