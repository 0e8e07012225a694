/** The agent activities a worker registers (see `AgentActivities` for the contract). */
import type { AgentActivities, ModelCallInput, ModelCallResult, MovedToLimit } from '../../contracts/agent-activities';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import { callWaitsForPin, pinRequest, pinnedCall } from '../../policy/pinning';
import { modelRefOf } from '../../policy/model-ref';
import { conversationOf } from './conversation-view';
import { activityContext, heartbeating } from '../heartbeat';
import type { AgentActivityDeps } from './deps';
import { appendMessagesActivity } from './append-messages';
import { copyConversationActivity } from './copy-conversation';
import { modelCallActivity } from './model-call';
import { summariseActivity } from './summarise';
import { toolActivities } from './run-tool';
import { budgetActivities, withTenantBudget } from './tenant-budget';
import { withAttemptBudget } from './attempt-budget';

/**
 * The agent activities over the worker's store, LLM layer (bound to its config) and tool
 * activities. Every one heartbeats while it runs, so a lost worker is noticed within the heartbeat timeout.
 */
export function createAgentActivities(deps: AgentActivityDeps): AgentActivities {
  const tools = toolActivities(deps.store, deps.tools, deps.llm, deps.captureContent);
  const appendMessages = appendMessagesActivity(deps.store);
  const callModel = modelCallActivity(deps, tools.runTool);
  /** The call not made, when the model's calls belong on a limit's queue other than the one it reached. */
  const moved = (call: ModelCallInput): MovedToLimit | undefined => {
    const queue = activityContext()?.info.taskQueue;
    const ref = modelRefOf(call.model);
    const info = queue !== undefined && deps.routes?.moveFrom(queue, ref) ? deps.llm.describe(ref) : undefined;
    return info?.limitKey ? { modelInfo: info, answered: false } : undefined;
  };
  const pinTools = withTenantBudget(async function pinTools(input: PinToolsInput): Promise<PinToolsOutput> {
    // The task first: a run whose tools cannot be pinned still shows it.
    const { open, ...pin } = input;
    const opened = open && (await appendMessages({ conversationId: input.conversationId, ...open }));
    return { ...(await tools.pinTools(pin)), ...(opened ? { opened } : {}) };
  });
  return {
    copyConversation: heartbeating(copyConversationActivity(deps.store)),
    // A run's first model call pins its tools first (`CallPin`); a later one may belong on a limit's queue.
    callModel: heartbeating(
      withAttemptBudget(async function callModelPinning(input: ModelCallInput): Promise<ModelCallResult> {
        const { pin, ...call } = input;
        await deps.routes?.refresh(modelRefOf(call.model));
        if (!pin) return moved(call) ?? callModel(call);
        const pinned = await pinTools(pinRequest(pin.spec, pin.roles ?? [], conversationOf(call)));
        if (callWaitsForPin(pinned, pin.spec, modelRefOf(call.model))) return { pinned, answered: false };
        // Asked again after pinning, which takes a while: a limit may have been learned meanwhile.
        return { ...(moved(call) ?? (await callModel(pinnedCall(pinned, call, pin)))), pinned };
      }),
    ),
    appendMessages: heartbeating(appendMessages),
    summariseConversation: heartbeating(withAttemptBudget(summariseActivity(deps))),
    pinTools: heartbeating(pinTools),
    runTool: heartbeating(tools.runTool),
    ...budgetActivities(),
  };
}
