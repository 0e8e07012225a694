/**
 * The application's hooks that choose a turn's model (docs/hooks.md): `resolveModel` before the
 * turn, `onTurnEnd` after its answer (which may also stop the run). Each is an activity the run
 * names; what they answer is judged by `policy/hook-answers.ts`.
 */
import { isCancellation } from '@temporalio/workflow';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { modelLabel } from '../../contracts/model-ref';
import { chooseModel } from '../../policy/resolver';
import { hookModel, turnEndVerdict, type HookModel } from '../../policy/hook-answers';
import type { ModelAnswer } from './model-step';
import type { ModelResolver } from './model-resolver';
import { emit, failureText, type RunContext } from './run-context';
import { recordSwitch } from './notes';

/** Records a hook that failed in a way that ends the run; the caller fails the run with `state.error`. */
function hookFailed(ctx: RunContext, hook: 'onTurnEnd' | 'resolveModel', message: string): 'failed' {
  const label = hook === 'onTurnEnd' ? 'on-turn-end' : 'resolve-model';
  emit(ctx, { type: 'hook_failed', hook, message });
  ctx.state.error = { message: `${label} hook failed: ${message}`, type: AGENT_FAILURE.hookFailed, retryable: false };
  return 'failed';
}

/** Moves `resolver` to the model a hook chose, recording the switch; 'failed' for an answer naming no model. */
async function takeChoice(
  ctx: RunContext,
  resolver: ModelResolver,
  hook: 'onTurnEnd' | 'resolveModel',
  choice: HookModel,
): Promise<'go' | 'failed'> {
  if ('problem' in choice) return hookFailed(ctx, hook, choice.problem);
  const change = chooseModel(resolver.state, choice.model, choice.reason);
  if (change) await recordSwitch(ctx, change);
  return 'go';
}

/**
 * The `resolveModel` hook, before the turn's context is prepared: the model it chooses becomes the
 * turn's. A failure (after the hook's retries) or a bad answer ends the run with an error.
 */
export async function modelHook(ctx: RunContext, resolver: ModelResolver, step: string): Promise<'go' | 'failed'> {
  const { state } = ctx;
  const hook = state.config.hooks?.resolveModel;
  if (!hook) return 'go';
  let answer: unknown;
  try {
    answer = await ctx.io.resolveModel(hook, {
      conversationId: state.conversationId,
      turn: state.turn,
      step,
      model: modelLabel(resolver.state.current),
      totalUsage: state.usage,
      costUsd: state.cost.total,
      ...(state.config.tenant === undefined ? {} : { tenant: state.config.tenant }),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    return hookFailed(ctx, 'resolveModel', failureText(err));
  }
  const choice = hookModel('resolve-model hook', answer);
  return choice ? takeChoice(ctx, resolver, 'resolveModel', choice) : 'go';
}

/** The on-turn-end hook: it may stop the run or choose the model of its next turns; a failure stops it in error. */
export async function turnEndHook(
  ctx: RunContext,
  resolver: ModelResolver,
  out: ModelAnswer,
  model: string,
): Promise<'go' | 'stop' | 'failed'> {
  const { state } = ctx;
  const hook = state.config.hooks?.onTurnEnd;
  if (!hook) return 'go';
  let answer: unknown;
  try {
    answer = await ctx.io.onTurnEnd(hook, {
      conversationId: state.conversationId,
      turn: state.turn,
      model,
      provider: out.provider,
      turnUsage: out.usage,
      totalUsage: state.usage,
      costUsd: state.cost.total,
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    return hookFailed(ctx, 'onTurnEnd', failureText(err));
  }
  const verdict = turnEndVerdict(answer);
  if (verdict.stop) return 'stop';
  return verdict.model ? takeChoice(ctx, resolver, 'onTurnEnd', verdict.model) : 'go';
}
