/**
 * Steps at the run level that every agent kind shares (docs/design.md, The turn loop): starting
 * the conversation, ending on a stop or a limit, handing over to a fresh run, and ending.
 */
import { errorText } from '../../common/error-text';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { ActivityFailure, ApplicationFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import { limitReached } from '../../policy/limits';
import { finalStatus } from '../../policy/agent-state';
import type { AgentState } from '../../contracts/agent-run';
import type { MessageDraft } from '../../contracts/agent-activities';
import type { AgentStopReason } from '../../contracts/run-status';
import type { ModelRef } from '../../contracts/model-ref';
import { runModels } from '../../policy/model-ref';
import { subAgentTools } from '../../policy/sub-agents';
import { budgetReason } from '../../policy/child-budget';
import { missingChoiceTool, runModelProblems } from '../../policy/call-settings';
import { appendDrafts } from './user-messages';
import { takeNotes } from './notes';
import { emit, publishSearchAttributes, type RunContext } from './run-context';

export type LoopOutcome = 'finished' | 'continue_as_new';

/** Updates accepted in one run before it continues as new (Temporal allows 2,000). */
const UPDATES_BEFORE_CONTINUE_AS_NEW = 1_500;

/** Read through a call: handlers change it while the run awaits, which narrowing cannot see. */
export const stopRequest = (ctx: RunContext): AgentState['stopRequested'] => ctx.state.stopRequested;

/** Whether the run should continue as new at the next turn boundary. */
export function shouldContinueAsNew(ctx: RunContext): boolean {
  const { state } = ctx;
  const every = state.config.continueAsNewAfterTurns;
  return (
    workflowInfo().continueAsNewSuggested ||
    (every !== undefined && state.turnsThisRun >= every) ||
    state.updatesHandled >= UPDATES_BEFORE_CONTINUE_AS_NEW
  );
}

/**
 * Thrown by a step that ended the run itself (its stop reason and error are in state); the run
 * scaffold takes it as the kind's `finished`, so a kind never checks for it.
 */
export class RunEnded extends Error {
  override name = 'RunEnded';
}

/** The failure's own message and type, from a failed activity's cause. */
function failureOf(err: unknown): { message: string; type?: string } {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  const message = errorText(cause);
  return cause instanceof ApplicationFailure && cause.type ? { message, type: cause.type } : { message };
}

/**
 * First steps of a new conversation: pin the tools, learn what the worker's config says about
 * the run's models (`roles`: models of its own a kind calls besides the run's), and write the task.
 * A new conversation writes its task in the activity that pins the tools (one local activity
 * before the first model call); one that goes on from an earlier run is copied meanwhile. Tools
 * that cannot be pinned (an MCP server that cannot start, after the activity's retries) end the
 * run in error, naming them, with its task written.
 */
export async function startConversation(ctx: RunContext, roles: readonly ModelRef[] = []): Promise<void> {
  const { state } = ctx;
  if (state.nextSeq > 0) return;
  const { config } = state;
  const task = taskDraft(state);
  const startSeq = state.nextSeq;
  if (!config.from) state.nextSeq += 1;
  const pinning = ctx.io.pinTools({
    conversationId: state.conversationId,
    selection: config.tools,
    ...(config.systemPrompt !== undefined ? { systemPrompt: config.systemPrompt } : {}),
    ...(config.context.mask ? { readBack: true } : {}),
    models: runModels(config, roles),
    ...(config.agents ? { agents: subAgentTools(config.agents) } : {}),
    ...(config.tenant === undefined ? {} : { tenant: config.tenant }),
    ...(config.from ? {} : { open: { startSeq, drafts: [task] } }),
    ...(config.plan?.length ? { planTool: true } : {}),
  });
  // A conversation that goes on is opened while the tools are pinned.
  const writing = openConversation(ctx, task);
  // Awaited below on every path but a cancellation, which must not leave its failure unhandled.
  writing.catch(() => undefined);
  let pinned;
  try {
    pinned = await pinning;
  } catch (err) {
    if (isCancellation(err)) throw err;
    await writing;
    if (!config.from) {
      // The activity wrote the task before it failed to pin: record it, so the ended run shows it.
      state.nextSeq = startSeq;
      await appendDrafts(ctx, [task]);
    }
    await fail(ctx, { ...failureOf(err), retryable: false });
    throw new RunEnded('the run ended while its tools were pinned');
  }
  if (pinned.opened) state.messages.push(...pinned.opened);
  state.tools = pinned.tools;
  state.toolSpecsHash = pinned.toolSpecsHash;
  state.promptHash = pinned.promptHash;
  state.selectionHash = pinned.selectionHash;
  if (pinned.models) state.models = pinned.models;
  if (pinned.tenantBudget) state.tenantBudget ??= { granted: 0 };
  await writing;
  // What the worker's entries say its models cannot take, known only now (the client checked the entries it knows).
  const problems = [
    ...runModelProblems(config, state.models ?? []),
    ...missingChoiceTool(config.toolChoice, state.tools),
  ];
  if (problems.length > 0) {
    await fail(ctx, { message: problems.join('; '), type: AGENT_FAILURE.config, retryable: false });
    throw new RunEnded('the run asks what its models or tools cannot give');
  }
}

/** The run's task as the conversation's first user message. */
function taskDraft(state: AgentState): MessageDraft {
  const { task, taskHash } = state.config;
  return { kind: 'user', text: task, origin: 'task', ...(taskHash ? { textHash: taskHash } : {}) };
}

/**
 * The first messages of a conversation that goes on from an earlier run (`config.from`): that
 * run's, then the task. A fork without a task goes on from its last turn's tool results.
 */
async function openConversation(ctx: RunContext, task: MessageDraft): Promise<void> {
  const { state } = ctx;
  const from = state.config.from;
  if (!from) return;
  let copied;
  try {
    copied = await ctx.io.copyConversation({
      from: from.conversationId,
      to: state.conversationId,
      ...(from.atTurn !== undefined ? { atTurn: from.atTurn } : {}),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    await fail(ctx, { ...failureOf(err), retryable: false });
    throw new RunEnded('the run ended while its conversation was opened');
  }
  state.messages.push(...copied.messages);
  state.nextSeq = copied.messages.length;
  emit(ctx, {
    type: 'conversation_continued',
    fromRun: from.runId,
    ...(from.atTurn !== undefined ? { atTurn: from.atTurn } : {}),
    messages: copied.messages.length,
    turns: copied.turns,
  });
  if (state.config.task.trim() === '') {
    if (!copied.endsWithAnswer) return;
    await fail(ctx, {
      message: `${from.runId} ends with an answer at turn ${copied.turns}: give the new run a task to answer`,
      type: AGENT_FAILURE.config,
      retryable: false,
    });
    throw new RunEnded('the run has nothing to answer');
  }
  await appendDrafts(ctx, [task]);
}

/** Ends the run: records the stop reason, the final event and the search attributes. */
export async function finish(ctx: RunContext, reason: AgentStopReason): Promise<LoopOutcome> {
  const { state } = ctx;
  // Every call has its result by now (a run ends between turns or after closing its calls).
  await takeNotes(ctx);
  state.stopReason = reason;
  state.status = finalStatus(reason);
  if (reason === 'error' && state.error && state.config.hooks?.onError) {
    try {
      await ctx.io.onError(state.config.hooks.onError, {
        conversationId: state.conversationId,
        message: state.error.message,
        failureType: state.error.type,
        retryable: state.error.retryable,
      });
    } catch (err) {
      // A failing on-error hook must not mask the original error.
      if (isCancellation(err)) throw err;
    }
  }
  emit(ctx, {
    type: 'done',
    stopReason: reason,
    finalText: state.finalText,
    turns: state.turn,
    usage: state.usage,
    costUsd: state.cost.total,
  });
  publishSearchAttributes(ctx, 'done');
  return 'finished';
}

export async function fail(
  ctx: RunContext,
  error: { message: string; type?: string; retryable: boolean },
): Promise<LoopOutcome> {
  ctx.state.error = error;
  emit(ctx, { type: 'error', message: error.message, failureType: error.type, retryable: error.retryable });
  return finish(ctx, 'error');
}

/**
 * Ends the run when a stop was requested (a cancellation counts as one) or a run-wide limit is
 * reached. Every turn starts with it; a kind calls it before it writes a prompt for a turn, so no
 * prompt is left unanswered by a turn that will not happen.
 */
export async function endIfStoppedOrLimited(ctx: RunContext): Promise<LoopOutcome | undefined> {
  const stop = stopRequest(ctx);
  if (stop) return finish(ctx, stop.reason);
  const limit = limitReached(ctx.state.config.limits, ctx.state);
  return limit ? finish(ctx, budgetReason(ctx.state.config, limit)) : undefined;
}
