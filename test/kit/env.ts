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

/** The tests' workflow entry: the production workflows plus test-only ones (see test-workflows.ts). */
export const TEST_WORKFLOWS = path.join(__dirname, 'test-workflows.ts');
/** Files of the test entry outside the bundled src folders, for the bundle cache key. */
export const TEST_WORKFLOW_FILES = [
  ...['test-workflows.ts', 'hello-workflow.ts', 'hello-contract.ts', 'failed-run-workflow.ts'].map((f) =>
    path.join(__dirname, f),
  ),
  path.join(REPO_ROOT, 'examples', 'reflect-agent.ts'),
  path.join(REPO_ROOT, 'src', 'workflow.ts'),
];
