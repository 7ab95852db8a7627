import { cpSync, mkdirSync } from 'node:fs';
import { defineConfig } from 'tsup';

/**
 * The published package: one CommonJS file per node and credential, with src/ and zod bundled in
 * (a community package may have no runtime dependencies) and n8n-workflow left to n8n.
 */
export default defineConfig({
	entry: {
		'nodes/DecisionService/DecisionService.node': 'nodes/DecisionService/DecisionService.node.ts',
		'credentials/DecisionServiceApi.credentials': 'credentials/DecisionServiceApi.credentials.ts',
	},
	outDir: 'dist',
	format: ['cjs'],
	platform: 'node',
	target: 'node20',
	bundle: true,
	splitting: false,
	sourcemap: false,
	clean: true,
	dts: false,
	// keepNames would wrap functions in __name(...) calls, which breaks the outputs function
	// n8n evaluates from its source text.
	keepNames: false,
	minify: false,
	external: ['n8n-workflow'],
	noExternal: [/^zod/],
	// Shipped code logs nothing (inputs may hold personal data); this also drops a warning
	// inside zod's JSON-schema generator, which the node never calls.
	esbuildOptions(options) {
		options.drop = ['console'];
	},
	onSuccess: async () => {
		mkdirSync('dist/nodes/DecisionService', { recursive: true });
		for (const file of [
			'DecisionService.node.json',
			'decisionService.svg',
			'decisionService.dark.svg',
		]) {
			cpSync(`nodes/DecisionService/${file}`, `dist/nodes/DecisionService/${file}`);
		}
	},
});
