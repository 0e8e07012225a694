/**
 * What the bundler puts into every bundle of the project's workflows, ahead of time
 * (`server/workflow-bundle.ts`) or at a worker's start (the worker plugin's bundler options).
 *
 * Preloaded modules are shared by a worker's workflows instead of each run evaluating its own copy
 * (the SDK's `preloadModules`: loaded once per reusable V8 context, then deep-frozen): zod, and
 * every module of `contracts` and `policy`, none of which holds a run's state. They are preloaded
 * through src/workflows/shared-modules.ts, since a preload of `zod` itself is dropped by the
 * bundler. Schemas built with zod cannot be shared (they fill in lazy fields on first use, which a
 * frozen object refuses), so workflow code builds them on first use instead
 * (src/policy/pev/answer-schemas.ts).
 */
export const PRELOADED_WORKFLOW_MODULES: readonly string[] = [`${__dirname}/../workflows/shared-modules`];

/**
 * Workflow interceptor modules: the tracing interceptors, in every bundle whether or not the worker
 * exports traces, so that turning tracing on or off never changes the code a run replays.
 */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [`${__dirname}/../workflows/tracing-interceptors`];
