/**
 * A sub-agent call, run as a child workflow (docs/subagents.md): the child starts with the
 * parent's tools narrowed to the sub-agent's and at most what is left of the parent's budget; a
 * stop or cancellation of the parent is passed on to it; when it ends, its usage and cost count
 * toward the parent's and its answer (or why it has none) is the call's result.
 */
import {
  ApplicationFailure,
  ChildWorkflowFailure,
  ParentClosePolicy,
  condition,
  isCancellation,
  startChild,
} from '@temporalio/workflow';
import type { AgentResult, ToolCallRequest } from '../../contracts/agent-run';
import { AGENT_WORKFLOWS, stopSignal, type AgentWorkflowInput } from '../../contracts/agent-workflows';
import { addCost, addUsage, emptyUsage, fullCost } from '../../contracts/message-model';
import type { ChildRun } from '../../contracts/sub-agents';
import { previewText } from '../../policy/previews';
import {
  callTask,
  childConfig,
  childResultText,
  childTask,
  childWorkflowId,
  depthRefusal,
  remainingBudget,
} from '../../policy/sub-agents';
import { emit, updateCurrentDetails, workflowNow, type RunContext } from './run-context';

export interface SubAgentOutcome {
  text: string;
  isError: boolean;
}

/** The result a child closed with: returned, or carried in the failure of a run that ended in error. */
function resultOf(err: unknown): AgentResult | undefined {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.details?.[0] && typeof cause.details[0] === 'object')
    return cause.details[0] as AgentResult;
  return undefined;
}

/** Why a child that closed without a result did not give one. */
function failureText(agent: string, err: unknown): string {
  const cause = err instanceof ChildWorkflowFailure && err.cause ? err.cause : err;
  const message = cause instanceof Error ? cause.message : String(cause);
  return `The sub-agent "${agent}" did not finish: ${message}`;
}

/**
 * Child records kept in state (every open one, and the newest ended ones): state is carried by
 * continue-as-new and read by every query. The run's totals count every child.
 */
const CHILDREN_KEPT = 200;

function keptChildren(children: ChildRun[]): ChildRun[] {
  const over = children.length + 1 - CHILDREN_KEPT;
  if (over <= 0) return children;
  const drop = new Set(children.filter((c) => c.endedAt !== undefined).slice(0, over));
  return children.filter((c) => !drop.has(c));
}

/** Records how the child ended and counts its spend toward the run's. */
function childEnded(ctx: RunContext, child: ChildRun, result: AgentResult | undefined): void {
  const { state } = ctx;
  child.endedAt = workflowNow();
  child.status = result?.status ?? 'failed';
  child.stopReason = result?.stopReason ?? 'error';
  child.usage = result?.usage ?? emptyUsage();
  child.costUsd = result?.costUsd ?? 0;
  state.usage = addUsage(state.usage, child.usage);
  state.cost = addCost(state.cost, fullCost({ total: child.costUsd }));
  emit(ctx, {
    type: 'child_end',
    toolCallId: child.toolCallId,
    agent: child.agent,
    childId: child.id,
    status: child.status,
    stopReason: child.stopReason,
    usage: child.usage,
    costUsd: child.costUsd,
  });
}

/** Runs one sub-agent call to its end; expected failures are error results the model can read. */
export async function runSubAgent(
  ctx: RunContext,
  call: ToolCallRequest,
  args: Record<string, unknown>,
): Promise<SubAgentOutcome> {
  const { state } = ctx;
  const agent = call.name;
  const refused = depthRefusal(state.config, agent);
  if (refused) return { text: refused, isError: true };
  const asked = callTask(args);
  if ('problem' in asked) return { text: asked.problem, isError: true };
  const budget = remainingBudget(state.config, state);
  if (budget.spent) return { text: `Not run: ${budget.spent}.`, isError: true };
  const { spent: _spent, ...share } = budget;
  const id = childWorkflowId(ctx.workflowId, agent, call.id);
  const task = childTask(asked.task, asked.context);
  const config = childConfig(state.config, { workflowId: ctx.workflowId, agent }, task, share);
  const child: ChildRun = {
    id,
    agent,
    toolCallId: call.id,
    turn: state.turn,
    status: 'running',
    usage: emptyUsage(),
    costUsd: 0,
    startedAt: workflowNow(),
  };
  state.children = [...keptChildren(state.children ?? []), child];
  emit(ctx, { type: 'child_start', toolCallId: call.id, agent, childId: id, task: previewText(asked.task) });
  updateCurrentDetails(ctx);
  let handle;
  try {
    handle = await startChild(AGENT_WORKFLOWS[config.kind as keyof typeof AGENT_WORKFLOWS], {
      workflowId: id,
      args: [{ config } satisfies AgentWorkflowInput],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: `sub-agent ${agent}: ${previewText(asked.task, 120)}`,
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    childEnded(ctx, child, undefined);
    return { text: failureText(agent, err), isError: true };
  }
  let settled = false;
  const ending: Promise<{ result?: AgentResult; err?: unknown }> = handle.result().then(
    (result) => ({ result: result as AgentResult }),
    (err: unknown) => ({ result: resultOf(err), err }),
  );
  void ending.then(() => (settled = true));
  await condition(() => settled || state.stopRequested !== undefined);
  if (!settled && state.stopRequested) {
    const { reason } = state.stopRequested;
    try {
      await handle.signal(stopSignal, { note: `the parent run was ${reason}`, reason });
    } catch (err) {
      // The child may have ended meanwhile; its result says how.
      if (isCancellation(err)) throw err;
    }
  }
  const { result, err } = await ending;
  childEnded(ctx, child, result);
  if (!result) return { text: failureText(agent, err), isError: true };
  return childResultText(agent, result);
}
