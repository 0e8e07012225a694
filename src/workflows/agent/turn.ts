/**
 * The one turn function of every agent kind (docs/design.md, The turn loop): stop and limits,
 * steering in, the model of the turn, compaction, the model call with failover, the answer
 * recorded, the on-turn-end hook, and the tool phase. A kind changes a turn only through
 * {@link TurnHooks}; what follows an answer (end, follow-ups, the next role) is the kind's.
 */
import { AGENT_FAILURE, LLM_FAILURE } from '../../contracts/failure-types';
import { addCost, addUsage } from '../../contracts/message-model';
import { modelLabel } from '../../contracts/model-ref';
import { injectSteering } from './user-messages';
import { fitContext } from './context-step';
import { callModelWithFailover, type ModelAnswer } from './model-step';
import { resolveModel, runResolver, type ModelResolver } from './model-resolver';
import { turnStep } from '../../policy/run-summaries';
import { RUN_FEATURES } from '../features';
import { emit, publishSearchAttributes, updateCurrentDetails, type RunContext } from './run-context';
import { endIfStoppedOrLimited, fail, finish, stopRequest } from './run-steps';
import { ensurePinned } from './pinning';
import { inlineToolCalls, mayInline } from './tool-plan';
import { closeUnanswered, plannedTurn, toolPhase } from './tool-phase';
import { defaultPhase, end, type TurnHooks, type TurnResult } from './turn-hooks';

export type { TurnHooks, TurnPoint, TurnResult } from './turn-hooks';
export { closeUnanswered } from './tool-phase';

/** Records the assistant message of a turn answered by `model`. */
function recordAnswer(ctx: RunContext, out: ModelAnswer, model: string): void {
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
  });
}

/** `body` inside every feature's wrapper of a turn (the turn's span). */
const aroundTurn = <T>(ctx: RunContext, role: string | undefined, body: () => Promise<T>): Promise<T> =>
  RUN_FEATURES.reduceRight<() => Promise<T>>(
    (inner, feature) => (feature.aroundTurn ? () => feature.aroundTurn!(ctx, role, inner) : inner),
    body,
  )();

/** The features' word after an answer: the first that stops or fails the run has it. */
async function afterAnswer(
  ctx: RunContext,
  out: ModelAnswer,
  resolver: ModelResolver,
): Promise<'go' | 'stop' | 'failed'> {
  for (const feature of RUN_FEATURES) {
    const answer = feature.afterAnswer?.(ctx, out, resolver);
    const verdict = (answer instanceof Promise ? await answer : answer) ?? 'go';
    if (verdict !== 'go') return verdict;
  }
  return 'go';
}

/** One model turn on the run's conversation. */
export async function agentTurn(ctx: RunContext, hooks: TurnHooks = {}): Promise<TurnResult> {
  const { state } = ctx;
  const ending = endIfStoppedOrLimited(ctx);
  if (ending) return end(await ending);
  if (hooks.continueAsNew?.()) return end('continue_as_new');
  const injected = injectSteering(ctx);
  const steered = injected instanceof Promise ? await injected : injected;
  for (const feature of RUN_FEATURES) {
    const started = feature.turnStart?.(ctx);
    if (started instanceof Promise) await started;
  }
  const planned = steered.length === 0 ? hooks.planned?.() : undefined;
  if (planned && planned.length > 0) {
    // Calls no model makes need the pinned tools now.
    await ensurePinned(ctx);
    return plannedTurn(ctx, planned, hooks);
  }

  state.turn += 1;
  state.turnsThisRun += 1;
  return aroundTurn(ctx, hooks.role, () => modelTurn(ctx, hooks));
}

/** The turn after its number is taken: the model call, the answer recorded, the tool phase. */
async function modelTurn(ctx: RunContext, hooks: TurnHooks): Promise<TurnResult> {
  const { state } = ctx;
  const resolver = hooks.resolver ?? runResolver(ctx);
  await resolveModel(ctx, resolver);
  const stepName = hooks.step?.() || turnStep(state.turn);
  for (const feature of RUN_FEATURES) {
    const chosen = feature.chooseModel?.(ctx, resolver, stepName);
    if ((chosen instanceof Promise ? await chosen : chosen) === 'failed')
      return end(await fail(ctx, state.error ?? { message: `${feature.name} failed`, retryable: false }));
  }
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
    // The refusal says why the run ends, unless a stop ended it.
    if (!stopRequest(ctx)) state.stopNote = step.refused.message;
    return end(await finish(ctx, step.refused.stopReason));
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
  recordAnswer(ctx, out, model);

  const verdict = await afterAnswer(ctx, out, resolver);
  if (verdict !== 'go') {
    await closeUnanswered(ctx, out);
    if (verdict === 'stop') return end(await finish(ctx, 'hook_stopped'));
    return end(await fail(ctx, state.error ?? { message: 'the answer was refused', retryable: false }));
  }
  if (out.toolCalls.length > 0) return toolPhase(ctx, out, hooks);
  if (out.stopReason === 'error') {
    const message = out.errorMessage ?? 'the model returned an error';
    return end(await fail(ctx, { message, type: AGENT_FAILURE.model, retryable: false }));
  }
  return { type: 'answer', text: out.text };
}
