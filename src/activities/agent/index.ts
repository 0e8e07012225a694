/** The agent activities a worker registers (see `AgentActivities` for the contract). */
import type { AgentActivities, ModelCallInput, ModelCallResult } from '../../contracts/agent-activities';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import { callWaitsForPin, pinRequest, pinnedCall } from '../../policy/pinning';
import { conversationOf } from './conversation-view';
import { heartbeating } from '../heartbeat';
import type { AgentActivityDeps } from './deps';
import { appendMessagesActivity } from './append-messages';
import { copyConversationActivity } from './copy-conversation';
import { modelCallActivity } from './model-call';
import { summariseActivity } from './summarise';
import { toolActivities } from './run-tool';
import { budgetActivities, withTenantBudget } from './tenant-budget';
import { withAttemptBudget } from './attempt-budget';

export { type AgentActivityDeps } from './deps';

/**
 * The agent activities over the worker's store, LLM layer (bound to its config) and tool
 * activities. Every one heartbeats while it runs, so a lost worker is noticed within the heartbeat timeout.
 */
export function createAgentActivities(deps: AgentActivityDeps): AgentActivities {
  const tools = toolActivities(deps.store, deps.tools, deps.llm, deps.captureContent);
  const appendMessages = appendMessagesActivity(deps.store);
  const callModel = modelCallActivity(deps, tools.runTool);
  const pinTools = withTenantBudget(async function pinTools(input: PinToolsInput): Promise<PinToolsOutput> {
    // The task first: a run whose tools cannot be pinned still shows it.
    const { open, ...pin } = input;
    const opened = open && (await appendMessages({ conversationId: input.conversationId, ...open }));
    return { ...(await tools.pinTools(pin)), ...(opened ? { opened } : {}) };
  });
  return {
    copyConversation: heartbeating(copyConversationActivity(deps.store)),
    // A run's first model call pins its tools first (`CallPin`).
    callModel: heartbeating(
      withAttemptBudget(async function callModelPinning(input: ModelCallInput): Promise<ModelCallResult> {
        const { pin, ...call } = input;
        if (!pin) return callModel(call);
        const pinned = await pinTools(pinRequest(pin.spec, pin.roles ?? [], conversationOf(call)));
        if (callWaitsForPin(pinned, pin.spec, call.model)) return { pinned, answered: false };
        return { ...(await callModel(pinnedCall(pinned, call, pin))), pinned };
      }),
    ),
    appendMessages: heartbeating(appendMessages),
    summariseConversation: heartbeating(withAttemptBudget(summariseActivity(deps))),
    pinTools: heartbeating(pinTools),
    runTool: heartbeating(tools.runTool),
    ...budgetActivities(),
  };
}
