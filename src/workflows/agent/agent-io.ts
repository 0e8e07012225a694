/**
 * The activities the agent loop calls, as one typed interface. Each call gets the options it
 * needs (model: attempts per provider; tools: the tool's timeout and retry), so a loop built on
 * these functions (ReAct here, planner/executor/verifier elsewhere) shares one boundary.
 *
 * Cheap steps run as local activities (docs/design.md, History per turn): pinning the run's tools
 * when its first model call does not, a tool call the catalogue marks `local` that the model call did
 * not run itself, and the messages the workflow writes. A local activity runs on the workflow's own
 * worker inside the workflow task and leaves one marker event; it cannot heartbeat, and a worker that
 * dies while it runs is noticed by the workflow task's timeout, which runs it again. Runs whose
 * activities go to another task queue keep every step a regular activity.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Priority, RetryPolicy } from '@temporalio/common';
import type {
  AgentActivities,
  CopyConversationInput,
  CopyConversationOutput,
  ModelCallInput,
  ModelCallResult,
  RunToolInput,
  RunToolOutput,
  SummariseInput,
  SummariseOutput,
} from '../../contracts/agent-activities';
import type {
  AgentHookActivities,
  HookContextInput,
  HookContextOutput,
  HookErrorInput,
  HookMessageInput,
  HookModelInput,
  HookTurnEndInput,
  ModelChoice,
  TurnEndDecision,
} from '../../contracts/agent-hooks';
import type { AppendMessagesInput } from '../../contracts/message-drafts';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import type { MessageMeta, PinnedTool } from '../../contracts/agent-run';
import type { BudgetActivities } from '../../contracts/tenant-budget';
import { HEARTBEAT_TIMEOUT_MS } from '../../contracts/heartbeats';
import { DEFAULT_TOOL_RETRY, TOOL_ACTIVITY_GRACE_MS } from '../../contracts/tool-catalog';
import { toolCallSummary } from '../../policy/run-summaries';
import { usd } from '../../policy/tenant-budget';

export interface ModelRetry {
  maximumAttempts: number;
  nonRetryableErrorTypes: string[];
}

/** How one model call is made: its retry, its timeline line, and the queue of its model's limit, if any. */
interface ModelCallOptions {
  retry: ModelRetry;
  summary: string;
  /** A limited model's own task queue (`policy/llm-queues.ts`); default: the run's activity queue. */
  taskQueue?: string;
}

/**
 * The activities of a run. `summary` is the one line the timeline shows for that call (a tool
 * call's is its tool and telling argument).
 */
export interface AgentIO {
  callModel(input: ModelCallInput, options: ModelCallOptions): Promise<ModelCallResult>;
  appendMessages(input: AppendMessagesInput): Promise<MessageMeta[]>;
  pinTools(input: PinToolsInput): Promise<PinToolsOutput>;
  copyConversation(input: CopyConversationInput): Promise<CopyConversationOutput>;
  runTool(input: RunToolInput, tool: PinnedTool, timeoutMs: number): Promise<RunToolOutput>;
  summarise(input: SummariseInput, options: ModelCallOptions): Promise<SummariseOutput>;
  onTurnEnd(activity: string, input: HookTurnEndInput): Promise<boolean | TurnEndDecision>;
  resolveModel(activity: string, input: HookModelInput): Promise<ModelChoice | null | undefined>;
  transformContext(activity: string, input: HookContextInput): Promise<HookContextOutput | null | undefined>;
  onMessage(activity: string, input: HookMessageInput): Promise<void>;
  onError(activity: string, input: HookErrorInput): Promise<void>;
  reserveBudget: BudgetActivities['reserveBudget'];
  settleBudget: BudgetActivities['settleBudget'];
  releaseBudget: BudgetActivities['releaseBudget'];
}

const MODEL_CALL_TIMEOUT = '10 minutes';
const MODEL_RETRY_BASE: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
};
const HOOK_RETRY: RetryPolicy = { maximumAttempts: 3, initialInterval: '1 second' };
/**
 * A ledger that does not answer within these attempts counts as a refusal (fail closed): about a
 * minute when its workflow is not being served at all.
 */
const BUDGET_OPTIONS = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
} as const;

function toolRetry(tool: PinnedTool): RetryPolicy {
  const retry = tool.retry ?? {};
  return {
    maximumAttempts: retry.nonRetryable ? 1 : (retry.maximumAttempts ?? DEFAULT_TOOL_RETRY.maximumAttempts),
    initialInterval: retry.initialIntervalMs ?? DEFAULT_TOOL_RETRY.initialIntervalMs,
  };
}

/**
 * The activity-backed IO of an agent run. `taskQueue` sends the activities to another worker pool;
 * `priority` (the run's tenant and priority) goes with each of them.
 */
export function createAgentIO(options: { taskQueue?: string; stream?: boolean; priority?: Priority } = {}): AgentIO {
  // The run's tenant and priority go with every regular activity; local ones run in its own task.
  const queue = {
    ...(options.taskQueue ? { taskQueue: options.taskQueue } : {}),
    ...(options.priority ? { priority: options.priority } : {}),
  };
  const plain = proxyActivities<AgentActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { maximumAttempts: 5 },
  });
  const writes = proxyLocalActivities<AgentActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 5 },
    summary: 'write messages',
  });
  // Local activities only when the activities run on the workflow's own queue (its own workers).
  const local = options.taskQueue === undefined;
  // Pinning opens the run's MCP servers, which may take a while: a local activity that outlasts
  // the workflow task's timeout keeps the task alive.
  const pinning = proxyActivities<AgentActivities>({
    ...queue,
    startToCloseTimeout: '1 minute',
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { maximumAttempts: 5 },
  });
  const localPinning = proxyLocalActivities<AgentActivities>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 5 },
    summary: 'pin tools',
  });
  const budget = (summary: string) =>
    local
      ? proxyLocalActivities<AgentActivities>({ ...BUDGET_OPTIONS, summary })
      : proxyActivities<AgentActivities>({ ...queue, ...BUDGET_OPTIONS, summary });
  const hooks = (activity: string, retry: RetryPolicy = HOOK_RETRY) =>
    proxyActivities<Record<string, AgentHookActivities[keyof AgentHookActivities]>>({
      ...queue,
      startToCloseTimeout: '1 minute',
      retry,
      summary: `hook: ${activity}`,
    })[activity];
  return {
    callModel(input, { retry, summary, taskQueue }) {
      const { callModel } = proxyActivities<AgentActivities>({
        ...queue,
        ...(taskQueue ? { taskQueue } : {}),
        startToCloseTimeout: MODEL_CALL_TIMEOUT,
        heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
        retry: { ...MODEL_RETRY_BASE, ...retry },
        summary,
      });
      return callModel(input);
    },
    appendMessages: (input) => (local ? writes : plain).appendMessages(input),
    pinTools: (input) => (local ? localPinning : pinning).pinTools(input),
    copyConversation: (input) => (local ? writes : plain).copyConversation(input),
    runTool(input, tool, timeoutMs) {
      // The tool stops itself at `timeoutMs` with a readable error result; the grace keeps the
      // activity alive long enough to deliver it. Heartbeats notice a dead worker sooner.
      if (tool.local === true && local) {
        const { runTool } = proxyLocalActivities<AgentActivities>({
          startToCloseTimeout: timeoutMs + TOOL_ACTIVITY_GRACE_MS,
          retry: toolRetry(tool),
          summary: toolCallSummary(tool.name, input.args),
        });
        return runTool(input);
      }
      const { runTool } = proxyActivities<AgentActivities>({
        ...queue,
        startToCloseTimeout: timeoutMs + TOOL_ACTIVITY_GRACE_MS,
        heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
        retry: toolRetry(tool),
        summary: toolCallSummary(tool.name, input.args),
      });
      return runTool(input);
    },
    summarise(input, { retry, summary, taskQueue }) {
      const { summariseConversation } = proxyActivities<AgentActivities>({
        ...queue,
        ...(taskQueue ? { taskQueue } : {}),
        startToCloseTimeout: MODEL_CALL_TIMEOUT,
        heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
        retry: { ...MODEL_RETRY_BASE, ...retry },
        summary,
      });
      return summariseConversation(input);
    },
    reserveBudget: (input) => budget(`budget: reserve ${usd(input.usd)} for ${input.model}`).reserveBudget(input),
    settleBudget: (input) =>
      budget(input.lost ? 'budget: settle a failed call' : `budget: settle ${usd(input.usd)}`).settleBudget(input),
    releaseBudget: (input) => budget('budget: release').releaseBudget(input),
    onTurnEnd: (activity, input) => (hooks(activity) as AgentHookActivities['onTurnEnd'])(input),
    resolveModel: (activity, input) => (hooks(activity) as AgentHookActivities['resolveModel'])(input),
    transformContext: (activity, input) => (hooks(activity) as AgentHookActivities['transformContext'])(input),
    onMessage: (activity, input) => (hooks(activity) as AgentHookActivities['onMessage'])(input),
    // Best effort: the run is ending with an error; retrying a failing notifier would only delay it.
    onError: (activity, input) => (hooks(activity, { maximumAttempts: 1 }) as AgentHookActivities['onError'])(input),
  };
}
