/**
 * The one turn function of every agent kind (docs/design.md, The turn loop): stop and limits,
 * steering in, the model of the turn, compaction, the model call with failover, the answer
 * recorded, the on-turn-end hook, and the tool phase. A kind changes a turn only through
 * {@link TurnHooks}; what follows an answer (end, follow-ups, the next role) is the kind's.
 */
import { errorText as thrownText } from '../../common/error-text';
import { AGENT_FAILURE, LLM_FAILURE } from '../../contracts/failure-types';
import { ActivityFailure, isCancellation } from '@temporalio/workflow';
import type { ToolCallRequest } from '../../contracts/agent-run';
import { addCost, addUsage } from '../../contracts/message-model';
import { modelLabel } from '../../contracts/model-ref';
import { appendDrafts, injectSteering } from './user-messages';
import { fitContext } from './context-step';
import {
  callModelWithFailover,
  resolveModel,
  runSeat,
  type ModelAnswer,
  type ModelCallOverrides,
  type ModelSeat,
} from './model-step';
import { turnStep } from '../../policy/run-summaries';
import { emit, publishSearchAttributes, showNow, type RunContext } from './run-context';
import { endIfStoppedOrLimited, fail, finish, stopRequest, type LoopOutcome } from './run-steps';
import { recordToolResults, runToolCalls } from './tool-step';
import { inlineToolCalls } from './tool-plan';

/** Points of a turn where search attributes may be published. */
export type TurnPoint = 'model' | 'tools' | 'tools_done';

/** What a kind sets for one turn. Every hook is optional; without any, the turn is a ReAct turn. */
export interface TurnHooks {
  /** Checked after stop and limits: hand over to a fresh run instead of taking this turn. */
  handOver?: () => boolean;
  /** Where this turn's model comes from (default: the run's seat). */
  seat?: ModelSeat;
  /** What the timeline and the current details call this turn (default `turn N`). */
  step?: () => string;
  /** What this turn's call sets (a role's prompt by hash, structured output, tool choice, recitation). */
  call?: () => ModelCallOverrides;
  /** The phase published at `point`, or none. Default: `model` and `tools`, as the points are named. */
  phaseAt?: (point: TurnPoint) => string | undefined;
  /** When set, tool calls are not run: each gets this text as its result and the turn is `tools_refused`. */
  refuseTools?: string;
  /** Before the tool phase: answers calls without running them; returns the calls still to run. */
  beforeTools?: (calls: readonly ToolCallRequest[]) => Promise<ToolCallRequest[]>;
  /** After the tool phase, with the calls that ran. */
  afterTools?: (ran: readonly ToolCallRequest[]) => void;
}

export type TurnResult =
  | { kind: 'answer'; text: string }
  /** Tools were called; their results are in the conversation. */
  | { kind: 'tools' }
  /** Tools were called but refused (`refuseTools`); they got "not run" results. */
  | { kind: 'tools_refused'; tools: string[] }
  /** The run ended (stop, limit, error, hook) or hands over (`continue_as_new`). */
  | { kind: 'end'; outcome: LoopOutcome };

const end = (outcome: LoopOutcome): TurnResult => ({ kind: 'end', outcome });

/**
 * A turn's phase when the kind sets none: one phase, `running`, for the whole turn (the status and
 * the model say the rest).
 */
const defaultPhase = (): string => 'running';

/** The message of a failure; for a failed activity, its cause's (the activity's own error). */
function errorText(err: unknown): string {
  const cause = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return thrownText(cause);
}

/** Records the assistant message of a turn answered by `model`. */
async function recordAnswer(ctx: RunContext, out: ModelAnswer, model: string): Promise<void> {
  const { state } = ctx;
  state.nextSeq = out.meta.seq + 1;
  state.messages.push(out.meta);
  state.usage = addUsage(state.usage, out.usage);
  state.cost = addCost(state.cost, out.cost);
  state.lastStopReason = out.stopReason;
  if (out.text) state.finalText = out.text;
  emit(ctx, {
    type: 'turn_end',
    model,
    provider: out.provider,
    stopReason: out.stopReason,
    toolCalls: out.toolCalls.length,
    usage: out.usage,
    ...(out.thought ? { thought: out.thought } : {}),
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
async function turnEndHook(ctx: RunContext, out: ModelAnswer, model: string): Promise<'go' | 'stop' | 'failed'> {
  const { state } = ctx;
  const hook = state.config.hooks?.onTurnEnd;
  if (!hook) return 'go';
  try {
    const go = await ctx.io.onTurnEnd(hook, {
      conversationId: state.conversationId,
      turn: state.turn,
      model,
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

/** Gives every tool call of an answer a synthetic result, so the conversation stays valid for any later call. */
async function closeUnanswered(
  ctx: RunContext,
  out: ModelAnswer,
  text = 'Not run: the run ended before this tool call.',
): Promise<void> {
  if (out.toolCalls.length === 0) return;
  await appendDrafts(
    ctx,
    out.toolCalls.map((c) => ({ kind: 'tool_result', toolCallId: c.id, toolName: c.name, text, isError: true })),
  );
}

/** The tool phase of an answer with tool calls: the limit per turn, the kind's hooks around it. */
async function toolPhase(ctx: RunContext, out: ModelAnswer, hooks: TurnHooks): Promise<TurnResult> {
  const phaseAt = hooks.phaseAt ?? defaultPhase;
  const publish = (point: TurnPoint): void => {
    const phase = phaseAt(point);
    if (phase !== undefined) publishSearchAttributes(ctx, phase);
  };
  if (out.toolResults) {
    // The model call ran the calls itself (`inlineToolCalls`).
    publish('tools');
    await recordToolResults(ctx, out.toolCalls, out.toolResults);
    publish('tools_done');
    hooks.afterTools?.(out.toolCalls);
    return { kind: 'tools' };
  }
  if (hooks.refuseTools !== undefined) {
    await closeUnanswered(ctx, out, hooks.refuseTools);
    return { kind: 'tools_refused', tools: out.toolCalls.map((c) => c.name) };
  }
  const { maxToolCallsPerTurn } = ctx.state.config.limits;
  if (out.toolCalls.length > maxToolCallsPerTurn) {
    await closeUnanswered(
      ctx,
      out,
      `Not run: the turn asked for ${out.toolCalls.length} tool calls; the limit is ${maxToolCallsPerTurn}.`,
    );
    return end(await finish(ctx, 'max_tool_calls'));
  }
  const toRun = hooks.beforeTools ? await hooks.beforeTools(out.toolCalls) : out.toolCalls;
  if (toRun.length === 0) return { kind: 'tools' };
  showNow(ctx, { doing: 'running tools' });
  publish('tools');
  const outcome = await runToolCalls(ctx, toRun);
  publish('tools_done');
  hooks.afterTools?.(toRun);
  if (outcome === 'stopped') return end(await finish(ctx, stopRequest(ctx)?.reason ?? 'stopped'));
  return { kind: 'tools' };
}

/** One model turn on the run's conversation. */
export async function agentTurn(ctx: RunContext, hooks: TurnHooks = {}): Promise<TurnResult> {
  const { state } = ctx;
  const ended = await endIfStoppedOrLimited(ctx);
  if (ended) return end(ended);
  if (hooks.handOver?.()) return end('continue_as_new');
  await injectSteering(ctx);

  state.turn += 1;
  state.turnsThisRun += 1;
  const seat = hooks.seat ?? runSeat(ctx);
  resolveModel(ctx, seat);
  showNow(ctx, { step: hooks.step?.() ?? turnStep(state.turn), model: modelLabel(seat.position.current) });
  emit(ctx, { type: 'turn_start', model: modelLabel(seat.position.current) });
  const phase = (hooks.phaseAt ?? defaultPhase)('model');
  if (phase !== undefined) publishSearchAttributes(ctx, phase, seat.position.current);
  const fit = await fitContext(ctx, seat);
  if (fit.over) {
    const { tokens, window } = fit.over;
    const model = modelLabel(seat.position.current);
    const message =
      `the context (about ${tokens} tokens) is over the ${window}-token window of ${model} and ` +
      `could not be brought under it without a summary; the request was not sent`;
    return end(await fail(ctx, { message, type: AGENT_FAILURE.contextOverflow, retryable: false }));
  }
  const shrink = async (): Promise<boolean> => (await fitContext(ctx, seat, true)).changed;
  const inline = inlineToolCalls(ctx, hooks.refuseTools !== undefined || hooks.beforeTools !== undefined);
  const overrides = { ...hooks.call?.(), ...(inline ? { inlineTools: inline } : {}) };
  const step = await callModelWithFailover(ctx, seat, overrides, shrink);
  if (!step.ok) {
    // A stop ends a wait for the provider's rate limit: the run stops rather than fails.
    const stop = stopRequest(ctx);
    if (stop && step.failure.type === LLM_FAILURE.rateLimited) return end(await finish(ctx, stop.reason));
    const { message, type, retryable } = step.failure;
    return end(await fail(ctx, { message, type, retryable }));
  }
  const out = step.output;
  const model = modelLabel(seat.position.current);
  await recordAnswer(ctx, out, model);

  const hook = await turnEndHook(ctx, out, model);
  if (hook !== 'go') {
    await closeUnanswered(ctx, out);
    if (hook === 'stop') return end(await finish(ctx, 'hook_stopped'));
    return end(await fail(ctx, state.error ?? { message: 'on-turn-end hook failed', retryable: false }));
  }
  if (out.toolCalls.length > 0) return toolPhase(ctx, out, hooks);
  if (out.stopReason === 'error') {
    const message = out.errorMessage ?? 'the model returned an error';
    return end(await fail(ctx, { message, type: AGENT_FAILURE.model, retryable: false }));
  }
  return { kind: 'answer', text: out.text };
}
