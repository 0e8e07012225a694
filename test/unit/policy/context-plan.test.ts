import { contextTokens, planCompaction, planFit, safeSplitPoints } from '../../../src/policy/context-plan';
import { meta, toolLoop } from './message-log';

describe('context plan', () => {
  const log = [
    meta(0, 'user', 100),
    meta(1, 'assistant', 500, { toolCallIds: ['a', 'b'] }),
    meta(2, 'tool_result', 500, { toolCallId: 'a' }),
    meta(3, 'tool_result', 500, { toolCallId: 'b' }),
    meta(4, 'assistant', 100),
    meta(5, 'user', 100),
  ];

  it('only splits where every earlier tool call has its result', () => {
    expect(safeSplitPoints(log)).toEqual([1, 4, 5, 6]);
  });

  it('compacts past the threshold, keeping as many recent tokens as allowed', () => {
    const policy = { thresholdRatio: 0.8, keepRecentRatio: 0.3 };
    expect(planCompaction(log, 0, 0, policy, 3000)).toBeUndefined();
    expect(planCompaction(log, 0, 0, policy, 2000)).toEqual({ splitIndex: 4, tokensBefore: 1800, keptTokens: 200 });
    // Nothing fits the keep budget: fold everything up to the last safe point.
    expect(planCompaction(log, 0, 0, { thresholdRatio: 0.5, keepRecentRatio: 0.01 }, 2000)?.splitIndex).toBe(5);
  });

  it('ignores kinds the model never sees', () => {
    const notes = [meta(0, 'user', 10), meta(1, 'context_note', 5000), meta(2, 'tool_log', 5000)];
    expect(planCompaction(notes, 0, 0, { thresholdRatio: 0.8, keepRecentRatio: 0.3 }, 1000)).toBeUndefined();
  });
});

describe('fitting the context without a summary', () => {
  it('masks every answered result first, then leaves the oldest turns out of view at a safe point', () => {
    const log = toolLoop(10, 1000);
    const masked = planFit(log, 0, 0, 0, 2000);
    expect(masked).toEqual({ maskBefore: 19, dropIndex: 0, tokensAfter: contextTokens(log, 0, 0, 19) });
    const dropped = planFit(log, 0, 0, 0, 1500);
    expect(log[dropped.dropIndex].kind).toBe('assistant');
    expect(dropped.tokensAfter).toBeLessThanOrEqual(1500);
    // The fewest turns left out: one turn fewer would not fit.
    expect(contextTokens(log.slice(dropped.dropIndex - 2), 0, 0, 19)).toBeGreaterThan(1500);
    // The newest result stays whole however tight the target: the fit reports what it reached.
    const tight = planFit(log, 0, 0, 0, 10);
    expect(tight.tokensAfter).toBeGreaterThan(1000);
    expect(tight.dropIndex).toBe(log.length - 2);
  });
});
