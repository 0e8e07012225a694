/** What a failed run carries in its failure's details: its result, told apart from other details. */
import type { AgentResult } from '../contracts/agent-run';

export const isAgentResult = (value: unknown): value is AgentResult =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AgentResult).id === 'string' &&
  typeof (value as AgentResult).stopReason === 'string' &&
  typeof (value as AgentResult).status === 'string';
