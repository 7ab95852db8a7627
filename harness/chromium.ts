/**
 * The browser for the editor tests: Debian's `chromium`, driven by playwright-core through
 * `executablePath`. Playwright's own browser downloads do not work on these machines, so a missing
 * browser is installed with apt (the tests run as root); anything else fails with a clear message.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

function apt(args: string[]): void {
	const result = spawnSync('apt-get', args, {
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	if (result.error)
		throw new Error(
			`Cannot install chromium: apt-get ${args.join(' ')} did not start (${result.error.message}).`,
		);
	if (result.status !== 0) {
		const output = `${result.stderr ?? ''}\n${result.stdout ?? ''}`.trim().slice(-3000);
		throw new Error(
			`Cannot install chromium: apt-get ${args.join(' ')} failed (exit ${result.status}).\n${output}`,
		);
	}
}

/** Returns the path of Debian's chromium, installing it with apt-get first when it is missing. */
export function ensureChromium(): string {
	if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!isRoot) {
		throw new Error(
			`${CHROMIUM_PATH} is missing and this process is not root, so it cannot be installed here. ` +
				'Install it once with: sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium',
		);
	}
	process.stderr.write(
		`${CHROMIUM_PATH} is missing: installing Debian's chromium with apt-get (about a minute)…\n`,
	);
	apt(['update']);
	apt(['install', '-y', '--no-install-recommends', 'chromium']);
	if (!existsSync(CHROMIUM_PATH))
		throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing.`);
	process.stderr.write(`chromium installed at ${CHROMIUM_PATH}\n`);
	return CHROMIUM_PATH;
}

if (require.main === module) {
	console.log(ensureChromium());
}

/** Debian's chromium, headless, quiet (no background network, no updates): for the UI tests and the plots. */
export async function launchHeadlessChromium(): Promise<Browser> {
	return await chromium.launch({
		executablePath: ensureChromium(),
		headless: true,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--no-first-run',
			'--disable-quic',
		],
	});
}
