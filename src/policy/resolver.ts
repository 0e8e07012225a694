/**
 * Provider switching as a pure policy over workflow state (docs/design.md): each turn picks the model;
 * a failure of the current provider may move the run down its fallback chain. Every switch comes
 * back with its reason so the workflow records it as an event.
 */
import type { ModelFailure, ModelSwitch, ResolverPolicy, ResolverState, Spend } from '../contracts/model-resolution';
import { LLM_FAILURE } from '../contracts/failure-types';
import { modelLabel, type ModelRef } from '../contracts/model-ref';
import { PROVIDER_SWITCH_LLM_FAILURES, isRetryableLlmFailure } from './llm-failure-policy';
import { sameModel } from './model-ref';
import { usd } from '../common/decimal';

export function resolverPolicy(
  primary: ModelRef,
  fallbacks: ModelRef[] = [],
  extra: Partial<ResolverPolicy> = {},
): ResolverPolicy {
  return { primary, fallbacks, attemptsPerProvider: 3, failoverOnOverload: true, ...extra };
}

export const initialResolverState = (policy: ResolverPolicy): ResolverState => ({
  current: policy.primary,
  chainIndex: 0,
  budgetApplied: 0,
  switches: 0,
});

const chain = (policy: ResolverPolicy): ModelRef[] => [policy.primary, ...policy.fallbacks];

function moveTo(state: ResolverState, to: ModelRef, reason: string): ModelSwitch | undefined {
  if (sameModel(to, state.current)) return undefined;
  const change = { from: modelLabel(state.current), to: modelLabel(to), reason };
  state.current = to;
  state.switches += 1;
  return change;
}

/**
 * Picks the model of the next turn: an operator's request first, then the next budget rule whose
 * threshold the spend crossed. Returns the switch, if the model changed.
 */
export function resolveTurnModel(
  policy: ResolverPolicy,
  state: ResolverState,
  spend: Spend,
  operatorModel?: ModelRef,
): ModelSwitch | undefined {
  if (operatorModel !== undefined && !sameModel(operatorModel, state.operatorModel)) {
    state.operatorModel = operatorModel;
    return moveTo(state, operatorModel, 'operator request');
  }
  const rules = policy.budget ?? [];
  let change: ModelSwitch | undefined;
  while (state.budgetApplied < rules.length) {
    const rule = rules[state.budgetApplied];
    const byTokens = rule.afterTokens !== undefined && spend.totalTokens >= rule.afterTokens;
    const byCost = rule.afterCostUsd !== undefined && spend.costUsd >= rule.afterCostUsd;
    if (!byTokens && !byCost) break;
    state.budgetApplied += 1;
    if (state.operatorModel !== undefined) continue;
    const reason = byTokens
      ? `budget: ${spend.totalTokens} tokens spent (threshold ${rule.afterTokens})`
      : `budget: ${usd(spend.costUsd)} spent (threshold $${rule.afterCostUsd})`;
    change = moveTo(state, rule.model, reason) ?? change;
  }
  return change;
}

/**
 * Moves the run to a model the application chose (a `resolveModel` or `onTurnEnd` hook), whatever
 * the chain, budget rules or operator said; the switch, or undefined when it is the current model.
 */
export const chooseModel = moveTo;

/**
 * After the tenant's budget refused a call: the model of the next budget rule not yet applied,
 * whatever its threshold (it is the run's cheaper model), or undefined when none is left.
 */
export function budgetRuleAfterRefusal(
  policy: ResolverPolicy,
  state: ResolverState,
  reason: string,
): ModelSwitch | undefined {
  const rules = policy.budget ?? [];
  while (state.budgetApplied < rules.length) {
    const rule = rules[state.budgetApplied];
    state.budgetApplied += 1;
    state.operatorModel = undefined;
    const change = moveTo(state, rule.model, reason);
    if (change) return change;
  }
  return undefined;
}

/**
 * After the model activity failed (its retry policy exhausted, or a non-retried type): the next
 * model in the chain, or undefined when the run cannot go on.
 */
export function failoverAfter(
  policy: ResolverPolicy,
  state: ResolverState,
  failure: ModelFailure,
): ModelSwitch | undefined {
  if (
    !(PROVIDER_SWITCH_LLM_FAILURES as readonly string[]).includes(failure.type) &&
    !isRetryableLlmFailure(failure.type)
  )
    return undefined;
  const models = chain(policy);
  while (state.chainIndex + 1 < models.length) {
    state.chainIndex += 1;
    const next = models[state.chainIndex];
    if (sameModel(next, state.current)) continue;
    state.operatorModel = undefined;
    const why =
      failure.type === LLM_FAILURE.overloaded
        ? 'overloaded'
        : `${failure.type} after ${policy.attemptsPerProvider} attempts`;
    return moveTo(state, next, `failover: ${modelLabel(state.current)} ${why}`);
  }
  return undefined;
}

/**
 * Failure types the model activity must not retry: the LLM layer's non-retryable ones, and
 * overload when the run can fail over instead (another model remains in the chain).
 */
export const nonRetryableModelFailures = (
  policy: ResolverPolicy,
  state: ResolverState,
  base: readonly string[],
): string[] =>
  policy.failoverOnOverload && state.chainIndex + 1 < chain(policy).length
    ? [...base, LLM_FAILURE.overloaded]
    : [...base];
