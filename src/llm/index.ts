/**
 * The provider-neutral LLM layer (activity side). Workflows never import this module; they use
 * the contracts and call these functions through activities. Every call takes the worker's
 * config (`loadLlmConfig`), built once from the environment the worker was given.
 */
export { loadLlmConfig, credentialsOf, CONFIG_PATH_ENV } from './llm-config';
export type { CallLimits, LlmConfig, LlmConfigFile } from './llm-config';
export {
  complete,
  describeModel,
  healthCheck,
  llmClient,
  providerOf,
  stream,
  streamMessage,
  type LimitKeyOf,
  type LlmClient,
} from './model-calls';
export { parseToolArguments } from './tool-arguments';
export { requestProblems } from './validate-request';
export { toAnthropicToolId, toOpenAIToolId } from './tool-ids';
