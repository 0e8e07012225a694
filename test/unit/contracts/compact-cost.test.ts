import { compactCost, emptyCost, fullCost } from '../../../src/contracts/message-model';
import { computeCost } from '../../../src/policy/model-registry';

describe("a model call's cost as its compact record carries it", () => {
  const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

  it('leaves out zeros and a total that is the sum of the parts, and fullCost restores the same numbers', () => {
    for (const usage of [
      { inputTokens: 1000, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 },
      { inputTokens: 1234, outputTokens: 77, cacheReadTokens: 98_765, cacheWriteTokens: 4321 },
      { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    ]) {
      const cost = computeCost(usage, prices);
      const compact = compactCost(cost);
      expect(compact.total).toBeUndefined();
      expect(Object.values(compact)).not.toContain(0);
      expect(fullCost(compact)).toEqual(cost);
    }
  });

  it('keeps a total that is not the sum of its parts, and reads a record that carries its total', () => {
    const billed = { ...emptyCost(), input: 0.01, total: 0.02 };
    expect(compactCost(billed)).toEqual({ input: 0.01, total: 0.02 });
    expect(fullCost(compactCost(billed))).toEqual(billed);
    expect(fullCost({ input: 0.003, output: 0.0045, total: 0.0075 })).toMatchObject({ total: 0.0075 });
  });
});
