/**
 * The durable agent loop (docs/design.md, The turn loop). Reusable: another agent
 * kind builds a RunContext with its own state and calls `runAgentLoop`, or the single steps.
 */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { ActivityFailure, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ModelCallOutput } from '../../contracts/agent-activities';
import { limitReached } from '../../policy/limits';
import { finalStatus } from '../../policy/agent-state';
import type { AgentState } from '../../contracts/agent-run';
import type { AgentStopReason } from '../../contracts/run-status';
import { addCost, addUsage } from '../../contracts/message-model';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import { runModels } from '../../policy/model-ref';
import { appendDrafts, injectFollowUps, injectSteering } from './user-messages';
import { callModelWithFailover, compactIfNeeded, resolveModel } from './model-step';
import { emit, publishSearchAttributes, type RunContext } from './run-context';
import { runToolCalls } from './tool-step';

export type LoopOutcome = 'finished' | 'continue_as_new';

/** Updates accepted in one run before it continues as new (Temporal allows 2,000). */
export const UPDATES_BEFORE_CONTINUE_AS_NEW = 1_500;

/** The message of a failure; for a failed activity, its cause's (the activity's own error). */
function errorText(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

/** Read through a call: handlers change it while the loop awaits, which narrowing cannot see. */
const stopRequest = (ctx: RunContext): AgentState['stopRequested'] => ctx.state.stopRequested;

/** Whether the run should hand over to a fresh one at the next turn boundary. */
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
 * First steps of a new conversation: pin the tools, learn what the worker's config says about
 * the run's models (`roles`: models of its own a kind calls besides the run's), write the task.
 */
export async function startConversation(ctx: RunContext, roles: readonly ModelRef[] = []): Promise<void> {
  const { state } = ctx;
  if (state.nextSeq > 0) return;
  const pinned = await ctx.io.pinTools({
    conversationId: state.conversationId,
    selection: state.config.tools,
    models: runModels(state.config, roles),
  });
  state.tools = pinned.tools;
  state.toolSpecsHash = pinned.toolSpecsHash;
  if (pinned.models) state.models = pinned.models;
  for (const server of pinned.unavailableServers ?? []) {
    emit(ctx, { type: 'error', message: `MCP server ${server.name} unavailable: ${server.error}`, retryable: true });
  }
  await appendDrafts(ctx, [{ kind: 'user', text: state.config.task }]);
}

/** Ends the run: records the stop reason, the final event and the search attributes. */
export async function finish(ctx: RunContext, reason: AgentStopReason): Promise<LoopOutcome> {
  const { state } = ctx;
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

/** Records the assistant message of a turn. */
export async function recordAnswer(ctx: RunContext, out: ModelCallOutput): Promise<void> {
  const { state } = ctx;
  state.nextSeq = out.meta.seq + 1;
  state.messages.push(out.meta);
  state.usage = addUsage(state.usage, out.usage);
  state.cost = addCost(state.cost, out.cost);
  state.lastStopReason = out.stopReason;
  if (out.text) state.finalText = out.text;
  emit(ctx, {
    type: 'turn_end',
    model: modelLabel(state.resolver.current),
    provider: out.provider,
    stopReason: out.stopReason,
    toolCalls: out.toolCalls.length,
    usage: out.usage,
  });
  const hook = state.config.hooks?.onMessage;
  if (hook) {
    try {
      await ctx.io.onMessage(hook, { conversationId: state.conversationId, message: out.meta });
    } catch (err) {
      if (isCancellation(err)) throw err;
      emit(ctx, { type: 'hook_failed', hook: 'onMessage', message: errorText(err) });
    }
  }
}

/** The on-turn-end hook: false stops the run; a failure stops it with an error. */
export async function turnEndHook(ctx: RunContext, out: ModelCallOutput): Promise<'go' | 'stop' | 'failed'> {
  const { state } = ctx;
  const hook = state.config.hooks?.onTurnEnd;
  if (!hook) return 'go';
  try {
    const go = await ctx.io.onTurnEnd(hook, {
      conversationId: state.conversationId,
      turn: state.turn,
      model: modelLabel(state.resolver.current),
      provider: out.provider,
      turnUsage: out.usage,
      totalUsage: state.usage,
      costUsd: state.cost.total,
    });
    return go === false ? 'stop' : 'go';
  } catch (err) {
    if (isCancellation(err)) throw err;
    emit(ctx, { type: 'hook_failed', hook: 'onTurnEnd', message: errorText(err) });
    state.error = {
      message: `on-turn-end hook failed: ${errorText(err)}`,
      type: AGENT_FAILURE.hookFailed,
      retryable: false,
    };
    return 'failed';
  }
}

/** Runs turns until the run ends or should continue as new. */
export async function runAgentLoop(ctx: RunContext): Promise<LoopOutcome> {
  const { state } = ctx;
  await startConversation(ctx);
  for (;;) {
    if (state.stopRequested) return finish(ctx, state.stopRequested.reason);
    const limit = limitReached(state.config.limits, state);
    if (limit) return finish(ctx, limit);
    if (shouldContinueAsNew(ctx)) return 'continue_as_new';
    await injectSteering(ctx);

    state.turn += 1;
    state.turnsThisRun += 1;
    resolveModel(ctx);
    emit(ctx, { type: 'turn_start', model: modelLabel(state.resolver.current) });
    publishSearchAttributes(ctx, 'model');
    await compactIfNeeded(ctx);
    const step = await callModelWithFailover(ctx);
    if (!step.ok)
      return fail(ctx, { message: step.failure.message, type: step.failure.type, retryable: step.failure.retryable });
    const out = step.output;
    await recordAnswer(ctx, out);

    const hook = await turnEndHook(ctx, out);
    if (hook === 'failed') {
      await closeUnanswered(ctx, out);
      return fail(ctx, state.error ?? { message: 'on-turn-end hook failed', retryable: false });
    }
    if (hook === 'stop') {
      await closeUnanswered(ctx, out);
      return finish(ctx, 'hook_stopped');
    }

    if (out.toolCalls.length === 0) {
      if (out.stopReason === 'error')
        return fail(ctx, {
          message: out.errorMessage ?? 'the model returned an error',
          type: AGENT_FAILURE.model,
          retryable: false,
        });
      const stop = stopRequest(ctx);
      if (stop) return finish(ctx, stop.reason);
      if (await injectFollowUps(ctx)) continue;
      return finish(ctx, 'completed');
    }
    if (out.toolCalls.length > state.config.limits.maxToolCallsPerTurn) {
      await closeUnanswered(
        ctx,
        out,
        `Not run: the turn asked for ${out.toolCalls.length} tool calls; the limit is ` +
          `${state.config.limits.maxToolCallsPerTurn}.`,
      );
      return finish(ctx, 'max_tool_calls');
    }
    publishSearchAttributes(ctx, 'tools');
    const outcome = await runToolCalls(ctx, out.toolCalls);
    if (outcome === 'stopped') return finish(ctx, stopRequest(ctx)?.reason ?? 'stopped');
  }
}

/** Gives every tool call of an answer a synthetic result, so the conversation stays valid for any later call. */
export async function closeUnanswered(
  ctx: RunContext,
  out: ModelCallOutput,
  text = 'Not run: the run ended before this tool call.',
): Promise<void> {
  if (out.toolCalls.length === 0) return;
  await appendDrafts(
    ctx,
    out.toolCalls.map((c) => ({ kind: 'tool_result', toolCallId: c.id, toolName: c.name, text, isError: true })),
  );
}
