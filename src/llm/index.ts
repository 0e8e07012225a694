/**
 * The provider-neutral LLM layer (activity side). Workflows never import this module; they use
 * the contracts and call these functions through activities. Every call takes the worker's
 * config (`loadLlmConfig`), built once from the environment the worker was given.
 */
export { classifyError, retryAfterFromHeaders } from './classify-error';
export type { ErrorContext } from './classify-error';
export {
  loadLlmConfig,
  credentialsOf,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  CONFIG_PATH_ENV,
  DEFAULT_CONFIG_FILE,
} from './llm-config';
export type {
  CallLimits,
  LlmConfig,
  LlmConfigFile,
  LoadLlmConfigOptions,
  ProviderApi,
  ProviderConfig,
} from './llm-config';
export type { CallContext } from './adapter-types';
export type { LlmFailureDetails } from './failures';
export {
  complete,
  describeModel,
  healthCheck,
  llmClient,
  providerOf,
  stream,
  streamMessage,
  type HealthCheckResult,
  type LlmClient,
} from './model-calls';
export { parseToolArguments } from './tool-arguments';
export { requestProblems } from './validate-request';
export { toAnthropicToolId, toOpenAIToolId } from './tool-ids';
export { computeCost } from '../policy/model-registry';
