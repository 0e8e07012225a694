/**
 * A run's trace: how it ended, what it spent, model and tool totals, and its steps turn by turn.
 * Built from the state query's answer; the turns whose events the state no longer keeps are read
 * from the run's conversation in the content store, when the caller has it.
 */
import type { Usage } from '../contracts/message-model';
import type { RunBilling, ToolStats } from '../contracts/run-stats';
import type { AgentStateView } from '../contracts/agent-run';
import type { AgentStatus, AgentStopReason } from '../contracts/run-status';
import type { RunMessage } from '../contracts/run-message';
import { errorText } from '../common/error-text';

import { needsStoredSteps, storedSteps, traceSteps, withStoredSteps, type TraceStep } from './trace-steps';

export { needsStoredSteps, storedSteps, traceSteps, type TraceStep, type TraceToolCall } from './trace-steps';

export interface RunTrace {
  id: string;
  kind: string;
  status: AgentStatus;
  stopReason?: AgentStopReason;
  turns: number;
  model: string;
  usage: Usage;
  costUsd: number;
  /** Billed tokens and cost (absent when the state came from a worker that predates it). */
  billing?: RunBilling;
  finalText: string;
  /** From the start of the run (its first run, across continue-as-new) to its last event. */
  elapsedMs?: number;
  modelCalls?: number;
  modelMs?: number;
  /** Model calls that failed, each after its attempts. */
  modelFailures?: number;
  /** The attempts the failed calls made. */
  modelFailedAttempts?: number;
  firstAnswerMs?: number;
  tools: Record<string, ToolStats>;
  steps: TraceStep[];
  /** Events the state no longer keeps (the totals are whole). */
  droppedEvents: number;
  /**
   * Steps read from the run's conversation in the content store, for turns whose events are no
   * longer kept: they have the model's answer and the tool calls with their results, but no
   * durations or notes.
   */
  stepsFromStore?: number;
  /** The run's child runs with their own traces, when asked for (`trace(id, { children: true })`). */
  children?: ChildTrace[];
}

/** A child run in its parent's trace: where it started, and its own trace (or why it could not be read). */
export interface ChildTrace {
  id: string;
  agent: string;
  /** The parent's turn it started in, and the call that started it or the todo it executed. */
  turn: number;
  toolCallId?: string;
  todoId?: string;
  trace?: RunTrace;
  /** Why its trace could not be read (no worker answered, …). */
  unread?: string;
}

/** The children of `view` with their traces, read by `read` (which reads their own children the same way). */
export async function childTraces(
  view: AgentStateView,
  read: (id: string) => Promise<RunTrace>,
): Promise<ChildTrace[]> {
  return Promise.all(
    (view.children ?? []).map(async (c) => {
      const at = {
        id: c.id,
        agent: c.agent,
        turn: c.turn,
        ...(c.toolCallId !== undefined ? { toolCallId: c.toolCallId } : {}),
        ...(c.todoId !== undefined ? { todoId: c.todoId } : {}),
      };
      try {
        return { ...at, trace: await read(c.id) };
      } catch (err) {
        return { ...at, unread: errorText(err) };
      }
    }),
  );
}

/**
 * The run's trace from its state view; `messages` (the run's stored conversation) gives what the
 * model thought at each turn, and the steps of the turns whose events the view no longer keeps
 * ({@link needsStoredSteps}).
 */
export function traceOf(view: AgentStateView, messages?: readonly RunMessage[]): RunTrace {
  const s = view.stats;
  const kept = traceSteps(view.events);
  const stored = messages ? storedSteps(messages, s?.startedAt ?? 0, Infinity) : [];
  const beforeKept = (kept[0]?.turn ?? view.turn) + 1;
  const older = needsStoredSteps(view) ? stored.filter((step) => step.turn < beforeKept) : [];
  const { steps, fromStore } = withStoredSteps(kept, older);
  const thoughts = new Map(stored.flatMap((step) => (step.thought ? [[step.turn, step.thought] as const] : [])));
  for (const step of steps) {
    const thought = thoughts.get(step.turn);
    if (thought) step.thought = thought;
  }
  return {
    id: view.id,
    kind: view.kind,
    status: view.status,
    ...(view.stopReason ? { stopReason: view.stopReason } : {}),
    turns: view.turn,
    model: view.model,
    usage: view.usage,
    costUsd: view.costUsd,
    ...(view.billing ? { billing: view.billing } : {}),
    finalText: view.finalText,
    ...(s
      ? {
          elapsedMs: s.lastEventAt - s.startedAt,
          modelCalls: s.modelCalls,
          modelMs: s.modelMs,
          modelFailures: s.modelFailures,
          ...(s.modelFailedAttempts !== undefined ? { modelFailedAttempts: s.modelFailedAttempts } : {}),
          ...(s.firstAnswerMs !== undefined ? { firstAnswerMs: s.firstAnswerMs } : {}),
        }
      : {}),
    tools: s?.tools ?? {},
    steps,
    droppedEvents: view.droppedEvents,
    ...(fromStore > 0 ? { stepsFromStore: fromStore } : {}),
  };
}
