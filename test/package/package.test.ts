/**
 * The package as n8n loads it: the tsup bundle in dist/, its imports, package.json, and the
 * bundled node running in n8n-core (the outputs function must survive bundling).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeType } from 'n8n-workflow';
import { buildPackage } from '../../harness/n8n-env';
import { outputNames, runNode } from '../../harness/n8n-engine';
import { DEMO_KEYS, startTestSandbox, type TestSandbox } from '../../harness/sandbox';
import { decideParameters, loadRoutes, pairedIndexes } from '../node/helpers';
import { TICKET_ROUTING_OUTPUTS } from '../support/outputs';

const root = join(__dirname, '..', '..');
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** What n8n's community-package rules allow a shipped file to import at run time. */
const ALLOWED_IMPORTS = new Set([
	'n8n-workflow',
	'lodash',
	'moment',
	'p-limit',
	'luxon',
	'zod',
	'crypto',
]);

let sb: TestSandbox;
/**
 * A copy of dist/ taken right after the build (other test files may rebuild dist/ meanwhile),
 * inside node_modules so the bundle's require('n8n-workflow') resolves as in an n8n install.
 */
const dist = mkdtempSync(join(root, 'node_modules', '.dist-copy-'));

beforeAll(async () => {
	buildPackage(dist);
	sb = await startTestSandbox();
}, 120_000);
afterAll(async () => {
	await sb?.close();
	rmSync(dist, { recursive: true, force: true });
});

function builtFiles(dir = dist): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? builtFiles(join(dir, entry.name)) : [join(dir, entry.name)],
	);
}

describe('package.json', () => {
	it('has no runtime dependencies and n8n-workflow as its only peer', () => {
		expect(packageJson.dependencies ?? {}).toEqual({});
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(packageJson.keywords).toContain('n8n-community-node-package');
	});

	it('points n8n at files the build produces', () => {
		const built = builtFiles().map((file) => `dist/${file.slice(dist.length + 1)}`);
		for (const file of [...packageJson.n8n.nodes, ...packageJson.n8n.credentials])
			expect(built).toContain(file);
		expect(built).toEqual(
			expect.arrayContaining([
				'dist/nodes/DecisionService/decisionService.svg',
				'dist/nodes/DecisionService/decisionService.dark.svg',
				'dist/nodes/DecisionService/DecisionService.node.json',
			]),
		);
	});
});

describe('dist/', () => {
	const sources = () =>
		builtFiles()
			.filter((file) => file.endsWith('.js'))
			.map((file) => ({ file, text: readFileSync(file, 'utf8') }));

	it("requires nothing outside n8n's allowed list", () => {
		const required = new Set<string>();
		for (const { text } of sources())
			for (const match of text.matchAll(/require\(["']([^"']+)["']\)/g)) required.add(match[1]);
		expect([...required].filter((name) => !ALLOWED_IMPORTS.has(name))).toEqual([]);
		expect(required.has('n8n-workflow')).toBe(true);
	});

	it('uses no process, globalThis or timers', () => {
		for (const { file, text } of sources()) {
			expect({
				file,
				found: text.match(/\b(process\.|globalThis|setTimeout\(|setInterval\(|__dirname)/g) ?? [],
			}).toEqual({ file, found: [] });
		}
	});

	it('runs in n8n-core: outputs named from the saved parameters, items routed', async () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle is CommonJS, loaded as n8n loads it
		const { DecisionService } = require(
			join(dist, 'nodes/DecisionService/DecisionService.node.js'),
		) as { DecisionService: new () => INodeType };
		const nodeType = new DecisionService();
		const credentials = { apiKey: DEMO_KEYS.pro, baseUrl: sb.baseUrl };
		const routes = await loadRoutes('ticket-routing', credentials);
		expect(outputNames(decideParameters('ticket-routing', routes), nodeType)).toEqual([
			...TICKET_ROUTING_OUTPUTS,
		]);
		const result = await runNode({
			nodeType,
			parameters: decideParameters('ticket-routing', routes),
			items: [
				{
					subject: 'App crash',
					body: 'The app crashes with an error every time I log in, bug since the update.',
				},
			],
			credentials,
		});
		expect(pairedIndexes(result.outputs)[1]).toEqual([0]);
	});
});
