/**
 * A child run's budget (docs/subagents.md, Budget): its share of what its parent has left,
 * reserved for it while it runs, and the stop reason of a child that spends it.
 */
import type { AgentConfig } from '../contracts/run-spec';
import { totalTokens, type Cost, type Usage } from '../contracts/message-model';
import type { AgentStopReason } from '../contracts/run-status';
import type { ChildBudget } from '../contracts/sub-agents';

/**
 * The budget a child starts with: its share of what the parent has neither spent nor reserved for
 * its open children (`reserved`), split evenly among the children still to start (`starting`,
 * this one included), so children that run at the same time never hold more than the parent has
 * left between them; `spent` says why none can start.
 */
export function childBudget(
  config: AgentConfig,
  spent: { usage: Usage; cost: Cost },
  reserved: readonly ChildBudget[],
  starting = 1,
): { budget: ChildBudget; spent?: string } {
  const { maxTotalTokens, maxCostUsd } = config.limits;
  const held = (key: keyof ChildBudget): number => reserved.reduce((sum, r) => sum + (r[key] ?? 0), 0);
  const share = Math.max(1, starting);
  const budget: ChildBudget = {};
  let why: string | undefined;
  if (maxTotalTokens !== undefined) {
    const free = maxTotalTokens - totalTokens(spent.usage) - held('maxTotalTokens');
    budget.maxTotalTokens = Math.floor(free / share);
    if (budget.maxTotalTokens < 1)
      why = `the run's token budget (${maxTotalTokens}) is spent or held by its running sub-agents`;
  }
  if (maxCostUsd !== undefined) {
    const free = maxCostUsd - spent.cost.total - held('maxCostUsd');
    budget.maxCostUsd = free / share;
    if (budget.maxCostUsd <= 0)
      why = `the run's cost budget ($${maxCostUsd}) is spent or held by its running sub-agents`;
  }
  return why ? { budget, spent: why } : { budget };
}

/** The stop reason of a run that reached `limit`: a child that spent its parent's budget stops with `budget`. */
export function budgetReason(config: AgentConfig, limit: AgentStopReason): AgentStopReason {
  const ofBudget = limit === 'token_budget' || limit === 'cost_budget';
  return ofBudget && config.parent?.budgetFromParent ? 'budget' : limit;
}
