/**
 * The application's hooks (docs/hooks.md), each an activity the run names in its spec's `hooks`:
 * `resolveModel` chooses a turn's model, `transformContext` rewrites what a call sends
 * (`context-hook.ts`), `onMessage` sees each message written, `onTurnEnd` may stop the run or choose
 * its next model after an answer, and `onError` hears of a run that ends in error. What they answer
 * is judged by `policy/hook-answers.ts`.
 */
import { isCancellation } from '@temporalio/workflow';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { modelLabel, type ModelRef } from '../../contracts/model-ref';
import type { ModelCallInput } from '../../contracts/agent-activities';
import { chooseModel } from '../../policy/resolver';
import { hookModel, turnEndVerdict, type HookModel } from '../../policy/hook-answers';
import type { MessageMeta } from '../../contracts/agent-run';
import type { AgentHooks } from '../../contracts/run-spec';
import type { RunFeature } from '../agent/feature';
import type { ModelAnswer } from '../agent/model-answer';
import type { ModelResolver } from '../agent/model-resolver';
import { emit, failureText, type RunContext } from '../agent/run-context';
import { recordSwitch } from '../agent/notes';
import { contextHook } from './context-hook';
import { hookActivity } from './hook-activity';

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
async function modelHook(
  ctx: RunContext,
  resolver: ModelResolver,
  step: string,
  hook: string,
): Promise<'go' | 'failed'> {
  const { state } = ctx;
  let answer: unknown;
  try {
    answer = await hookActivity(ctx, 'resolveModel', hook, {
      conversationId: state.conversationId,
      turn: state.turn,
      step,
      model: modelLabel(resolver.state.current),
      totalUsage: state.usage,
      costUsd: state.cost.total,
      ...(state.config.fleet ? { fleet: state.config.fleet } : {}),
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    return hookFailed(ctx, 'resolveModel', failureText(err));
  }
  const choice = hookModel('resolve-model hook', answer);
  return choice ? takeChoice(ctx, resolver, 'resolveModel', choice) : 'go';
}

/** The on-turn-end hook: it may stop the run or choose the model of its next turns; a failure stops it in error. */
async function turnEndHook(
  ctx: RunContext,
  resolver: ModelResolver,
  out: ModelAnswer,
  hook: string,
): Promise<'go' | 'stop' | 'failed'> {
  const { state } = ctx;
  let answer: unknown;
  try {
    answer = await hookActivity(ctx, 'onTurnEnd', hook, {
      conversationId: state.conversationId,
      turn: state.turn,
      model: out.meta.model ?? '',
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

/** The `onMessage` hook on each message written; a failure is recorded as an event and the run goes on. */
async function messageHook(ctx: RunContext, metas: readonly MessageMeta[], hook: string): Promise<void> {
  const { state } = ctx;
  for (const message of metas) {
    try {
      await hookActivity(ctx, 'onMessage', hook, { conversationId: state.conversationId, message });
    } catch (err) {
      if (isCancellation(err)) throw err;
      emit(ctx, { type: 'hook_failed', hook: 'onMessage', message: failureText(err) });
    }
  }
}

/** What the context hook adds to a call to `model`. */
async function contextInput(run: RunContext, model: ModelRef, hook: string): Promise<Partial<ModelCallInput>> {
  const messagesHash = await contextHook(run, model, hook);
  return messagesHash ? { messagesHash } : {};
}

/** The message hook on an answer, then the on-turn-end hook, each when the run names it. */
async function answerHooks(
  run: RunContext,
  answer: ModelAnswer,
  resolver: ModelResolver,
  { onMessage, onTurnEnd }: AgentHooks,
): Promise<'go' | 'stop' | 'failed'> {
  if (onMessage) await messageHook(run, [answer.meta], onMessage);
  return onTurnEnd ? turnEndHook(run, resolver, answer, onTurnEnd) : 'go';
}

/** The on-error hook of a run ending in error. */
async function errorHook(
  run: RunContext,
  hook: string,
  error: NonNullable<RunContext['state']['error']>,
): Promise<void> {
  try {
    const input = {
      conversationId: run.state.conversationId,
      message: error.message,
      failureType: error.type,
      retryable: error.retryable,
    };
    // Best effort: the run is ending with an error; retrying a failing notifier would only delay it.
    await hookActivity(run, 'onError', hook, input, { maximumAttempts: 1 });
  } catch (err) {
    // A failing on-error hook must not mask the original error.
    if (isCancellation(err)) throw err;
  }
}

/** The application's hooks at the seams of the run; a seam whose hook the run does not name answers at once. */
export const appHooks: RunFeature = {
  name: 'application hooks',
  // Both read the conversation the pin opens with the task.
  pinsFirst: ({ hooks }) => hooks?.resolveModel !== undefined || hooks?.transformContext !== undefined,
  chooseModel: (run, resolver, step) => {
    const hook = run.state.config.hooks?.resolveModel;
    return hook ? modelHook(run, resolver, step, hook) : 'go';
  },
  callInput: (run, model) => {
    const hook = run.state.config.hooks?.transformContext;
    return hook ? contextInput(run, model, hook) : {};
  },
  // The hook may stop the run between an answer and its calls: the workflow runs them after it.
  inlines: ({ state }) => !state.config.hooks?.onTurnEnd,
  afterAnswer: (run, answer, resolver) => {
    const hooks = run.state.config.hooks;
    return hooks?.onMessage || hooks?.onTurnEnd ? answerHooks(run, answer, resolver, hooks) : 'go';
  },
  written: (run, metas) => {
    const hook = run.state.config.hooks?.onMessage;
    return hook ? messageHook(run, metas, hook) : undefined;
  },
  ending: (run) => {
    const { state } = run;
    const hook = state.config.hooks?.onError;
    return state.stopReason === 'error' && state.error && hook ? errorHook(run, hook, state.error) : undefined;
  },
};
