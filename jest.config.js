/**
 * Two projects: every test on the newest n8n 2.x (the default of harness/n8n-install.ts), and the
 * end-to-end tests in real n8n once more on n8n 1.x (`--selectProjects` picks one).
 * @type {import('jest').Config}
 */
const shared = {
	testEnvironment: 'node',
	rootDir: __dirname,
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }],
	},
};

module.exports = {
	// A global option: jest ignores it inside a project.
	testTimeout: 60_000,
	// Two cores: the sandbox servers of parallel workers compete with jest itself.
	maxWorkers: 2,
	// A global option too. A worker that has run a dozen test files holds 300-500 MB (each file
	// loads n8n-workflow anew; n8n-core alone adds 100 MB), and Node's exit frees that heap page by
	// page: 0.3-0.8 s on two busy cores, past jest's 500 ms, so jest killed workers that had nothing
	// open and blamed a leak. A worker kept alive by a server or a timer is still killed and named.
	workerGracefulExitTimeout: 3_000,
	projects: [
		{
			...shared,
			displayName: 'n8n 2.x',
			roots: ['<rootDir>/test'],
			testMatch: ['**/*.test.ts'],
			setupFiles: ['<rootDir>/test/support/env.ts'],
		},
		{
			...shared,
			displayName: 'n8n 1.x',
			roots: ['<rootDir>/test/e2e'],
			// The examples' suite, Review's refusal to wait without n8n 2's signed resume URL, and
			// the quality watch where n8n 1.x's Data Table node stops it (tables by id only); the
			// fault matrix and the AI Agent tests use 2.x-only nodes and commands (AI Agent v3,
			// execute-batch) and run on 2.x. A review stored once: its store branch on both.
			testMatch: [
				'**/n8n.test.ts',
				'**/review.test.ts',
				'**/review-store-once.test.ts',
				'**/quality-watch.test.ts',
			],
			setupFiles: ['<rootDir>/test/support/env.ts', '<rootDir>/test/support/n8n-1x.ts'],
		},
	],
};
