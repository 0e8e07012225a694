/** `durable-agents` and `durable-agents/client`: start, steer, approve, watch and inspect agent runs. */
export {
  AgentClient,
  approvalArgsHash,
  type AgentClientOptions,
  type AgentListEntry,
  type StartAgentOptions,
  type WatchOptions,
} from './agent-client';
export { AgentClientError } from './client-errors';
export {
  connectClient,
  connectionSettingsFromEnv,
  unreachableMessage,
  DEFAULT_ADDRESS,
  type ConnectionSettings,
} from '../connection/connection-settings';
export { SetupError } from '../connection/setup-error';
export { parseModelRef, modelRefOf } from '../policy/model-ref';
export { modelLabel, type ModelName, type ModelRef } from '../contracts/model-ref';
export { traceOf, traceSteps, type RunTrace, type TraceStep, type TraceToolCall } from './trace';
