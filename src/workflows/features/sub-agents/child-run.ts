/**
 * Child runs (docs/subagents.md): a sub-agent call, or a pev todo executed in a run of its own. A
 * child starts with the parent's tools narrowed to its own and its share of the parent's budget,
 * held for it while it runs; a stop or cancellation of the parent is passed on to it; when it
 * ends, its usage and cost count toward the parent's and its answer (or why it has none) is what
 * the parent reads.
 */
import {
  ApplicationFailure,
  ChildWorkflowFailure,
  ParentClosePolicy,
  condition,
  isCancellation,
  startChild,
} from '@temporalio/workflow';
import type { AgentResult } from '../../../contracts/agent-run';
import type { MessageDraft } from '../../../contracts/message-drafts';
import type { FeatureCall } from '../../agent/feature';
import { stopSignal, type AgentWorkflowInput } from '../../../contracts/agent-workflows';
import { addCost, addUsage, emptyUsage, fullCost } from '../../../contracts/message-model';
import type { ChildRun } from '../../../contracts/sub-agents';
import { previewText } from '../../../policy/previews';
import { startSearchAttributes } from '../../../policy/search-attribute-values';
import { code } from '../../../policy/markdown';
import { runDetails } from '../../../policy/run-details';
import {
  callTask,
  childConfig,
  childFacts,
  childResultText,
  childTask,
  childWorkflowId,
  depthRefusal,
  type ChildLink,
} from '../../../policy/sub-agents';
import { childBudget } from '../../../policy/child-budget';
import { childEvalOf, countChild, emptyTally } from '../../../policy/served-tools';
import { delegationOf, forgetWaits } from './child-waits';
import { answeredCall, emit, updateCurrentDetails, workflowNow, type RunContext } from '../../agent/run-context';

/** A child run to start. */
export interface ChildStart {
  /** The child's workflow id. */
  id: string;
  /** The name the parent gives it (a sub-agent's, or `executor`). */
  agent: string;
  /** What starts it: a sub-agent call, or a pev todo. */
  origin: { toolCallId: string } | { todoId: string };
  /** Its task, the first message of its conversation; `preview` is what the parent's events show. */
  task: string;
  preview: string;
  /** Stands in for the parent's declaration of `agent` (a pev todo's executor), or its eval record. */
  as?: Pick<ChildLink, 'spec' | 'resolver' | 'eval'>;
  /** Children still to start in this fan-out, this one included: its budget is its share of what is free. */
  starting: number;
}

/** How a child ended, for its parent: the text it reads, and the child's result when it gave one. */
export interface ChildOutcome {
  text: string;
  isError: boolean;
  result?: AgentResult;
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

/** Records how the child ended, releases its budget and counts its spend toward the run's. */
async function childEnded(ctx: RunContext, child: ChildRun, result: AgentResult | undefined): Promise<void> {
  const { state } = ctx;
  child.endedAt = workflowNow();
  child.status = result?.status ?? 'failed';
  child.stopReason = result?.stopReason ?? 'error';
  child.usage = result?.usage ?? emptyUsage();
  child.costUsd = result?.costUsd ?? 0;
  delete delegationOf(ctx).reserved[child.id];
  if (result?.eval) countChild((state.eval ??= emptyTally()), child, result.eval);
  state.usage = addUsage(state.usage, child.usage);
  state.cost = addCost(state.cost, fullCost({ total: child.costUsd }));
  emit(ctx, {
    type: 'child_end',
    ...(child.todoId !== undefined ? { todoId: child.todoId } : { toolCallId: child.toolCallId }),
    agent: child.agent,
    childId: child.id,
    status: child.status,
    stopReason: child.stopReason,
    usage: child.usage,
    costUsd: child.costUsd,
  });
  await forgetWaits(ctx, child.id);
}

/** Starts a child run and waits for its end; expected failures are error texts the parent's model can read. */
export async function runChild(ctx: RunContext, start: ChildStart): Promise<ChildOutcome> {
  const { state } = ctx;
  const { id, agent } = start;
  const refused = depthRefusal(state.config, agent);
  if (refused) return { text: refused, isError: true };
  const { budget, spent } = childBudget(state.config, state, Object.values(delegationOf(ctx).reserved), start.starting);
  if (spent) return { text: `Not run: ${spent}.`, isError: true };
  const link = { workflowId: ctx.workflowId, agent, ...start.as };
  const config = childConfig(state.config, link, start.task, budget);
  const workflowType = childFacts(link.spec ?? (state.config.agents ?? {})[agent])?.workflowType ?? '';
  const child: ChildRun = {
    id,
    agent,
    ...start.origin,
    turn: state.turn,
    status: 'running',
    usage: emptyUsage(),
    costUsd: 0,
    startedAt: workflowNow(),
  };
  delegationOf(ctx).reserved[id] = budget;
  state.children = [...keptChildren(state.children ?? []), child];
  emit(ctx, { type: 'child_start', ...start.origin, agent, childId: id, task: start.preview });
  updateCurrentDetails(ctx);
  let handle;
  try {
    handle = await startChild(workflowType, {
      workflowId: id,
      args: [{ config } satisfies AgentWorkflowInput],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      staticSummary: `sub-agent ${agent}: ${previewText(start.preview, 120)}`,
      staticDetails: runDetails(config, start.task, [`- **Parent** ${code(ctx.workflowId)}, as its ${agent}`]),
      // Findable from the start, with its task (`list --parent`), as a run a client starts is.
      ...(config.searchAttributes === false
        ? {}
        : { typedSearchAttributes: startSearchAttributes(config, start.preview) }),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    await childEnded(ctx, child, undefined);
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
  await childEnded(ctx, child, result);
  if (!result) return { text: failureText(agent, err), isError: true };
  return { ...childResultText(agent, result), result };
}

/**
 * Runs one sub-agent call to its end; its answer (or why it has none) is the call's result, which the
 * workflow writes. `starting`: the sub-agent calls of the answer still to start, this one included.
 */
export async function runSubAgent(ctx: RunContext, { call, args, starting }: FeatureCall): Promise<MessageDraft> {
  const started = workflowNow();
  const asked = callTask(args);
  // In an eval, a replay's child is served its own recorded table.
  const { eval: spec } = ctx.state.config;
  const evalSpec = spec && childEvalOf(spec, (ctx.state.eval ??= emptyTally()), call.name, args);
  const { text, isError } =
    'problem' in asked
      ? { text: asked.problem, isError: true }
      : await runChild(ctx, {
          id: childWorkflowId(ctx.workflowId, call.name, call.id),
          agent: call.name,
          origin: { toolCallId: call.id },
          task: childTask(asked.task, asked.context),
          preview: previewText(asked.task),
          starting,
          ...(evalSpec ? { as: { eval: evalSpec } } : {}),
        });
  return answeredCall(ctx, call, text, isError, workflowNow() - started);
}
