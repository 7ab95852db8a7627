/**
 * Evaluate in real n8n (issue 22), installed from the packed tarball: the example workflow
 * examples/ticket-routing-evaluate.json evaluates the demo decision `ticket-routing` on the 240
 * labeled tickets, once on fresh items (charged once each) and once on items an earlier Decide
 * answered (charged 0); each report's figures equal evaluate() recomputed from its scored items.
 */
import { readAnswer } from '../../src/answer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	executeWorkflow,
	freePort,
	packTarball,
	prepareN8n,
	type N8nInstance,
	type WorkflowRun,
} from '../../harness/n8n-env';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { evaluate, evaluationDecisionOf, forMachines, type ScoredItem } from '../../src/evaluate';

jest.setTimeout(600_000);

const WORKFLOW = 'dsExTicketEval1';
// Scale: 600 decides a minute, so the example's 480 decides run in one window.
const KEY = DEMO_KEYS.scale;

let sb: TestSandbox;
let work: string;
let n8n: N8nInstance;
let run: WorkflowRun;
let charged: number;

type Item = { json: Record<string, unknown>; pairedItem?: unknown };

beforeAll(async () => {
	sb = await startTestSandbox();
	work = mkdtempSync(join(tmpdir(), 'decision-service-evaluate-e2e-'));
	n8n = prepareN8n({
		userFolder: join(work, 'user'),
		tarball: packTarball(join(work, 'pack')),
		sandboxBaseUrl: sb.baseUrl,
		apiKey: KEY,
		workflowsDir: join(__dirname, '..', '..', 'examples'),
		port: await freePort(),
	});
	const before = (await sb.usage(KEY)).used;
	run = await executeWorkflow(n8n, WORKFLOW);
	charged = (await sb.usage(KEY)).used - before;
});

afterAll(async () => {
	await n8n?.stop();
	await sb?.close();
	if (work) rmSync(work, { recursive: true, force: true });
});

async function recompute(scored: Item[]) {
	const decision = await sb.client(KEY).getDecision('ticket-routing');
	const items: ScoredItem[] = scored.map((item) => ({
		expected: item.json.expected,
		run: readAnswer(item.json.decision, decision.type)!,
		charged: item.json.charged as number,
	}));
	// The report's JSON is the metrics for machines: snake_case, rounded (src/evaluate/summary.ts).
	return forMachines<{ items: Array<{ correct: boolean | null }> }>(
		evaluate(evaluationDecisionOf(decision), items, {
			targetAccuracy: 0.9,
			confidenceThreshold: decision.confidence_threshold,
		}).metrics,
	);
}

function figures(metrics: Record<string, unknown>) {
	const copy = { ...metrics };
	delete copy.items;
	return copy;
}

function rawTask(nodeName: string) {
	const raw = run.raw as {
		data: {
			resultData: {
				runData: Record<
					string,
					Array<{
						hints?: Array<{ message: string }>;
						data: { main: Array<Array<{ binary?: Record<string, Record<string, unknown>> }>> };
					}>
				>;
			};
		};
	};
	return raw.data.resultData.runData[nodeName][0];
}

describe('the evaluation example in real n8n', () => {
	it('runs without a workflow error and holds no API key', () => {
		expect(run.error).toBeUndefined();
		for (const key of Object.values(DEMO_KEYS)) expect(JSON.stringify(run.raw)).not.toContain(key);
	});

	it('charges each fresh ticket once, the already decided ones nothing (480 = 240 evaluate + 240 decide)', () => {
		const [[fresh], freshScored] = run.outputs['Evaluate on fresh tickets'];
		const [[free], freeScored] = run.outputs['Evaluate already decided'];
		expect(freshScored).toHaveLength(240);
		expect(freeScored).toHaveLength(240);
		expect(fresh.json.units).toEqual({ charged: 240, fresh: 240, reused: 0 });
		expect(free.json.units).toEqual({ charged: 0, fresh: 0, reused: 240 });
		expect(run.outputs['Decide (production)'][0]).toHaveLength(240);
		expect(charged).toBe(480);
		console.log(
			`e2e evaluate: ${freshScored.length} items; charged fresh ${JSON.stringify(fresh.json.units)}, reused ${JSON.stringify(free.json.units)}; sandbox usage +${charged}; accuracy ${fresh.json.accuracy}, coverage ${fresh.json.coverage}`,
		);
	});

	it.each(['Evaluate on fresh tickets', 'Evaluate already decided'])(
		'%s: the report equals evaluate() recomputed from the scored items, with the HTML page attached',
		async (nodeName) => {
			const [[report], scored] = run.outputs[nodeName];
			const again = await recompute(scored);
			expect(figures(report.json)).toMatchObject(
				figures(again as unknown as Record<string, unknown>),
			);
			expect(report.json.total).toBe(240);
			expect(scored.map((item) => item.json.right)).toEqual(
				again.items.map((outcome) => outcome.correct === true),
			);
			const binary = rawTask(nodeName).data.main[0][0].binary?.data;
			expect(binary).toMatchObject({
				fileName: 'evaluation-report.html',
				mimeType: 'text/html',
			});
			expect(
				rawTask(nodeName)
					.hints?.map((hint) => hint.message)
					.join('\n'),
			).toMatch(/Evaluated 240 items/);
		},
	);

	it('both evaluations give the same figures: the same runs, one paid once', () => {
		const [[fresh]] = run.outputs['Evaluate on fresh tickets'];
		const [[free]] = run.outputs['Evaluate already decided'];
		for (const field of ['accuracy', 'coverage', 'macroF1', 'confusion'])
			expect(free.json[field]).toEqual(fresh.json[field]);
	});
});
