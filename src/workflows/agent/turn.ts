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
  runResolver,
  type ModelAnswer,
  type ModelCallOverrides,
  type ModelResolver,
} from './model-step';
import { turnStep } from '../../policy/run-summaries';
import { emit, publishSearchAttributes, updateCurrentDetails, type RunContext } from './run-context';
import { endIfStoppedOrLimited, fail, finish, stopRequest, type LoopOutcome } from './run-steps';
import { recordToolResults, runToolCalls } from './tool-step';
import { inlineToolCalls } from './tool-plan';
import { turnSpan } from './spans';

/** Points of a turn where search attributes may be published. */
export type TurnPoint = 'model' | 'tools' | 'tools_done';

/**
 * What a kind sets for one turn. Every hook is optional; without any, the turn is a ReAct turn.
 * A hook that throws ends the turn there, as a throw from the kind's own code does (`AgentKind`):
 * an `ApplicationFailure` fails the run, any other error fails the workflow task, which Temporal
 * retries. A hook that returns nothing leaves the turn as it would be without the hook.
 */
export interface TurnHooks {
  /**
   * Checked after stop and limits: true continues as new instead of taking this turn (the turn is
   * `end` with outcome `continue_as_new`); false or nothing takes it.
   */
  continueAsNew?: () => boolean | void;
  /** Where this turn's model comes from (default: the run's resolver). */
  resolver?: ModelResolver;
  /** What the timeline and the current details call this turn; nothing: `turn N`. */
  step?: () => string | void;
  /**
   * What this turn's call sets over the run's settings (a role's prompt by hash, structured output,
   * tool choice, recitation); nothing, or a field left out: the run's.
   */
  call?: () => ModelCallOverrides | void;
  /** The phase published at `point`; nothing: none is published there. Default: `model` and `tools`, as named. */
  phaseAt?: (point: TurnPoint) => string | undefined;
  /** When set, tool calls are not run: each gets this text as its result and the turn is `tools_refused`. */
  refuseTools?: string;
  /**
   * Before the tool phase, with the answer's calls: answers some of them without running them (it
   * writes their results into the conversation itself) and returns the calls still to run, which
   * go through the tool phase; nothing runs them all. Not called when the model call ran the calls
   * itself (a kind with this hook never has its calls run that way).
   */
  beforeTools?: (calls: readonly ToolCallRequest[]) => Promise<ToolCallRequest[] | void>;
  /** After the tool phase, with the calls that ran (their results are in the conversation); returns nothing. */
  afterTools?: (ran: readonly ToolCallRequest[]) => void;
  /** The role that takes this turn (a pev role), named in the turn's span. */
  role?: string;
}

export type TurnResult =
  | { type: 'answer'; text: string }
  /** Tools were called; their results are in the conversation. */
  | { type: 'tools' }
  /** Tools were called but refused (`refuseTools`); they got "not run" results. */
  | { type: 'tools_refused'; tools: string[] }
  /** The run ended (stop, limit, error, hook) or continues as new (`continue_as_new`). */
  | { type: 'end'; outcome: LoopOutcome };

const end = (outcome: LoopOutcome): TurnResult => ({ type: 'end', outcome });

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
  if (out.tokens) ctx.stream?.publishTokens(out.tokens);
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
    return { type: 'tools' };
  }
  if (hooks.refuseTools !== undefined) {
    await closeUnanswered(ctx, out, hooks.refuseTools);
    return { type: 'tools_refused', tools: out.toolCalls.map((c) => c.name) };
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
  const toRun = (await hooks.beforeTools?.(out.toolCalls)) ?? out.toolCalls;
  if (toRun.length === 0) return { type: 'tools' };
  updateCurrentDetails(ctx, { doing: 'running tools' });
  publish('tools');
  const outcome = await runToolCalls(ctx, toRun);
  publish('tools_done');
  hooks.afterTools?.(toRun);
  if (outcome === 'stopped') return end(await finish(ctx, stopRequest(ctx)?.reason ?? 'stopped'));
  return { type: 'tools' };
}

/** One model turn on the run's conversation. */
export async function agentTurn(ctx: RunContext, hooks: TurnHooks = {}): Promise<TurnResult> {
  const { state } = ctx;
  const ended = await endIfStoppedOrLimited(ctx);
  if (ended) return end(ended);
  if (hooks.continueAsNew?.()) return end('continue_as_new');
  await injectSteering(ctx);

  state.turn += 1;
  state.turnsThisRun += 1;
  return turnSpan(state, hooks.role, () => modelTurn(ctx, hooks));
}

/** The turn after its number is taken: the model call, the answer recorded, the tool phase. */
async function modelTurn(ctx: RunContext, hooks: TurnHooks): Promise<TurnResult> {
  const { state } = ctx;
  const resolver = hooks.resolver ?? runResolver(ctx);
  resolveModel(ctx, resolver);
  updateCurrentDetails(ctx, {
    step: hooks.step?.() || turnStep(state.turn),
    model: modelLabel(resolver.state.current),
  });
  emit(ctx, { type: 'turn_start', model: modelLabel(resolver.state.current) });
  const phase = (hooks.phaseAt ?? defaultPhase)('model');
  if (phase !== undefined) publishSearchAttributes(ctx, phase, resolver.state.current);
  const fit = await fitContext(ctx, resolver);
  if (fit.over) {
    const { tokens, window } = fit.over;
    const model = modelLabel(resolver.state.current);
    const message =
      `the context (about ${tokens} tokens) is over the ${window}-token window of ${model} and ` +
      `could not be brought under it without a summary; the request was not sent`;
    return end(await fail(ctx, { message, type: AGENT_FAILURE.contextOverflow, retryable: false }));
  }
  const shrink = async (): Promise<boolean> => (await fitContext(ctx, resolver, true)).changed;
  const inline = inlineToolCalls(ctx, hooks.refuseTools !== undefined || hooks.beforeTools !== undefined);
  const overrides = { ...hooks.call?.(), ...(inline ? { inlineTools: inline } : {}) };
  const step = await callModelWithFailover(ctx, resolver, overrides, shrink);
  if (!step.ok && 'refused' in step) {
    if (step.refused.refusal === 'stopped') return end(await finish(ctx, stopRequest(ctx)?.reason ?? 'stopped'));
    return end(await finish(ctx, 'budget'));
  }
  if (!step.ok) {
    // A stop ends a wait for the provider's rate limit: the run stops rather than fails.
    const stop = stopRequest(ctx);
    if (stop && step.failure.type === LLM_FAILURE.rateLimited) return end(await finish(ctx, stop.reason));
    const { message, type, retryable } = step.failure;
    return end(await fail(ctx, { message, type, retryable }));
  }
  const out = step.output;
  const model = modelLabel(resolver.state.current);
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
  return { type: 'answer', text: out.text };
}
