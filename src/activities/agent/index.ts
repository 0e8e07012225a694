/** The agent activities a worker registers (see `AgentActivities` for the contract). */
import type { AgentActivities } from '../../contracts/agent-activities';
import { heartbeating } from '../heartbeat';
import type { AgentActivityDeps } from './deps';
import { appendMessagesActivity } from './append-messages';
import { copyConversationActivity } from './copy-conversation';
import { modelCallActivity } from './model-call';
import { summariseActivity } from './summarise';
import { toolActivities } from './run-tool';
import { budgetActivities, withTenantBudget } from './tenant-budget';

export { type AgentActivityDeps, type ModelCaller } from './deps';

/**
 * The agent activities over the worker's store, LLM layer (bound to its config) and tool
 * activities. Every one heartbeats while it runs, so a lost worker is noticed within the heartbeat timeout.
 */
export function createAgentActivities(deps: AgentActivityDeps): AgentActivities {
  const tools = toolActivities(deps.store, deps.tools, deps.llm, deps.captureContent);
  return {
    copyConversation: heartbeating(copyConversationActivity(deps.store)),
    callModel: heartbeating(modelCallActivity(deps, tools.runTool)),
    appendMessages: heartbeating(appendMessagesActivity(deps.store)),
    summariseConversation: heartbeating(summariseActivity(deps)),
    pinTools: heartbeating(withTenantBudget(tools.pinTools)),
    runTool: heartbeating(tools.runTool),
    ...budgetActivities(),
  };
}
