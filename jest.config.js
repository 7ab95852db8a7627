/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }],
	},
	setupFiles: ['<rootDir>/test/support/env.ts'],
	testTimeout: 60_000,
	// Two cores: the sandbox servers of parallel workers compete with jest itself.
	maxWorkers: 2,
};
