export { AgentClient, approvalArgsHash, type AgentListEntry, type StartAgentOptions } from './agent-client';
export { AgentClientError } from './errors';
