// n8n's own community-node rules (from @n8n/node-cli) on everything that ships: nodes/,
// credentials/, src/ and package.json. Dev-only code (the sandbox server, tests, scripts,
// benchmarks) needs process, timers and node:http, so it gets ordinary TypeScript rules.
// Then the import rules of docs/ARCHITECTURE.md ("Who may import what"), so a forbidden import
// fails `npm run lint`.
import { config as n8nConfig } from '@n8n/node-cli/eslint';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

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

// ---- Who may import what (docs/ARCHITECTURE.md says the same in words) ----

const ROOT = import.meta.dirname;
const NODE = 'nodes/DecisionService';
const ARCHITECTURE = 'docs/ARCHITECTURE.md, "Who may import what"';
const isDirectory = (path) => statSync(join(ROOT, path)).isDirectory();
const filesUnder = (folder) =>
	readdirSync(join(ROOT, folder)).flatMap((name) =>
		isDirectory(`${folder}/${name}`) ? filesUnder(`${folder}/${name}`) : [`${folder}/${name}`],
	);

/** Leaves at src/'s root (html.ts: escaping for the report and the review page). */
const SRC_LEAVES = readdirSync(join(ROOT, 'src'))
	.filter((name) => name.endsWith('.ts'))
	.map((name) => `src/${name}`);
/** The node's adapters to n8n, under every layer of the node. */
const ADAPTERS = [`${NODE}/errors.ts`, `${NODE}/transport.ts`];

/**
 * Each folder or file of shipped code, and the project paths it may import besides its own
 * folder. Packages: n8n's rules (its allowed modules) and devOnlyPackages, N8N_PATTERNS below.
 */
const MAY_IMPORT = [
	['src/contract', []],
	[SRC_LEAVES, []],
	['src/answer', ['src/contract']],
	['src/client', ['src/contract']],
	['src/evaluate', ['src/contract', 'src/answer', ...SRC_LEAVES]],
	['src/review', ['src/contract', 'src/answer', ...SRC_LEAVES]],
	['credentials', ['src/client/base-url.ts']],
	[`${NODE}/errors.ts`, ['src']],
	[`${NODE}/transport.ts`, ['src']],
	[`${NODE}/outputs`, ['src']],
	[`${NODE}/pipeline`, ['src', `${NODE}/outputs`, ...ADAPTERS]],
	[`${NODE}/methods`, ['src', `${NODE}/pipeline`, `${NODE}/outputs`, ...ADAPTERS]],
	[`${NODE}/actions`, ['src', `${NODE}/pipeline`, `${NODE}/outputs`, ...ADAPTERS]],
	[`${NODE}/DecisionService.node.ts`, ['src', NODE]],
];

/** Every operation: a folder, or a file named *.operation.ts, in a resource's folder. */
const OPERATIONS = readdirSync(join(ROOT, `${NODE}/actions`))
	.filter((resource) => isDirectory(`${NODE}/actions/${resource}`))
	.flatMap((resource) =>
		readdirSync(join(ROOT, `${NODE}/actions/${resource}`))
			.map((name) => `${NODE}/actions/${resource}/${name}`)
			.filter((path) => isDirectory(path) || path.endsWith('.operation.ts')),
	);

/** A path as the messages say it: a folder with its slash, the node's own paths from the node. */
const said = (path) =>
	(path.startsWith(`${NODE}/`) ? path.slice(NODE.length + 1) : path) +
	(isDirectory(path) ? '/' : '');

/** A zone: `target` (a folder, a file, or a list of files that import each other freely). */
const onlyFrom = (target, allowed) => {
	const targets = [target].flat();
	const name = Array.isArray(target) ? 'src/*.ts' : said(target);
	const others = Array.isArray(target) ? ' and each other' : '';
	return {
		target: targets.map((path) => `./${path}`),
		from: '.',
		except: [...new Set([...targets, ...allowed, 'node_modules'])].map((path) => `./${path}`),
		message: `${name} may import ${allowed.map(said).join(', ') || 'no other project file'}${others} (${ARCHITECTURE}).`,
	};
};

const ZONES = [
	// Nothing shipped imports dev-only code (a new file gets this one before it is in the table).
	...['nodes', 'credentials', 'src'].map((target) => ({
		target: `./${target}`,
		from: ['./test', './sandbox', './harness', './scripts', './bench'],
		message: `shipped code imports no dev-only code (${ARCHITECTURE}).`,
	})),
	{
		target: './src',
		from: ['./nodes', './credentials'],
		message: `src/ imports nothing of the node or the credential (${ARCHITECTURE}).`,
	},
	...MAY_IMPORT.map(([target, allowed]) => onlyFrom(target, allowed)),
	...OPERATIONS.map((operation) => ({
		target: `./${operation}`,
		from: `./${NODE}/actions`,
		except: [operation, `${NODE}/actions/common.ts`].map(
			(path) => `./${path.slice(NODE.length + '/actions/'.length)}`,
		),
		message: `an operation never imports another operation; shared steps live in pipeline/ (${ARCHITECTURE}).`,
	})),
];

/** The node's files outside one folder: src/evaluate and src/review are one operation's each. */
const nodeFilesOutside = (folder) =>
	filesUnder(NODE)
		.filter((path) => path.endsWith('.ts') && !path.startsWith(`${folder}/`))
		.map((path) => `./${path}`);
ZONES.push(
	{
		target: nodeFilesOutside(`${NODE}/actions/decision/evaluate`),
		from: './src/evaluate',
		message: `src/evaluate is Evaluate's alone; what others share lives in src/answer (${ARCHITECTURE}).`,
	},
	{
		target: nodeFilesOutside(`${NODE}/actions/decision/review`),
		from: './src/review',
		message: `src/review is Review's alone; what others share lives in src/answer (${ARCHITECTURE}).`,
	},
);

/** Packages shipped code may not import although n8n's rules let them through (devDependencies). */
const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const devOnlyPackages = (allowed) =>
	Object.keys(devDependencies)
		.filter((name) => !allowed.includes(name))
		.map((name) => ({
			name,
			message: `a devDependency: shipped code bundles zod and imports n8n-workflow, nothing else (${ARCHITECTURE}).`,
		}));
const N8N_PATTERNS = [
	{
		group: ['n8n-workflow/*', 'n8n-core/*', '@n8n/*'],
		message: `src/ has no n8n in it: n8n's types and errors live in nodes/ (${ARCHITECTURE}).`,
	},
];

const importRules = [
	{
		files: SHIPPED,
		rules: {
			'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: ZONES }],
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		rules: {
			'no-restricted-imports': ['error', { paths: devOnlyPackages(['n8n-workflow', 'zod']) }],
		},
	},
	{
		files: ['src/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					paths: devOnlyPackages(['zod']).map((entry) =>
						entry.name === 'n8n-workflow' ? { ...entry, message: N8N_PATTERNS[0].message } : entry,
					),
					patterns: N8N_PATTERNS,
				},
			],
		},
	},
];

// ---- Size (issue 36): no shipped function over 80 lines ----
// Counted as scripts/house.ts counts: every line from the function's first to its last, blank
// lines and comments included, IIFEs too (a method from its name). A shipped file over 260 lines
// says why in its first lines: test/package/house.test.ts.
const sizeRules = [
	{
		files: SHIPPED,
		rules: {
			'max-lines-per-function': [
				'error',
				{ max: 80, skipBlankLines: false, skipComments: false, IIFEs: true },
			],
		},
	},
];

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
	...importRules,
	...sizeRules,
];
