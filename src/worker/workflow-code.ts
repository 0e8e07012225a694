/**
 * The workflow code a worker runs: the prebuilt bundle (`npm run build` writes it next to the
 * compiled worker), else src/workflows bundled at the worker's start with the same modules the
 * prebuilt one has.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BundleOptions, WorkflowBundleOption } from '@temporalio/worker';
import { PRELOADED_WORKFLOW_MODULES, WORKFLOW_INTERCEPTOR_MODULES } from '../common/preloaded-modules';
import { SetupError } from '../connection/setup-error';

/** Where the build writes the ahead-of-time workflow bundle (next to the compiled worker). */
const BUNDLE_FILE_NAME = 'workflow-bundle.js';

/** Environment variable: a prebuilt workflow bundle to load. */
export const WORKFLOW_BUNDLE_ENV = 'DURABLE_AGENTS_WORKFLOW_BUNDLE';

/**
 * The prebuilt workflow bundle: `DURABLE_AGENTS_WORKFLOW_BUNDLE`, else `workflow-bundle.js` next
 * to the compiled worker (dist/). Undefined when there is none, e.g. when running from source:
 * the worker then bundles at start, which is slower but never stale.
 */
export function prebuiltBundlePath(env: NodeJS.ProcessEnv): string | undefined {
  const explicit = env[WORKFLOW_BUNDLE_ENV];
  if (explicit) {
    if (!fs.existsSync(explicit))
      throw new SetupError(`${WORKFLOW_BUNDLE_ENV}=${explicit} does not exist: run \`npm run build\` or unset it.`);
    return explicit;
  }
  const beside = path.join(__dirname, '..', BUNDLE_FILE_NAME);
  return fs.existsSync(beside) ? beside : undefined;
}

/** A worker's workflow code: a bundle, or a workflows module bundled at its start. */
export type WorkflowCode = { workflowBundle: WorkflowBundleOption } | { workflowsPath: string };

/** The project's workflows: the prebuilt bundle at `bundlePath`, else src/workflows bundled at start. */
export const projectWorkflowCode = (bundlePath: string | undefined): WorkflowCode =>
  bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: require.resolve('../workflows') };

const merged = (existing: string[] | undefined, added: readonly string[]): string[] => [
  ...new Set([...(existing ?? []), ...added]),
];

/** Bundler options with the project's preloaded modules and workflow interceptors added. */
export function withProjectModules(options: BundleOptions): BundleOptions {
  return {
    ...options,
    preloadModules: merged(options.preloadModules, PRELOADED_WORKFLOW_MODULES),
    workflowInterceptorModules: merged(options.workflowInterceptorModules, WORKFLOW_INTERCEPTOR_MODULES),
  };
}
