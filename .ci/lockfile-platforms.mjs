#!/usr/bin/env node
/**
 * Completes package-lock.json with the platform builds of native tools (rollup, unrs-resolver)
 * that the registry these machines reach does not serve.
 *
 * Why: rollup and unrs-resolver list one optional package per platform. `npm install` skips the
 * ones the registry cannot find and writes a lockfile without them; `npm ci` then rebuilds the
 * tree, finds those optional dependencies missing and refuses the lockfile ("not in sync"), on
 * every machine. A lockfile written against the full registry has one entry per platform, each
 * with its `os`/`cpu`/`libc`, and npm skips those that do not match the machine. This script adds
 * exactly those entries (taken from the package names, which follow `<os>-<cpu>[-<abi>]`).
 *
 * Run after regenerating the lockfile: `node .ci/lockfile-platforms.mjs` (`--check` only reports).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OSES = [
	'aix',
	'android',
	'darwin',
	'freebsd',
	'linux',
	'netbsd',
	'openbsd',
	'openharmony',
	'sunos',
	'win32',
];
const CPUS = ['arm', 'arm64', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'x64', 'wasm32'];

/** `rollup-linux-arm-musleabihf` → { os: ['linux'], cpu: ['arm'], libc: ['musl'] }. */
function platformOf(name) {
	const parts = name.split('/').pop().split('-');
	const cpuIndex = parts.findIndex((part) => CPUS.includes(part));
	if (cpuIndex < 0) return undefined;
	const os = parts[cpuIndex - 1];
	const abi = parts[cpuIndex + 1] ?? '';
	if (parts[cpuIndex] === 'wasm32') return { cpu: ['wasm32'] };
	if (!OSES.includes(os)) return undefined;
	const libc = abi.startsWith('gnu') ? ['glibc'] : abi.startsWith('musl') ? ['musl'] : undefined;
	return { os: [os], cpu: [parts[cpuIndex]], ...(libc ? { libc } : {}) };
}

/** Where npm would look for `name` from the package at `parentPath`: nested first, then up. */
function resolved(parentPath, name) {
	let base = parentPath;
	for (;;) {
		const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
		if (packages[candidate]) return candidate;
		const at = base.lastIndexOf('/node_modules/');
		if (base === '') return undefined;
		base = at < 0 ? '' : base.slice(0, at);
	}
}

const added = [];
const unknown = [];
for (const [path, entry] of Object.entries(packages)) {
	for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
		if (resolved(path, name)) continue;
		const platform = platformOf(name);
		if (!platform || !/^\d+\.\d+\.\d+/.test(spec)) {
			unknown.push(`${name}@${spec} (from ${path})`);
			continue;
		}
		packages[`node_modules/${name}`] = {
			version: spec,
			...platform,
			...(entry.dev ? { dev: true } : {}),
			optional: true,
		};
		added.push(`${name}@${spec}`);
	}
}

if (unknown.length) {
	console.error(
		`optional dependencies missing from the lockfile that this script cannot place:\n  ${unknown.join('\n  ')}`,
	);
	process.exit(1);
}
if (process.argv.includes('--check')) {
	if (added.length) {
		console.error(
			`package-lock.json lacks ${added.length} platform entries; run: node .ci/lockfile-platforms.mjs`,
		);
		process.exit(1);
	}
	console.log('package-lock.json has every platform entry');
} else {
	lock.packages = Object.fromEntries(
		Object.entries(packages).sort(([a], [b]) =>
			a === '' ? -1 : b === '' ? 1 : a.localeCompare(b),
		),
	);
	writeFileSync(lockPath, `${JSON.stringify(lock, null, '\t')}\n`);
	console.log(
		`added ${added.length} platform entries${added.length ? `:\n  ${added.join('\n  ')}` : ''}`,
	);
}
