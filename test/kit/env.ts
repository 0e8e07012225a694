import path from 'node:path';

/** Environment variables the jest global setup uses to hand the run's server and bundle to tests. */
export const TEST_ENV = {
  address: 'DURABLE_AGENTS_TEST_ADDRESS',
  namespace: 'DURABLE_AGENTS_TEST_NAMESPACE',
  bundlePath: 'DURABLE_AGENTS_TEST_BUNDLE',
  cliPath: 'DURABLE_AGENTS_TEST_CLI',
  uiUrl: 'DURABLE_AGENTS_TEST_UI_URL',
} as const;

/** Root of the repository. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');
