/**
 * npm run demo: headless. Starts the sandbox, installs this package into a throw-away n8n user
 * folder from its packed tarball, imports the example workflows, runs each one in real n8n
 * (`n8n execute`) and prints how many items reached each output of every Decision Service node.
 * Then, in a started n8n (the review waits for a person; n8n's Data Tables need their module,
 * which `n8n execute` does not start): the review example runs (from a webhook), waits, the
 * script opens the review link as a person would, picks answers and submits, and prints where
 * each ticket ended, the feedback the service received and the reviews stored; then the examples
 * that read n8n's Data Tables (the quality watch, two versions side by side) run on those reviews
 * and labeled rows a team adds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DEMO_KEYS, startSandbox } from '../sandbox/server';
import {
	NODE_TYPE,
	exampleWorkflows,
	executeWorkflow,
	freePort,
	outputNamesOf,
	packTarball,
	prepareN8n,
	startN8n,
	type N8nInstance,
} from '../harness/n8n-env';
import {
	ownerSession,
	publishWorkflows,
	readExample,
	triggerWebhook,
	waitForExecution,
	withSubWorkflows,
	writeWorkflows,
	type Execution,
	type OwnerSession,
	type WorkflowJson,
} from '../harness/n8n-executions';
import { ensureTable, insertRows, personalProjectId, readRows } from '../harness/n8n-data-tables';
import { LABELED_ROW_COLUMNS } from '../src/answer';
import { makeLabeledSet } from './make-labeled-set';
import {
	MESSAGE_NODE,
	REVIEW_EXAMPLE,
	fillReview,
	openPage,
	parseForm,
	reviewWorkflow,
	submitForm,
	waitingLinkIn,
	whereItemsEnded,
} from '../harness/n8n-review';

const DATA_TABLE = 'n8n-nodes-base.dataTable';
const REVIEW_ID = 'dsExTicketReview';
/**
 * The audit example: its second flow waits for a person, and its two triggers cannot share one
 * webhook path (test/e2e/audit-sample.test.ts runs it, each trigger on a webhook of its own).
 */
const AUDIT_ID = 'dsExTicketAudit';

/** Examples that read or write n8n's Data Tables (not the review example: it waits for a person). */
/** A sub-workflow (examples/review-store.json) runs when another example calls it, not alone. */
const isSubWorkflow = (workflow: { nodes: Array<{ type: string }> }) =>
	workflow.nodes.some((node) => node.type === 'n8n-nodes-base.executeWorkflowTrigger');
const usesDataTables = (workflow: { id: string; nodes: Array<{ type: string }> }) =>
	workflow.id !== REVIEW_ID &&
	workflow.id !== AUDIT_ID &&
	!isSubWorkflow(workflow) &&
	workflow.nodes.some((node) => node.type === DATA_TABLE) &&
	!waitsForAFile(workflow);
/**
 * The labeled-CSV loader waits for a file from its form: neither a webhook without a file nor
 * `n8n execute` runs it (test/e2e/quality-load.test.ts uploads one).
 */
const waitsForAFile = (workflow: { nodes: Array<{ type: string }> }) =>
	workflow.nodes.some((node) => node.type === 'n8n-nodes-base.formTrigger');

/** An example whose trigger (a schedule, a manual run) is a webhook at `demo-<its id>`. */
function onWebhook(file: string): WorkflowJson {
	const workflow = readExample(file);
	const id = String(workflow.id);
	return {
		...workflow,
		active: false,
		nodes: workflow.nodes.map((node) =>
			/Trigger$/.test(node.type)
				? {
						...node,
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						webhookId: `${id}-demo-hook`,
						parameters: {
							httpMethod: 'POST',
							path: `demo-${id.toLowerCase()}`,
							responseMode: 'onReceived',
							options: {},
						},
					}
				: node,
		),
	};
}

/** Items per output of every Decision Service node of a run, as the `n8n execute` runs print them. */
function printOutputs(
	workflow: { nodes: Array<{ name: string; type: string; parameters: Record<string, unknown> }> },
	outputsOf: (node: string) => unknown[][],
): void {
	for (const node of workflow.nodes.filter((each) => each.type === NODE_TYPE)) {
		const outputs = outputsOf(node.name);
		const names = outputNamesOf(node.parameters);
		if (outputs.length > names.length) names.push('error output');
		console.log(`  ${node.name}`);
		names.forEach((name, index) =>
			console.log(`    ${String(outputs[index]?.length ?? 0).padStart(3)}  ${name}`),
		);
	}
}

/** The examples on n8n's Data Tables, run from their webhooks on the reviews stored and rows added. */
async function dataTableExamples(
	session: OwnerSession,
	workflows: WorkflowJson[],
	origin: string,
): Promise<number> {
	const project = await personalProjectId(session);
	const reviews = await ensureTable(session, project, 'decision_reviews', LABELED_ROW_COLUMNS);
	// A team adds labeled rows of its own beside the reviews: the input as JSON text, the answer.
	await insertRows(
		session,
		reviews,
		makeLabeledSet()
			.slice(0, 40)
			.map((ticket) => ({
				status: 'labeled',
				decision: 'ticket-routing',
				input: JSON.stringify({ subject: ticket.subject, body: ticket.body }),
				answer: ticket.expected,
			})),
	);
	console.log(`\nTable decision_reviews: ${(await readRows(session, reviews)).length} rows`);
	let failures = 0;
	for (const workflow of workflows) {
		const usage = async () => {
			const response = await fetch(
				`${origin}/_control/usage?key=${encodeURIComponent(DEMO_KEYS.pro)}`,
			);
			return ((await response.json()) as { used: number }).used;
		};
		const before = await usage();
		const id = await triggerWebhook(
			session,
			String(workflow.id),
			`demo-${String(workflow.id).toLowerCase()}`,
			{},
		);
		const run: Execution = await waitForExecution(session, id, ['success', 'error', 'crashed']);
		const error = run.error ? `  FAILED: ${run.error.message}` : '';
		console.log(`\n${workflow.name}${error}`);
		if (run.status !== 'success') failures += 1;
		printOutputs(workflow, (node) => run.outputs[node] ?? []);
		for (const node of workflow.nodes.filter((each) => each.type === NODE_TYPE)) {
			const report = run.outputs[node.name]?.[0]?.[0]?.json;
			if (!report) continue;
			const comparison = report.comparison as { summary?: string } | undefined;
			console.log(`  ${String(report.summary)}`);
			if (comparison?.summary) console.log(`  ${comparison.summary}`);
			if (typeof report.message === 'string')
				console.log(`  the message:\n    ${report.message.split('\n').join('\n    ')}`);
		}
		console.log(`  the service counted ${(await usage()) - before} units`);
	}
	return failures;
}

/**
 * The review loop, as a team runs it: the tickets arrive, the doubtful ones wait for a person, who
 * agrees with the machine on all but one (picked otherwise, with a note) and leaves one for later.
 * Then the examples on n8n's Data Tables, in the same n8n.
 */
async function startedN8n(
	work: string,
	tarball: string,
	baseUrl: string,
	origin: string,
): Promise<void> {
	const loop = reviewWorkflow({
		id: 'dsDemoReview0001',
		name: 'Demo: ticket routing with a review by a person',
		path: 'decision-service-demo-review',
	});
	const tables = exampleWorkflows()
		.filter(usesDataTables)
		.map((each) => onWebhook(basename(each.file)));
	const prepared = prepareN8n({
		userFolder: join(work, 'review-user'),
		tarball,
		sandboxBaseUrl: baseUrl,
		apiKey: DEMO_KEYS.pro,
		workflowsDir: writeWorkflows(join(work, 'review-workflows'), [loop.workflow, ...tables]),
		port: await freePort(),
	});
	publishWorkflows(
		prepared,
		withSubWorkflows([loop.workflow, ...tables]).map((each) => String(each.id)),
	);
	let n8n: N8nInstance | undefined;
	try {
		n8n = await startN8n(prepared);
		const session = await ownerSession(n8n.url);
		// The review example creates its table from its manual trigger; here a webhook starts it.
		const project = await personalProjectId(session);
		const reviews = await ensureTable(session, project, 'decision_reviews', LABELED_ROW_COLUMNS);
		const sample = readExample(REVIEW_EXAMPLE).nodes.find((node) => node.name === 'Sample tickets');
		const tickets = JSON.parse(String(sample?.parameters.jsonOutput)) as { tickets: unknown[] };
		const id = await triggerWebhook(
			session,
			String(loop.workflow.id),
			'decision-service-demo-review',
			tickets,
		);
		const waiting = await waitForExecution(session, id, ['waiting']);
		const link = waitingLinkIn(waiting, MESSAGE_NODE);
		console.log(
			`\nReview loop: ${tickets.tickets.length} tickets in; the execution waits for a person.`,
		);
		console.log(`  the message: ${String(waiting.outputs[MESSAGE_NODE]?.[0]?.[0]?.json.message)}`);
		const page = await openPage(link);
		const form = parseForm(page.html);
		const doubtful = (waiting.outputs[loop.decide] ?? [])
			.flat()
			.filter((item) => (item.json.decision as { status?: string }).status !== 'ok');
		const choices = doubtful.map((item, index) => {
			const decision = item.json.decision as { suggestion?: string };
			// Found on the page by its body: two tickets may share a subject ("Help please").
			const marker = String(item.json.body);
			if (index === doubtful.length - 1) return { marker }; // left for later
			if (index === 0)
				return { marker, answer: 'technical', note: 'The app error is the real problem.' };
			return { marker, answer: decision.suggestion ?? 'billing' };
		});
		fillReview(page.html, form, choices);
		const done = await submitForm(link, form);
		console.log(
			`  the page: ${page.status}, ${doubtful.length} tickets; submitted: ${done.status}`,
		);
		const ticket = (item: { json: Record<string, unknown> }) =>
			`${String(item.json.subject)}: ${String(item.json.body).slice(0, 36)}…`.padEnd(56);
		choices.forEach((choice, index) =>
			console.log(
				`    ${ticket(doubtful[index])} ${choice.answer ?? '(left for later)'}${choice.note ? `  note: ${choice.note}` : ''}`,
			),
		);
		const finished = await waitForExecution(session, id, ['success', 'error']);
		console.log(`  the execution: ${finished.status}; where each ticket ended:`);
		const ended = whereItemsEnded(finished, loop.finalNodes, 'body');
		for (const node of loop.finalNodes) {
			const subjects = Object.entries(ended)
				.filter(([, nodes]) => nodes.includes(node))
				.map(([body]) => body);
			console.log(`    ${String(subjects.length).padStart(3)}  ${node}`);
		}
		console.log('  the feedback the service received:');
		for (const item of doubtful) {
			const runId = (item.json.decision as { run_id?: string }).run_id;
			const response = await fetch(
				`${origin}/_control/runs/${runId}?key=${encodeURIComponent(DEMO_KEYS.pro)}`,
			);
			const run = (await response.json()) as { feedback?: { feedback: string; note?: string } };
			const got = run.feedback
				? `${run.feedback.feedback}${run.feedback.note ? ` (${run.feedback.note})` : ''}`
				: 'none (left for later)';
			console.log(`    ${ticket(item)} ${got}`);
		}
		console.log(
			`  reviews stored in decision_reviews: ${(await readRows(session, reviews)).length}`,
		);
		if (finished.status !== 'success') process.exitCode = 1;
		if (await dataTableExamples(session, tables, origin)) process.exitCode = 1;
	} finally {
		await n8n?.stop();
	}
}

async function main(): Promise<void> {
	const work = mkdtempSync(join(tmpdir(), 'decision-service-demo-'));
	const sandbox = await startSandbox({ port: 0, drafter: true });
	try {
		console.log(`Sandbox: ${sandbox.baseUrl}`);
		console.log('Packing and installing the package into n8n…');
		const tarball = packTarball(join(work, 'pack'));
		const n8n = prepareN8n({
			userFolder: join(work, 'user'),
			tarball,
			sandboxBaseUrl: sandbox.baseUrl,
			apiKey: DEMO_KEYS.pro,
			workflowsDir: join(__dirname, '..', 'examples'),
			port: await freePort(),
		});
		let failures = 0;
		// The review example waits for a person, and the Data Table examples need n8n's data-table
		// module (`n8n execute` does not start it): they run in a started n8n, below.
		const executable = exampleWorkflows().filter(
			(each) =>
				each.id !== REVIEW_ID &&
				each.id !== AUDIT_ID &&
				!usesDataTables(each) &&
				!isSubWorkflow(each) &&
				!waitsForAFile(each),
		);
		for (const workflow of executable) {
			const run = await executeWorkflow(n8n, workflow.id);
			console.log(`\n${workflow.name}${run.error ? `  FAILED: ${run.error.message}` : ''}`);
			if (run.error) failures += 1;
			printOutputs(workflow, (node) => run.outputs[node] ?? []);
		}
		if (failures) process.exitCode = 1;
		await startedN8n(work, tarball, sandbox.baseUrl, sandbox.origin);
	} finally {
		await sandbox.close();
		rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
