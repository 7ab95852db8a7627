/**
 * npm start: the sandbox and real n8n side by side on 127.0.0.1, this package installed into n8n
 * as a community package from its packed tarball, a credential for the sandbox and the example
 * workflows imported, an owner account ready. One Ctrl-C stops everything.
 *
 * Flags: --n8n-port 5678, --sandbox-port 8787. State of n8n is kept in .n8n-demo/ between runs.
 */
import { join } from 'node:path';
import { DEMO_KEYS, startSandbox } from '../sandbox/server';
import {
	CREDENTIAL_NAME,
	OWNER,
	exampleWorkflows,
	packTarball,
	prepareN8n,
	projectRoot,
	startN8n,
} from '../harness/n8n-env';

function flag(name: string, fallback: number): number {
	const index = process.argv.indexOf(`--${name}`);
	return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

async function main(): Promise<void> {
	const sandbox = await startSandbox({ port: flag('sandbox-port', 8787), drafter: true });
	const demoDir = join(projectRoot, '.n8n-demo');
	console.log(`Sandbox ready: ${sandbox.baseUrl}`);
	console.log('Building, packing and installing the package into n8n…');
	const tarball = packTarball(join(demoDir, 'pack'));
	const prepared = prepareN8n({
		userFolder: join(demoDir, 'user'),
		tarball,
		sandboxBaseUrl: sandbox.baseUrl,
		apiKey: DEMO_KEYS.pro,
		workflowsDir: join(projectRoot, 'examples'),
		port: flag('n8n-port', 5678),
	});
	console.log('Starting n8n…');
	const n8n = await startN8n(prepared);
	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping n8n and the sandbox…');
		await n8n.stop();
		await sandbox.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
	n8n.process?.once('exit', (code) => {
		if (!stopping) {
			console.error(`n8n exited (code ${code}).`);
			void sandbox.close().then(() => process.exit(1));
		}
	});
	console.log(`
n8n is ready:        ${n8n.url}
  sign in with       ${OWNER.email} / ${OWNER.password}
  credential         "${CREDENTIAL_NAME}" (key ${DEMO_KEYS.pro}, Pro plan of the sandbox)
  example workflows  ${exampleWorkflows()
		.map(
			(workflow) => `\n                     ${workflow.name}: ${n8n.url}/workflow/${workflow.id}`,
		)
		.join('')}
Sandbox API:         ${sandbox.baseUrl}   (other demo keys: ${DEMO_KEYS.free}, ${DEMO_KEYS.starter}, ${DEMO_KEYS.scale})

Press Ctrl-C to stop everything.`);
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
