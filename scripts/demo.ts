/**
 * npm run demo: headless. Starts the sandbox, installs this package into a throw-away n8n user
 * folder from its packed tarball, imports the example workflows, runs each one in real n8n
 * (`n8n execute`) and prints how many items reached each output of every Decision Service node.
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
} from '../harness/n8n-env';

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
		for (const workflow of exampleWorkflows()) {
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
	} finally {
		await sandbox.close();
		rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
