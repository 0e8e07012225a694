/**
 * `durable-agents/worker`: what a worker process needs. The worker plugin and its config, the
 * content store, the tools API, telemetry and the LLM layer's entry points.
 */
export { DurableAgentsPlugin, type DurableAgentsPluginOptions } from './plugin';
export { WORKER_TUNING } from './worker-tuning';
export { runWorker, connectWorker, configureWorkerRuntime } from './run-worker';
export { prebuiltBundlePath, WORKFLOW_BUNDLE_ENV, type WorkflowCode } from './workflow-code';
export { limitQueues, type LimitQueue } from './limit-workers';
export { startQueueRate } from './queue-rate';
export {
  workerConfig,
  storeConfig,
  TOKEN_BATCH_ENV,
  LOG_LEVEL_ENV,
  type WorkerConfig,
  type WorkerConfigOptions,
} from './worker-config';
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
export { redactingStore, type ActivityConfig } from '../activities';
export { messageHook, type MessageHookCall } from '../activities/message-hook';
export {
  contextTransform,
  type ContextTransformCall,
  type ContextTransformResult,
} from '../activities/context-transform';
export * from '../store';
export * from '../tools';
export { complete, stream, llmClient, loadLlmConfig, describeModel } from '../llm';
export { SecretSet } from '../common/secrets';
export {
  telemetryConfigOf,
  METRICS_PORT_ENV,
  METRICS_BIND_ENV,
  CAPTURE_CONTENT_ENV,
  type TelemetryConfig,
} from '../telemetry';
