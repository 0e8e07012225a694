/**
 * The activities a run calls, and the one place that decides how each is made (docs/design.md,
 * History per turn): a quick step (a message write, pinning the tools, a quick tool call, a budget
 * reservation) runs as a local activity on the run's own worker inside the workflow task when the
 * run's activities go to the workflow's own queue, and as a regular activity otherwise; everything
 * else is a regular activity that heartbeats. Every regular activity carries the run's priority.
 * A local activity leaves one marker event; it cannot heartbeat, and a worker that dies while it
 * runs is noticed by the workflow task's timeout, which runs it again.
 */
import {
  proxyActivities,
  proxyLocalActivities,
  type ActivityInterfaceFor,
  type LocalActivityInterfaceFor,
} from '@temporalio/workflow';
import type { Duration, Priority, RetryPolicy } from '@temporalio/common';
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
import type { AppendMessagesInput } from '../../contracts/message-drafts';
import type { PinToolsInput, PinToolsOutput } from '../../contracts/tool-pin';
import type { MessageMeta, PinnedTool } from '../../contracts/agent-run';
import { HEARTBEAT_TIMEOUT_MS } from '../../contracts/heartbeats';
import { DEFAULT_TOOL_RETRY, TOOL_ACTIVITY_GRACE_MS } from '../../contracts/tool-catalog';
import { toolCallSummary } from '../../policy/run-summaries';

export interface ModelRetry {
  maximumAttempts: number;
  nonRetryableErrorTypes: string[];
}

/** How one activity of the run is made. */
export interface ActivityOptions {
  /** `quick`: local when the run's activities are on the workflow's own queue; `regular`: always scheduled. */
  shape: 'quick' | 'regular';
  /** The one line the timeline shows for it. */
  summary?: string;
  /** Default one minute. */
  startToCloseTimeout?: Duration;
  /** Default five attempts. */
  retry?: RetryPolicy;
  /** Another queue than the run's (a limited model's, `policy/llm-queues.ts`); the activity is then regular. */
  taskQueue?: string;
}

/** Activities as a run calls them: local or regular, each a function of its interface. */
export type Proxied<A> = ActivityInterfaceFor<A> | LocalActivityInterfaceFor<A>;

/** How one model call is made: its retry, its timeline line, and the queue of its model's limit, if any. */
export interface ModelCallOptions {
  retry: ModelRetry;
  summary: string;
  taskQueue?: string;
}

/** The activities of a run, and the one door to any other (a feature's, a kind's). */
export interface AgentIO {
  /** The activities of type `A`, made as `options` says. */
  activities<A extends object>(options: ActivityOptions): Proxied<A>;
  callModel(input: ModelCallInput, options: ModelCallOptions): Promise<ModelCallResult>;
  summarise(input: SummariseInput, options: ModelCallOptions): Promise<SummariseOutput>;
  runTool(input: RunToolInput, tool: PinnedTool, timeoutMs: number): Promise<RunToolOutput>;
  appendMessages(input: AppendMessagesInput): Promise<MessageMeta[]>;
  copyConversation(input: CopyConversationInput): Promise<CopyConversationOutput>;
  pinTools(input: PinToolsInput): Promise<PinToolsOutput>;
}

const MODEL_CALL_TIMEOUT = '10 minutes';
const MODEL_RETRY_BASE: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '30 seconds',
};
const DEFAULT_RETRY: RetryPolicy = { maximumAttempts: 5 };

function toolRetry(tool: PinnedTool): RetryPolicy {
  const retry = tool.retry ?? {};
  return {
    maximumAttempts: retry.nonRetryable ? 1 : (retry.maximumAttempts ?? DEFAULT_TOOL_RETRY.maximumAttempts),
    initialInterval: retry.initialIntervalMs ?? DEFAULT_TOOL_RETRY.initialIntervalMs,
  };
}

/**
 * The activity-backed IO of a run. `taskQueue` sends its activities to another worker pool (every
 * step is then regular); `priority` (its fairness key and priority) goes with each regular one.
 */
export function createAgentIO(run: { taskQueue?: string; priority?: Priority } = {}): AgentIO {
  const onOwnQueue = run.taskQueue === undefined;
  const activities = <A extends object>(o: ActivityOptions): Proxied<A> => {
    const common = {
      startToCloseTimeout: o.startToCloseTimeout ?? '1 minute',
      retry: o.retry ?? DEFAULT_RETRY,
      ...(o.summary ? { summary: o.summary } : {}),
    };
    if (o.shape === 'quick' && onOwnQueue && !o.taskQueue) return proxyLocalActivities<A>(common);
    const taskQueue = o.taskQueue ?? run.taskQueue;
    return proxyActivities<A>({
      ...common,
      ...(taskQueue ? { taskQueue } : {}),
      ...(run.priority ? { priority: run.priority } : {}),
      heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    });
  };
  const model = ({ retry, summary, taskQueue }: ModelCallOptions): Proxied<AgentActivities> =>
    activities<AgentActivities>({
      shape: 'regular',
      summary,
      startToCloseTimeout: MODEL_CALL_TIMEOUT,
      retry: { ...MODEL_RETRY_BASE, ...retry },
      ...(taskQueue ? { taskQueue } : {}),
    });
  const writes = activities<AgentActivities>({ shape: 'quick', summary: 'write messages' });
  return {
    activities,
    callModel: (input, options) => model(options).callModel(input),
    summarise: (input, options) => model(options).summariseConversation(input),
    // The tool stops itself at `timeoutMs` with a readable error result; the grace keeps the
    // activity alive long enough to deliver it.
    runTool: (input, tool, timeoutMs) =>
      activities<AgentActivities>({
        shape: tool.local === true ? 'quick' : 'regular',
        summary: toolCallSummary(tool.name, input.args),
        startToCloseTimeout: timeoutMs + TOOL_ACTIVITY_GRACE_MS,
        retry: toolRetry(tool),
      }).runTool(input),
    appendMessages: (input) => writes.appendMessages(input),
    copyConversation: (input) => writes.copyConversation(input),
    pinTools: (input) => activities<AgentActivities>({ shape: 'quick', summary: 'pin tools' }).pinTools(input),
  };
}
