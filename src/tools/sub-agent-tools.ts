/** Catalogue entries of a run's sub-agents: each a tool named after it, run by the workflow as a child run. */
import {
  DEFAULT_TOOL_MAX_OUTPUT_CHARS,
  DEFAULT_TOOL_TIMEOUT_MS,
  type ToolCatalogEntry,
} from '../contracts/tool-catalog';
import { SUB_AGENT_PARAMETERS } from '../policy/sub-agents';
import { toolFingerprint } from './fingerprint';

export function subAgentEntry({ name, description }: { name: string; description: string }): ToolCatalogEntry {
  return {
    name,
    description,
    parameters: SUB_AGENT_PARAMETERS,
    mode: 'agent',
    timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
    sideEffects: false,
    maxOutputChars: DEFAULT_TOOL_MAX_OUTPUT_CHARS,
    source: 'agent',
    fingerprint: toolFingerprint({ name, description, parameters: SUB_AGENT_PARAMETERS }),
  };
}
