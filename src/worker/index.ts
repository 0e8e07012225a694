/**
 * `durable-agents/worker`: what a worker process needs. The worker itself, the activities, the
 * content store, the tools API and the LLM layer's entry points.
 */
export { createWorker, runWorker, connectWorker, prebuiltBundlePath, configureWorkerLogging } from './create-worker';
export type { CreateWorkerOptions } from './create-worker';
export { createActivities, type ActivityDependencies, type WorkerActivities } from '../activities';
export { createAgentActivities } from '../activities/agent';
export { createPevActivities } from '../activities/pev';
export { createToolActivities } from '../activities/tool-activities';
export * from '../store';
export * from '../tools';
export { complete, stream, loadLlmConfig, parseModelSpec } from '../llm';
