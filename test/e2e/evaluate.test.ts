/**
 * Evaluate in real n8n, installed from the packed tarball: the example workflow
 * examples/ticket-routing-evaluate.json routes the first 100 labeled tickets with Decide at its
 * defaults (Simplify on) and evaluates its answers: one unit per ticket, Evaluate free; the report's
 * figures equal evaluate() recomputed from its scored items; every carried answer is read (none
 * in Other), the engine mix names the engine.
 */
import { readAnswer } from '../../src/answer/item-answer';
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
import { evaluate, forMachines, type ScoredItem } from '../../src/evaluate';
import { evaluationDecisionOf } from '../../src/answer';

jest.setTimeout(600_000);

const WORKFLOW = 'dsExTicketEval1';
// Pro, as `npm start` sets the example up: 120 decides a minute, the example's 100 in one window.
const KEY = DEMO_KEYS.pro;
const TICKETS = 100;

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

	it('charges one unit per ticket: Decide pays, Evaluate scores its answers free', () => {
		const [[report], scored] = run.outputs.Evaluate;
		expect(scored).toHaveLength(TICKETS);
		expect(report.json.units).toEqual({ charged: 0, fresh: 0, reused: TICKETS });
		expect(run.outputs['Route ticket'][0]).toHaveLength(TICKETS);
		expect(charged).toBe(TICKETS);
		// What this node charged, beside what Decide paid: together, the service's usage growth.
		expect(report.json.figures).toMatchObject({ units_charged: 0 });
		expect(String(report.json.summary)).toContain(
			`The ${TICKETS} runs the items carried were paid upstream (${charged} units`,
		);
		console.log(
			`e2e evaluate: ${scored.length} items; sandbox usage +${charged}; accuracy ${report.json.accuracy}, coverage ${report.json.coverage}`,
		);
	});

	it("reads Decide's compact answers: nothing in Other, the engine named, the probabilities' gaps", () => {
		const [[report]] = run.outputs.Evaluate;
		const statuses = report.json.statuses as Record<string, number>;
		expect(statuses.other).toBe(0);
		expect(statuses.ok + statuses.pending + statuses.uncertain).toBe(TICKETS);
		expect(report.json.answered).toBe(statuses.ok);
		expect(report.json.engines).toEqual([{ name: 'jev', count: TICKETS }]);
		const items = report.json.items as Array<{ gap: number | null }>;
		expect(items.every((item) => typeof item.gap === 'number')).toBe(true);
	});

	it('the report equals evaluate() recomputed from the scored items, with the HTML page attached', async () => {
		const [[report], scored] = run.outputs.Evaluate;
		const again = await recompute(scored);
		expect(figures(report.json)).toMatchObject(
			figures(again as unknown as Record<string, unknown>),
		);
		expect(report.json.total).toBe(TICKETS);
		expect(scored.map((item) => item.json.right)).toEqual(
			again.items.map((outcome) => outcome.correct === true),
		);
		const binary = rawTask('Evaluate').data.main[0][0].binary?.data;
		expect(binary).toMatchObject({ fileName: 'evaluation-report.html', mimeType: 'text/html' });
		// The summary in words: on the report item and as the node's notices.
		expect(String(report.json.summary)).toMatch(/^Answered \d+ of 100 items/);
		expect(
			rawTask('Evaluate')
				.hints?.map((hint) => hint.message)
				.join('\n'),
		).toContain(
			'Charged 0 units here: 0 decided on the live version. The 100 runs the items carried were paid upstream (100 units, by the node that decided them) and scored here free.',
		);
	});

	it('writes its figures for machines: snake_case keys, at most 4 decimals', () => {
		const [[report]] = run.outputs.Evaluate;
		const keys: string[] = [];
		const numbers: number[] = [];
		const walk = (value: unknown) => {
			if (typeof value === 'number') numbers.push(value);
			else if (Array.isArray(value)) value.forEach(walk);
			else if (value && typeof value === 'object')
				for (const [key, each] of Object.entries(value)) {
					keys.push(key);
					walk(each);
				}
		};
		walk(report.json);
		expect(keys.filter((key) => /[A-Z]/.test(key))).toEqual([]);
		expect(numbers.filter((value) => Math.round(value * 1e4) / 1e4 !== value)).toEqual([]);
	});
});
