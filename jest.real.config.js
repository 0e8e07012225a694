// The real tier (docs/testing.md#the-real-tier), run by scripts/real-temporal.sh after the other tiers:
// the tests that read visibility, a few fleet tests and its own (test/real/) against Temporal's own
// server on PostgreSQL, which its global setup starts (test/kit/real-global-setup.ts).
const base = require('./jest.config.js');

const integration = base.projects.find((project) => project.displayName === 'integration');

/** Files of the other tiers that this one runs again, on the real server. */
const AGAIN = [
  // `list` and its filters, the search attributes a run shows before and after it ends.
  'test/cli/run-surface.test.ts',
  'test/cli/run-endings.test.ts',
  'test/cli/operator-surface.test.ts',
  // The server's queue rate limit and fairness, and the tenant budgets' visibility queries.
  'test/fleet/provider-limits.test.ts',
  'test/fleet/tenant-budget.test.ts',
];

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  // Two files at a time: the fleet tests read the server's rate limit in windows of seconds.
  maxWorkers: 2,
  projects: [
    {
      ...integration,
      displayName: 'real',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/real/**/*.test.ts', ...AGAIN.map((file) => `<rootDir>/${file}`)],
      testPathIgnorePatterns: ['/node_modules/'],
      globalSetup: '<rootDir>/test/kit/real-global-setup.ts',
    },
  ],
};
