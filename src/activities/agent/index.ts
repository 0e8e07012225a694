/** The agent activities a worker registers (see `AgentActivities` for the contract). */
import { complete, stream } from '../../llm';
import type { AgentActivities } from '../../contracts/agent-activities';
import type { ToolActivities } from '../../contracts/tool-catalog';
import { FileContentStore } from '../../store';
import type { AgentActivityDeps } from './deps';
import { appendMessagesActivity } from './append-messages';
import { modelCallActivity } from './model-call';
import { summariseActivity } from './summarise';
import { toolActivities } from './run-tool';

export { type AgentActivityDeps, type ModelCaller } from './deps';

/**
 * The agent activities. `tools` are the worker's tool activities; the store defaults to the
 * local-disk store (`DURABLE_AGENTS_STORE_DIR`) and the model caller to the LLM layer.
 */
export function createAgentActivities(deps: Partial<AgentActivityDeps> & { tools: ToolActivities }): AgentActivities {
  const full: AgentActivityDeps = {
    store: deps.store ?? new FileContentStore(),
    llm: deps.llm ?? { complete, stream },
    tools: deps.tools,
  };
  return {
    callModel: modelCallActivity(full),
    appendMessages: appendMessagesActivity(full.store),
    summariseConversation: summariseActivity(full),
    ...toolActivities(full.store, full.tools),
  };
}
