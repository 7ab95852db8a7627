/**
 * npm run demo: headless. Starts the sandbox, installs this package into a throw-away n8n user
 * folder from its packed tarball, imports the example workflows, runs each one in real n8n
 * (`n8n execute`) and prints how many items reached each output of every Decision Service node.
 * Then the review loop in a started n8n: the review example runs (from a webhook), waits, the
 * script opens the review link as a person would, picks answers and submits, and prints where
 * each ticket ended and the feedback the service received.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
	writeWorkflows,
} from '../harness/n8n-executions';
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

/**
 * The review loop, as a team runs it: the tickets arrive, the doubtful ones wait for a person, who
 * agrees with the machine on all but one (picked otherwise, with a note) and leaves one for later.
 */
async function reviewLoop(
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
	const prepared = prepareN8n({
		userFolder: join(work, 'review-user'),
		tarball,
		sandboxBaseUrl: baseUrl,
		apiKey: DEMO_KEYS.pro,
		workflowsDir: writeWorkflows(join(work, 'review-workflows'), [loop.workflow]),
		port: await freePort(),
	});
	publishWorkflows(prepared, [String(loop.workflow.id)]);
	let n8n: N8nInstance | undefined;
	try {
		n8n = await startN8n(prepared);
		const session = await ownerSession(n8n.url);
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
		if (finished.status !== 'success') process.exitCode = 1;
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
		// The review example waits for a person: it runs in a started n8n, below.
		for (const workflow of exampleWorkflows().filter((each) => each.id !== 'dsExTicketReview')) {
			const run = await executeWorkflow(n8n, workflow.id);
			console.log(`\n${workflow.name}${run.error ? `  FAILED: ${run.error.message}` : ''}`);
			if (run.error) failures += 1;
			for (const node of workflow.nodes.filter((each) => each.type === NODE_TYPE)) {
				const outputs = run.outputs[node.name] ?? [];
				const names = outputNamesOf(node.parameters);
				if (outputs.length > names.length) names.push('error output');
				console.log(`  ${node.name}`);
				names.forEach((name, index) =>
					console.log(`    ${String(outputs[index]?.length ?? 0).padStart(3)}  ${name}`),
				);
			}
		}
		if (failures) process.exitCode = 1;
		await reviewLoop(work, tarball, sandbox.baseUrl, sandbox.origin);
	} finally {
		await sandbox.close();
		rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
