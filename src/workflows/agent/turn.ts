/**
 * The one turn function of every agent kind (docs/design.md, The turn loop): stop and limits,
 * steering in, the model of the turn, compaction, the model call with failover, the answer
 * recorded, the on-turn-end hook, and the tool phase. A kind changes a turn only through
 * {@link TurnHooks}; what follows an answer (end, follow-ups, the next role) is the kind's.
 */
import { AGENT_FAILURE, LLM_FAILURE } from '../../contracts/failure-types';
import { isCancellation } from '@temporalio/workflow';
import { addCost, addUsage } from '../../contracts/message-model';
import { modelLabel } from '../../contracts/model-ref';
import { injectSteering } from './user-messages';
import { fitContext } from './context-step';
import { callModelWithFailover, type ModelAnswer } from './model-step';
import { resolveModel, runResolver } from './model-resolver';
import { turnStep } from '../../policy/run-summaries';
import { emit, failureText, publishSearchAttributes, updateCurrentDetails, type RunContext } from './run-context';
import { endIfStoppedOrLimited, ensurePinned, fail, finish, stopRequest } from './run-steps';
import { modelHook, turnEndHook } from './app-hooks';
import { takeNotes } from './notes';
import { inlineToolCalls, mayInline } from './tool-plan';
import { turnSpan } from './spans';
import { closeUnanswered, plannedTurn, toolPhase } from './tool-phase';
import { defaultPhase, end, type TurnHooks, type TurnResult } from './turn-hooks';

export type { TurnHooks, TurnPoint, TurnResult } from './turn-hooks';
export { closeUnanswered } from './tool-phase';

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
      emit(ctx, { type: 'hook_failed', hook: 'onMessage', message: failureText(err) });
    }
  }
}

/** One model turn on the run's conversation. */
export async function agentTurn(ctx: RunContext, hooks: TurnHooks = {}): Promise<TurnResult> {
  const { state } = ctx;
  const ended = await endIfStoppedOrLimited(ctx);
  if (ended) return end(ended);
  if (hooks.continueAsNew?.()) return end('continue_as_new');
  const steered = await injectSteering(ctx);
  await takeNotes(ctx);
  const planned = steered.length === 0 ? hooks.planned?.() : undefined;
  if (planned && planned.length > 0) {
    // Calls no model makes need the pinned tools now.
    await ensurePinned(ctx);
    return plannedTurn(ctx, planned, hooks);
  }

  state.turn += 1;
  state.turnsThisRun += 1;
  return turnSpan(state, hooks.role, () => modelTurn(ctx, hooks));
}

/** The turn after its number is taken: the model call, the answer recorded, the tool phase. */
async function modelTurn(ctx: RunContext, hooks: TurnHooks): Promise<TurnResult> {
  const { state } = ctx;
  const resolver = hooks.resolver ?? runResolver(ctx);
  await resolveModel(ctx, resolver);
  const stepName = hooks.step?.() || turnStep(state.turn);
  if ((await modelHook(ctx, resolver, stepName)) === 'failed')
    return end(await fail(ctx, state.error ?? { message: 'resolve-model hook failed', retryable: false }));
  updateCurrentDetails(ctx, { step: stepName, model: modelLabel(resolver.state.current) });
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
  const handlesTools = hooks.refuseTools !== undefined || hooks.beforeTools !== undefined;
  const inline = inlineToolCalls(ctx, handlesTools);
  const overrides = {
    ...hooks.call?.(),
    ...(hooks.role ? { agentRole: hooks.role } : {}),
    ...(inline ? { inlineTools: inline } : {}),
  };
  const step = await callModelWithFailover(ctx, resolver, overrides, { shrink, quick: mayInline(ctx, handlesTools) });
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

  const hook = await turnEndHook(ctx, resolver, out, model);
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
