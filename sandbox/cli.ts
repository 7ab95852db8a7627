import { resolve } from 'node:path';
import { DEFAULT_PORT, DEMO_KEYS, isLoopback, startSandbox, type SandboxOptions } from './server';
import { PLANS, type PlanName } from './plans';

/**
 * `npm run sandbox` / `npm start`: the local Decision Service.
 *
 *   --port N          listen port (default 8787; 0 = any free port)
 *   --host H          listen address (default 127.0.0.1)
 *   --data FILE       persist the state to FILE (loaded at start when present)
 *   --drafter         enable the local drafter for `describe` (otherwise 503 generation_unavailable)
 *   --no-control      do not serve /_control
 *   --control         serve /_control even on a non-loopback host
 *   --fault-seed N    seed of the fault-injection PRNG
 *   --log             one line per request: method, path, status, ms (never keys, headers or bodies)
 */

const USAGE = `Usage: tsx sandbox/cli.ts [--port N] [--host H] [--data FILE] [--drafter] [--no-control | --control] [--fault-seed N] [--log]`;

function fail(message: string): never {
	process.stderr.write(`${message}\n${USAGE}\n`);
	process.exit(2);
}

export function parseArgs(argv: readonly string[]): SandboxOptions {
	const options: SandboxOptions = {};
	const value = (index: number, flag: string): string => {
		const next = argv[index + 1];
		if (next === undefined || next.startsWith('--')) fail(`${flag} needs a value`);
		return next;
	};
	const integer = (text: string, flag: string): number => {
		const number = Number(text);
		if (!Number.isInteger(number)) fail(`${flag} needs an integer, got "${text}"`);
		return number;
	};
	for (let index = 0; index < argv.length; index += 1) {
		const arg = argv[index];
		const [flag, inline] = arg.includes('=')
			? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
			: [arg, undefined];
		const take = (): string => {
			if (inline !== undefined) return inline;
			const next = value(index, flag);
			index += 1;
			return next;
		};
		switch (flag) {
			case '--port': {
				const port = integer(take(), flag);
				if (port < 0 || port > 65535) fail(`--port must be 0..65535`);
				options.port = port;
				break;
			}
			case '--host':
				options.host = take();
				break;
			case '--data':
				options.dataFile = resolve(take());
				break;
			case '--drafter':
				options.drafter = true;
				break;
			case '--no-control':
				options.control = false;
				break;
			case '--control':
				options.control = true;
				break;
			case '--fault-seed':
				options.faultSeed = integer(take(), flag);
				break;
			case '--log':
				options.log = true;
				break;
			case '--help':
			case '-h':
				process.stdout.write(`${USAGE}\n`);
				process.exit(0);
				break;
			default:
				fail(`Unknown argument: ${arg}`);
		}
	}
	return options;
}

async function main(): Promise<void> {
	const options = parseArgs(process.argv.slice(2));
	const host = options.host ?? '127.0.0.1';
	if (options.control === undefined && !isLoopback(host)) {
		process.stderr.write(
			`Control surface off: ${host} is not a loopback address (use --control to force it).\n`,
		);
	}
	const sandbox = await startSandbox({ port: DEFAULT_PORT, ...options });
	const lines = [
		'Decision Service sandbox',
		`  Base URL   ${sandbox.baseUrl}`,
		'  Demo keys',
		...Object.entries(DEMO_KEYS).map(([name, key]) => {
			const plan = name in PLANS ? PLANS[name as PlanName] : undefined;
			const info = plan
				? `${plan.quota === null ? 'no quota' : `${plan.quota}/month`}, ${plan.rateLimit === null ? 'no rate limit' : `${plan.rateLimit} req/min`}`
				: 'revoked key of the free account (401)';
			return `    ${name.padEnd(10)} ${key.padEnd(26)} ${info}`;
		}),
		`  Control    ${sandbox.control ? `${sandbox.origin}/_control (reset, clock, usage, decisions, runs, faults, config)` : 'off'}`,
		`  Drafter    ${options.drafter ? 'on' : 'off (describe → 503; --drafter or POST /_control/config to enable)'}`,
		`  Data file  ${options.dataFile ?? 'none (state in memory)'}`,
	];
	process.stdout.write(`${lines.join('\n')}\n`);

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		process.stdout.write(`\n${signal}: closing${options.dataFile ? ' and saving' : ''}…\n`);
		sandbox.close().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(`${(error as Error).message}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

if (require.main === module) {
	main().catch((error: unknown) => {
		process.stderr.write(`${(error as Error).message}\n`);
		process.exit(1);
	});
}
