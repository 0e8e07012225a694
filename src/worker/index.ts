/**
 * `durable-agents/worker`: what a worker process needs. The worker itself and its config, the
 * activities, the content store, the tools API and the LLM layer's entry points.
 */
export { createWorker, runWorker, connectWorker, prebuiltBundlePath, configureWorkerLogging } from './create-worker';
export type { CreateWorkerOptions } from './create-worker';
export { createLimitWorkers, limitQueues, runTogether, startQueueRate, type LimitQueue } from './limit-workers';
export { workerConfig, TOKEN_BATCH_ENV, type WorkerConfig, type WorkerConfigOptions } from './worker-config';
export {
  deploymentVersionOf,
  workerDeploymentOptions,
  versionLabel,
  DEPLOYMENT_ENV,
  BUILD_ID_ENV,
  MAX_VERSION_PART_LENGTH,
  type DeploymentFlags,
  type WorkerDeploymentVersion,
} from './worker-deployment';
export { RedactingLogger, redactionInterceptor, redactError } from './redaction';
export { ExpectedFailureLogger } from './failure-log';
export {
  createActivities,
  redactingStore,
  type ActivityConfig,
  type ActivityDependencies,
  type WorkerActivities,
} from '../activities';
export { createAgentActivities } from '../activities/agent';
export { createPevActivities } from '../activities/pev';
export { messageHook, type MessageHookCall } from '../activities/message-hook';
export {
  contextTransform,
  type ContextTransformCall,
  type ContextTransformResult,
} from '../activities/context-transform';
export { createToolActivities } from '../activities/tool-activities';
export * from '../store';
export * from '../tools';
export { complete, stream, llmClient, loadLlmConfig, describeModel } from '../llm';
export { SecretSet } from '../common/secrets';
