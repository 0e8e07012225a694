/**
 * Modules a worker's workflows share instead of each run evaluating its own copy (the SDK's
 * `preloadModules`: loaded once per reusable V8 context, then deep-frozen). zod holds no per-run
 * state and is the costliest module to set up for every new run; it is preloaded through
 * src/workflows/shared-modules.ts, since a preload of `zod` itself is dropped by the bundler. Schemas
 * built with it cannot be shared (they fill in lazy fields on first use, which a frozen object
 * refuses), so workflow code builds them on first use instead (src/policy/pev/answer-schemas.ts).
 */
export const PRELOADED_WORKFLOW_MODULES: readonly string[] = [`${__dirname}/../workflows/shared-modules`];
