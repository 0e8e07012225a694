/** The agent activities a worker registers (see `AgentActivities` for the contract). */
import type { AgentActivities } from '../../shared/agent/activity-types';
import type { AgentActivityDeps } from './deps';
import { appendMessagesActivity } from './messages';
import { modelCallActivity } from './model-call';
import { summariseActivity } from './summarise';
import { toolActivities } from './tools';

export { AGENT_STORE_FAILURE, type AgentActivityDeps, type ModelCaller } from './deps';

export function createAgentActivities(deps: AgentActivityDeps): AgentActivities {
  return {
    callModel: modelCallActivity(deps),
    appendMessages: appendMessagesActivity(deps.store),
    summariseConversation: summariseActivity(deps),
    ...toolActivities(deps.store, deps.tools),
  };
}
