import { defaultLimits, limitReached } from '../../../src/policy/limits';
import { emptyCost, emptyUsage } from '../../../src/contracts/message-model';

describe('limits', () => {
  it('each limit has its own stop reason; budgets stop at 95 %', () => {
    const limits = defaultLimits({ maxTurns: 3, maxTotalTokens: 1000, maxCostUsd: 1 });
    const usage = (n: number) => ({ ...emptyUsage(), inputTokens: n });
    const cost = (c: number) => ({ ...emptyCost(), total: c });
    expect(limitReached(limits, { turn: 3, usage: usage(0), cost: cost(0) })).toBe('max_turns');
    expect(limitReached(limits, { turn: 1, usage: usage(949), cost: cost(0) })).toBeUndefined();
    expect(limitReached(limits, { turn: 1, usage: usage(950), cost: cost(0) })).toBe('token_budget');
    expect(limitReached(limits, { turn: 1, usage: usage(0), cost: cost(0.95) })).toBe('cost_budget');
  });
});
