/**
 * Where a turn's model comes from: the resolver a call works on (the run's, or a pev role's own), the
 * model an operator or the budget chooses for the turn, the model's window, the queue of its limit
 * and the retry policy of a call on it.
 */
import { workflowInfo } from '@temporalio/workflow';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import type { ResolverPolicy, ResolverState } from '../../contracts/model-resolution';
import type { ModelRef } from '../../contracts/model-ref';
import { totalTokens } from '../../contracts/message-model';
import { NON_RETRYABLE_LLM_FAILURES } from '../../policy/llm-failure-policy';
import { llmQueueOf } from '../../policy/llm-queues';
import { runModelInfo } from '../../policy/model-registry';
import { modelWindow } from '../../policy/context-plan';
import { nonRetryableModelFailures, resolveTurnModel } from '../../policy/resolver';
import type { ModelRetry } from './agent-io';
import { recordSwitch } from './notes';
import type { RunContext } from './run-context';

/**
 * Where a call's model comes from: a resolver policy (primary, fallbacks, budget rules) and the
 * resolver state reached on it (the current model, failover position). The policy functions move
 * `state` in place, so the caller keeps its failover position by keeping the object.
 */
export interface ModelResolver {
  policy: ResolverPolicy;
  state: ResolverState;
}

/** The run's own resolver: its configured policy and the resolver state in its state. */
export const runResolver = (ctx: RunContext): ModelResolver => ({
  policy: ctx.state.config.model,
  state: ctx.state.resolver,
});

/**
 * Applies an operator's or the budget's choice of model to `resolver` for this turn, recording the
 * switch. An operator's request moves every resolver once: each keeps whether it has taken it.
 */
export async function resolveModel(ctx: RunContext, resolver: ModelResolver): Promise<void> {
  const { state } = ctx;
  const change = resolveTurnModel(
    resolver.policy,
    resolver.state,
    { totalTokens: totalTokens(state.usage), costUsd: state.cost.total },
    state.operatorModel?.model,
  );
  if (change) await recordSwitch(ctx, change);
}

/** The model's window: the run's setting, the worker's entry kept in the run's state, else the registry's. */
export const windowOf = (ctx: RunContext, model: ModelRef): number =>
  modelWindow(ctx.state.config.context.windowTokens, ctx.state.models, model);

/** The task queue of the model's limit, when the worker said its calls are limited. */
export function limitedQueue(ctx: RunContext, model: ModelRef): { taskQueue?: string } {
  const { limitKey } = runModelInfo(ctx.state.models, model);
  if (!limitKey) return {};
  return { taskQueue: llmQueueOf(ctx.state.config.fleet?.taskQueue ?? workflowInfo().taskQueue, limitKey) };
}

/** The retry policy of a model or summary call on `resolver`. */
export function retryFor(resolver: ModelResolver): ModelRetry {
  return {
    maximumAttempts: resolver.policy.attemptsPerProvider,
    nonRetryableErrorTypes: nonRetryableModelFailures(resolver.policy, resolver.state, [
      ...NON_RETRYABLE_LLM_FAILURES,
      AGENT_FAILURE.store,
    ]),
  };
}
