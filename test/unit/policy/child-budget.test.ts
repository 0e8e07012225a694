import { emptyCost, fullUsage } from '../../../src/contracts/message-model';
import { runSpec } from '../../kit/run-spec';
import { budgetReason, childBudget } from '../../../src/policy/child-budget';
import { childConfig } from '../../../src/policy/sub-agents';

const parent = (extra: Parameters<typeof runSpec>[0] | object = {}) =>
  runSpec({
    task: 'Do it.',
    model: 'anthropic/claude-sonnet-4-6',
    agents: { researcher: { description: 'Reads.', maxTurns: 4 } },
    ...extra,
  });

describe("a child run's budget", () => {
  it("gives a child what is left of the parent's budgets, and says when one is spent", () => {
    const config = parent({ limits: { maxTotalTokens: 1000, maxCostUsd: 1 } });
    const spent = { usage: fullUsage({ inputTokens: 300, outputTokens: 100 }), cost: { ...emptyCost(), total: 0.25 } };
    expect(childBudget(config, spent, [])).toEqual({ budget: { maxTotalTokens: 600, maxCostUsd: 0.75 } });
    const over = { usage: fullUsage({ inputTokens: 1000 }), cost: emptyCost() };
    expect(childBudget(config, over, []).spent).toBe(
      "the run's token budget (1000) is spent or held by its running sub-agents",
    );
  });

  it('splits what is free among the children still to start, never giving out what running children hold', () => {
    const config = parent({ limits: { maxTotalTokens: 1000, maxCostUsd: 1 } });
    const spent = { usage: fullUsage({ inputTokens: 100 }), cost: { ...emptyCost(), total: 0.1 } };
    // Three children of one answer: each takes a third of what is free as it starts.
    const first = childBudget(config, spent, [], 3).budget;
    const second = childBudget(config, spent, [first], 2).budget;
    const third = childBudget(config, spent, [first, second], 1).budget;
    expect([first, second, third].map((b) => b.maxTotalTokens)).toEqual([300, 300, 300]);
    const held = [first, second, third].reduce((sum, b) => sum + (b.maxCostUsd ?? 0), 0);
    expect(held).toBeCloseTo(0.9, 10);
    // With everything held by running children, none can start.
    expect(childBudget(config, spent, [first, second, third]).spent).toContain('held by its running sub-agents');
    // A run without budgets gives its children none.
    expect(childBudget(parent(), spent, [], 4)).toEqual({ budget: {} });
  });

  it('calls a child reaching its share of the budget `budget`, and a top-level run by its own limit', () => {
    const config = parent();
    const child = childConfig(config, { workflowId: 'p', agent: 'researcher' }, 'x', { maxCostUsd: 1 });
    expect(budgetReason(child, 'cost_budget')).toBe('budget');
    expect(budgetReason(child, 'max_turns')).toBe('max_turns');
    expect(budgetReason(config, 'token_budget')).toBe('token_budget');
  });
});
