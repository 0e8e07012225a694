/** Catalogue entries of a run's sub-agents: each a tool named after it, run by the workflow as a child run. */
import type { ToolCatalogEntry } from '../contracts/tool-catalog';
import { SUB_AGENT_PARAMETERS } from '../policy/sub-agents';
import { catalogEntry } from './fingerprint';

export function subAgentEntry({ name, description }: { name: string; description: string }): ToolCatalogEntry {
  return catalogEntry({ name, description, parameters: SUB_AGENT_PARAMETERS, mode: 'agent', source: 'agent' });
}
