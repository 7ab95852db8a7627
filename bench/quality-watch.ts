/**
 * A quality watch of 1,000 stored rows in real n8n 2.41.1 (examples/quality-watch.json, its
 * schedule replaced by a webhook): the rows inserted into the Data Table `decision_reviews`, the
 * watch run twice (baseline, then compared), each run's time and units against the plan's floor.
 *
 * Set-up as bench/makespan.ts: the sandbox in this process, Scale (600 decides a window), the
 * plan's minute scaled 6× (`rate_window_ms` 10 000), 200 ms answers (engine phase); the package
 * from its tarball. Floor (bench/n8n-bench.ts, makespanFloorMs): (windows − 1) × window + the last
 * window's items × 200 ms ÷ 600 + 200 ms. Makespan: the first decide's arrival to the last
 * decide's answer at the service; wall: n8n's execution start to stop (reading 1,000 rows, the
 * evaluation, storing the figures included).
 *
 * Run: node --require tsx/cjs bench/quality-watch.ts [--rows 1000] [--window-ms 10000]
 * Prints one line per run and writes bench/results/quality-watch.json (not committed).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LABELED_ROW_COLUMNS } from '../src/answer';
import { ensureTable, insertRows, personalProjectId } from '../harness/n8n-data-tables';
import {
	readExample,
	startN8nWithWorkflows,
	triggerWebhook,
	waitForExecution,
	type WorkflowJson,
} from '../harness/n8n-executions';
import { projectRoot } from '../harness/n8n-env';
import { N8N_VERSION } from '../harness/n8n-install';
import { DEMO_KEYS, startTestSandbox } from '../harness/sandbox';
import type { SandboxExchange } from '../sandbox/server';
import { makeLabeledSet } from '../scripts/make-labeled-set';
import { makespanFloorMs } from './n8n-bench';
import { flag } from './setup';

const ROWS = flag('rows', 1000);
const WINDOW_MS = flag('window-ms', 10_000);
const LATENCY_MS = 200;
const BUDGET = 600;
const KEY = DEMO_KEYS.scale;
const PATH = 'bench-quality-watch';

function watchOnWebhook(): WorkflowJson {
	const workflow = readExample('quality-watch.json');
	return {
		...workflow,
		id: 'dsBenchWatch',
		name: 'bench: quality watch',
		active: false,
		nodes: workflow.nodes.map((node) =>
			/Trigger$/.test(node.type)
				? {
						...node,
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						webhookId: 'dsBenchWatch-hook',
						parameters: { httpMethod: 'POST', path: PATH, responseMode: 'onReceived', options: {} },
					}
				: node,
		),
	};
}

async function main(): Promise<void> {
	const exchanges: SandboxExchange[] = [];
	const sb = await startTestSandbox({ onExchange: (exchange) => exchanges.push(exchange) });
	const work = mkdtempSync(join(tmpdir(), 'decision-service-bench-watch-'));
	const { n8n, session } = await startN8nWithWorkflows({
		work,
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflows: [watchOnWebhook()],
	});
	try {
		await sb.control('POST', '/clock', { rate_window_ms: WINDOW_MS });
		await sb.control('POST', '/faults', {
			seed: 1,
			rules: [
				{ method: 'POST', path: '^/v1/decide/', latency_at: 'engine', latency_ms: LATENCY_MS },
			],
		});
		const project = await personalProjectId(session);
		const table = await ensureTable(session, project, 'decision_reviews', LABELED_ROW_COLUMNS);
		const labeled = makeLabeledSet();
		await insertRows(
			session,
			table,
			Array.from({ length: ROWS }, (_, index) => {
				const ticket = labeled[index % labeled.length];
				return {
					status: 'labeled',
					decision: 'ticket-routing',
					// A number per row: 1,000 distinct inputs, none answered from an earlier run.
					input: JSON.stringify({ subject: `${ticket.subject} #${index + 1}`, body: ticket.body }),
					answer: ticket.expected,
				};
			}),
		);
		const floorMs = makespanFloorMs({
			items: ROWS,
			budget: BUDGET,
			windowMs: WINDOW_MS,
			cap: 600,
			meanLatencyMs: LATENCY_MS,
			lastLatencyMs: LATENCY_MS,
		});
		const runs = [];
		for (const round of ['baseline', 'compared']) {
			// A fresh window for each run, as a weekly schedule meets it.
			await sb.control('POST', '/clock', { advance_ms: WINDOW_MS });
			const before = (await sb.usage(KEY)).used;
			const from = exchanges.length;
			const id = await triggerWebhook(session, 'dsBenchWatch', PATH, {});
			const execution = await waitForExecution(session, id, ['success', 'error'], 900_000);
			if (execution.error) throw new Error(`${round}: ${execution.error.message}`);
			const units = (await sb.usage(KEY)).used - before;
			const decides = exchanges
				.slice(from)
				.filter((each) => each.method === 'POST' && each.path.startsWith('/v1/decide/'));
			const makespanMs =
				Math.max(...decides.map((each) => each.sentAt)) -
				Math.min(...decides.map((each) => each.receivedAt));
			const summary = await fetch(`${session.url}/rest/executions/${id}`, {
				headers: { cookie: session.cookie, 'browser-id': 'decision-service-setup' },
			});
			const { data } = (await summary.json()) as {
				data: { startedAt: string; stoppedAt: string };
			};
			const wallMs = Date.parse(data.stoppedAt) - Date.parse(data.startedAt);
			const report = execution.outputs['Watch quality'][0][0].json;
			const run = {
				round,
				rows: ROWS,
				units,
				decides: decides.length,
				makespan_s: makespanMs / 1000,
				wall_s: wallMs / 1000,
				floor_s: floorMs / 1000,
				makespan_over_floor: makespanMs / floorMs,
				accuracy: report.accuracy,
				message: report.message,
			};
			runs.push(run);
			console.log(
				`${round}: ${ROWS} rows, ${units} units, makespan ${run.makespan_s.toFixed(2)} s, wall ${run.wall_s.toFixed(2)} s, floor ${run.floor_s.toFixed(2)} s (× ${run.makespan_over_floor.toFixed(2)})`,
			);
		}
		const out = join(projectRoot, 'bench', 'results');
		mkdirSync(out, { recursive: true });
		writeFileSync(
			join(out, 'quality-watch.json'),
			JSON.stringify(
				{ n8n: N8N_VERSION, windowMs: WINDOW_MS, latencyMs: LATENCY_MS, runs },
				null,
				2,
			),
		);
	} finally {
		await n8n.stop();
		await sb.close();
		rmSync(work, { recursive: true, force: true });
	}
}

void main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
