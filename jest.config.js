/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // examples/ holds an application's own test as a user writes it, importing `durable-agents/testing`.
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  moduleNameMapper: { '^durable-agents/testing$': '<rootDir>/src/testing' },
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  // One Temporal dev server and one workflow bundle per jest run (see test/kit/).
  globalSetup: '<rootDir>/test/kit/global-setup.ts',
  globalTeardown: '<rootDir>/test/kit/global-teardown.ts',
  // The default report, then one closing line that names the counts (scripts/jest-closing-line.js).
  reporters: ['default', '<rootDir>/scripts/jest-closing-line.js'],
  setupFilesAfterEnv: ['<rootDir>/test/kit/after-env.ts'],
  testTimeout: 60000,
};
