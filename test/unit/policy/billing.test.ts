import { billingOf } from '../../../src/policy/billing';
import { emptyCost, emptyUsage } from '../../../src/contracts/message-model';

describe('billing', () => {
  it('counts every input token the provider billed and the share read from cache', () => {
    const usage = { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 3000, cacheWriteTokens: 0 };
    const cost = { input: 0.003, output: 0.00075, cacheRead: 0.0009, cacheWrite: 0, total: 0.00465 };
    expect(billingOf(usage, cost)).toEqual({
      inputTokens: 4000,
      uncachedInputTokens: 1000,
      cacheReadTokens: 3000,
      cacheWriteTokens: 0,
      outputTokens: 50,
      cacheReadShare: 0.75,
      cost,
    });
    expect(billingOf(emptyUsage(), emptyCost()).cacheReadShare).toBe(0);
  });
});
