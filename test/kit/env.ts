import path from 'node:path';

/** Environment variables the jest global setup uses to hand the run's server and bundle to tests. */
export const TEST_ENV = {
  address: 'DURABLE_AGENTS_TEST_ADDRESS',
  namespace: 'DURABLE_AGENTS_TEST_NAMESPACE',
  bundlePath: 'DURABLE_AGENTS_TEST_BUNDLE',
  cliPath: 'DURABLE_AGENTS_TEST_CLI',
  uiUrl: 'DURABLE_AGENTS_TEST_UI_URL',
} as const;

/**
 * The value of an environment variable the jest global setup sets, or a one-line error for a test
 * run without it: outside jest, or in the unit tier, which starts no server (docs/testing.md#tiers).
 */
export function setupValue(name: string, what: string): string {
  const value = process.env[name];
  if (value) return value;
  throw new Error(
    `${name} is not set: ${what} comes from the jest global setup, which the unit tier (test/unit, test/architecture) ` +
      "does not run; put a test that needs it in another folder, and run it through the project's jest.config.js.",
  );
}

/** Root of the repository. */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/**
 * What the workflow code is built from, for a cached bundle: the workflow-safe layers of src/ (the only ones
 * workflow code may import, lint-enforced; type-only imports vanish) and the lock file.
 */
export const WORKFLOW_SOURCES = ['common', 'contracts', 'policy', 'workflows']
  .map((dir) => path.join(REPO_ROOT, 'src', dir))
  .concat(path.join(REPO_ROOT, 'package-lock.json'));

/** Where cached workflow bundles are kept. */
export const BUNDLE_CACHE_DIR = path.join(REPO_ROOT, 'node_modules', '.cache', 'durable-agents');

/** The tests' workflow entry: the production workflows plus test-only ones (see test-workflows.ts). */
export const TEST_WORKFLOWS = path.join(__dirname, 'test-workflows.ts');
/** Files of the test entry outside the bundled src folders, for the bundle cache key. */
export const TEST_WORKFLOW_FILES = [
  ...['test-workflows.ts', 'hello-workflow.ts', 'hello-contract.ts', 'planned-first-workflow.ts'].map((f) =>
    path.join(__dirname, f),
  ),
  path.join(REPO_ROOT, 'examples', 'reflect-agent.ts'),
  path.join(REPO_ROOT, 'src', 'workflow.ts'),
];
