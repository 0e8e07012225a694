/** Run limits: each one reached ends the run with its own stop reason, never a crash. */
import { totalTokens, type Cost, type Usage } from '../contracts/message-model';
import type { AgentLimits } from '../contracts/run-spec';
import type { AgentStopReason } from '../contracts/run-status';

/** Budgets stop the run at this share, leaving room for the turn that would cross them (see docs/design.md, Limits). */
export const BUDGET_STOP_RATIO = 0.95;
export const DEFAULT_MAX_TURNS = 50;
export const DEFAULT_MAX_TOOL_CALLS_PER_TURN = 16;
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export const defaultLimits = (overrides: Partial<AgentLimits> = {}): AgentLimits => ({
  maxTurns: DEFAULT_MAX_TURNS,
  maxToolCallsPerTurn: DEFAULT_MAX_TOOL_CALLS_PER_TURN,
  approvalTimeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
  ...overrides,
});

export interface Spent {
  turn: number;
  usage: Usage;
  cost: Cost;
}

/** The limit the run has reached before starting another turn, if any. */
export function limitReached(limits: AgentLimits, spent: Spent): AgentStopReason | undefined {
  if (spent.turn >= limits.maxTurns) return 'max_turns';
  if (limits.maxTotalTokens !== undefined && totalTokens(spent.usage) >= limits.maxTotalTokens * BUDGET_STOP_RATIO)
    return 'token_budget';
  if (limits.maxCostUsd !== undefined && spent.cost.total >= limits.maxCostUsd * BUDGET_STOP_RATIO)
    return 'cost_budget';
  return undefined;
}

/** How close the run is to each limit (1 = reached). */
export function limitRatios(
  limits: AgentLimits,
  spent: Spent,
): { usedTurnsRatio: number; usedTokensRatio?: number; usedCostRatio?: number } {
  return {
    usedTurnsRatio: spent.turn / limits.maxTurns,
    ...(limits.maxTotalTokens === undefined
      ? {}
      : { usedTokensRatio: totalTokens(spent.usage) / limits.maxTotalTokens }),
    ...(limits.maxCostUsd === undefined ? {} : { usedCostRatio: spent.cost.total / limits.maxCostUsd }),
  };
}

/** Problems with user-given limits, as one readable line each. */
export function limitProblems(limits: AgentLimits): string[] {
  const problems: string[] = [];
  const positiveInt = (name: string, v: number | undefined): void => {
    if (v !== undefined && (!Number.isInteger(v) || v < 1))
      problems.push(`${name} must be a positive integer, got ${v}`);
  };
  positiveInt('maxTurns', limits.maxTurns);
  positiveInt('maxToolCallsPerTurn', limits.maxToolCallsPerTurn);
  positiveInt('approvalTimeoutMs', limits.approvalTimeoutMs);
  if (limits.maxTotalTokens !== undefined && !(limits.maxTotalTokens > 0))
    problems.push(`maxTotalTokens must be positive, got ${limits.maxTotalTokens}`);
  if (limits.maxCostUsd !== undefined && !(limits.maxCostUsd > 0))
    problems.push(`maxCostUsd must be positive, got ${limits.maxCostUsd}`);
  for (const [tool, ms] of Object.entries(limits.toolTimeoutsMs ?? {})) positiveInt(`toolTimeoutsMs.${tool}`, ms);
  return problems;
}
