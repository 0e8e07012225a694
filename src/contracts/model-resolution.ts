/**
 * Which model a run uses: the fallback chain and budget rules it is started with, the position it
 * has reached, and the switches and failures the resolver (`policy/resolver.ts`) reports.
 */
import type { ModelRef } from './model-ref';

/** Once spent tokens or cost reach a threshold, use a (cheaper) model. */
export interface BudgetRule {
  afterTokens?: number;
  afterCostUsd?: number;
  model: ModelRef;
}

export interface ResolverPolicy {
  primary: ModelRef;
  fallbacks: ModelRef[];
  /** Attempts (under Temporal's retry policy) one provider gets before the run moves to the next. Default 3. */
  attemptsPerProvider: number;
  /** Overload moves to the next provider at once, without using up the attempts. Default true. */
  failoverOnOverload: boolean;
  budget?: BudgetRule[];
  /**
   * How long (ms) a call refused for a rate limit keeps being made again, after the provider's
   * retry-after, before the run gives up on it. Default 30 minutes.
   */
  rateLimitPatienceMs?: number;
}

export interface ResolverState {
  current: ModelRef;
  /** Index in `[primary, ...fallbacks]` the chain has reached. */
  chainIndex: number;
  /** Budget rules already applied (in order). */
  budgetApplied: number;
  /** A model the operator asked for; wins over chain and budget until another failure. */
  operatorModel?: ModelRef;
  switches: number;
}

/** A change of model, with both models as spec strings (as events show them). */
export interface ModelSwitch {
  from: string;
  to: string;
  reason: string;
}

/** The spend a budget rule compares against. */
export interface Spend {
  totalTokens: number;
  costUsd: number;
}

/** A model-call failure as the workflow sees it: the failure type, never the message. */
export interface ModelFailure {
  type: string;
  retryable: boolean;
}
