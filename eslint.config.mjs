// n8n's own community-node rules (from @n8n/node-cli) on everything that ships: nodes/,
// credentials/, src/ and package.json. Dev-only code (the sandbox server, tests, scripts,
// benchmarks) needs process, timers and node:http, so it gets ordinary TypeScript rules.
import { config as n8nConfig } from '@n8n/node-cli/eslint';
import { createRequire } from 'node:module';

// typescript-eslint as @n8n/node-cli ships it, so both halves of the config use one version.
const requireFromNodeCli = createRequire(import.meta.resolve('@n8n/node-cli/eslint'));
const tseslint = requireFromNodeCli('typescript-eslint');

const SHIPPED = ['nodes/**/*.ts', 'credentials/**/*.ts', 'src/**/*.ts'];
const DEV_ONLY = [
	'sandbox/**/*.ts',
	'test/**/*.ts',
	'scripts/**/*.ts',
	'harness/**/*.ts',
	'bench/**/*.ts',
	'*.ts',
];

const shipped = n8nConfig.map((entry) =>
	Array.isArray(entry.files) && entry.files.includes('**/*.ts')
		? { ...entry, files: SHIPPED }
		: entry,
);

export default [
	{
		ignores: [
			'dist/**',
			'node_modules/**',
			'coverage/**',
			'**/*.js',
			'**/*.mjs',
			'**/*.cjs',
			'docs/**',
		],
	},
	...shipped,
	...tseslint.configs.recommended.map((entry) => ({ ...entry, files: DEV_ONLY })),
];
