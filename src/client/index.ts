export {
  AgentClient,
  approvalArgsHash,
  type AgentListEntry,
  type StartAgentOptions,
  type WatchOptions,
} from './agent-client';
export { AgentClientError } from './client-errors';
