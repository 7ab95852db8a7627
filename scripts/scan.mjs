// npm run scan: n8n's community-package scanner (@n8n/scan-community-package, the analyser n8n
// runs before listing a package) on both legs it checks; its analyzePackage(dir, patterns) is
// exported, so both run here on our own `npm pack` output:
//   1. the packed tarball (what npm would publish), every .js/.ts/.json file;
//   2. the source: package.json and nodes/, credentials/ (.js/.ts/.json).
// Exits non-zero and prints the violations when either leg fails.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { analyzePackage } from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'decision-service-scan-'));
try {
	execFileSync(join(root, 'node_modules', '.bin', 'tsup'), { cwd: root, stdio: 'ignore' });
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--json', '--pack-destination', work, '--loglevel=error'], {
			cwd: root,
			encoding: 'utf8',
		}),
	);
	const extracted = join(work, 'package');
	execFileSync('tar', ['-xzf', join(work, packed[0].filename), '-C', work]);
	const legs = [
		['packed tarball', extracted, ['**/*.js', '**/*.ts', '**/*.json']],
		['source', root, ['package.json', 'nodes/**/*.{js,ts,json}', 'credentials/**/*.{js,ts,json}']],
	];
	let failed = false;
	for (const [label, dir, patterns] of legs) {
		const result = await analyzePackage(dir, patterns);
		console.log(
			`${result.passed ? 'passed' : 'FAILED'}: ${label}${result.message ? ` (${result.message})` : ''}`,
		);
		if (!result.passed) {
			failed = true;
			console.log(result.details ?? result.error ?? '');
		}
	}
	process.exitCode = failed ? 1 : 0;
} finally {
	rmSync(work, { recursive: true, force: true });
}
