const { availableParallelism } = require('node:os');

// The test tiers (docs/testing.md#tiers), one jest project each, chosen by folder so that a new test
// file lands in its tier without a change here: test/unit and test/architecture are `unit` (no
// server), test/browser is `browser`, test/chaos is `chaos`, and every other test file, examples/
// included, is `integration`. test/real is the real tier's own, run by its own config
// (jest.real.config.js, on Temporal's server and PostgreSQL), never by this one.
const TIERS = {
  unit: ['<rootDir>/test/unit/', '<rootDir>/test/architecture/'],
  browser: ['<rootDir>/test/browser/'],
  chaos: ['<rootDir>/test/chaos/'],
  real: ['<rootDir>/test/real/'],
};

/** @type {import('jest').Config} */
const everyTier = {
  testEnvironment: 'node',
  moduleNameMapper: {
    '^durable-agents/testing$': '<rootDir>/src/testing',
    // The examples import the package's entries by name, as an application does.
    '^durable-agents/(evals|worker)$': '<rootDir>/src/$1',
    // The MCP Tasks extension's schemas (the gateway's conformance tests) export ES modules only, by the import condition.
    '^@modelcontextprotocol/ext-tasks/core/v2$':
      '<rootDir>/node_modules/@modelcontextprotocol/ext-tasks/dist/core/v2/index.js',
  },
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }],
    // jose (under @a2a-js/sdk) and the MCP Tasks extension ship ES modules only: jest's module system needs them compiled.
    '/node_modules/(jose|@modelcontextprotocol/ext-tasks)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|@modelcontextprotocol/ext-tasks)/)'],
  setupFilesAfterEnv: ['<rootDir>/test/kit/after-env.ts'],
};

/** One Temporal dev server, one PostgreSQL server and one workflow bundle per jest run (see test/kit/). */
const servers = {
  globalSetup: '<rootDir>/test/kit/global-setup.ts',
  globalTeardown: '<rootDir>/test/kit/global-teardown.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    { ...everyTier, displayName: 'unit', roots: TIERS.unit },
    {
      ...everyTier,
      ...servers,
      displayName: 'integration',
      // examples/ holds an application's own test as a user writes it, importing `durable-agents/testing`.
      roots: ['<rootDir>/test', '<rootDir>/examples'],
      testPathIgnorePatterns: ['/node_modules/', ...Object.values(TIERS).flat()],
    },
    { ...everyTier, ...servers, displayName: 'browser', roots: TIERS.browser },
    { ...everyTier, ...servers, displayName: 'chaos', roots: TIERS.chaos },
  ],
  // Most tests wait on the server and on timers, not on the CPU: two files per core run at once
  // against the one dev server, each on task queues and workflow ids of its own (at most 8, which
  // the one dev server is trusted to serve).
  maxWorkers: Math.min(8, 2 * availableParallelism()),
  // A guard against a hung test, not a speed check: files running side by side slow each other.
  testTimeout: 120_000,
  testSequencer: '<rootDir>/scripts/jest-tier-order.js',
  // The default report, the time each tier took, then one closing line that names the counts.
  reporters: ['default', '<rootDir>/scripts/jest-tier-times.js', '<rootDir>/scripts/jest-closing-line.js'],
};
