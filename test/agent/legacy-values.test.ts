import { currentBody, kindOf } from '../../src/policy/legacy-values';
import type { StoredBody } from '../../src/contracts/stored-body';
import type { AgentConfig, CarriedState } from '../../src/contracts/agent-run';
import type { PevState } from '../../src/contracts/pev-run';
import { buildAgentConfig, configProblems } from '../../src/policy/agent-config';
import { carryState, initialState, restoreState, stateView } from '../../src/policy/agent-state';
import { currentPevState, resolvePevOptions } from '../../src/policy/pev/pev-options';

describe('values written before snake_case', () => {
  it('reads camelCase log kinds and stored bodies as today’s values, and leaves current ones alone', () => {
    expect(kindOf({ kind: 'toolResult' as never })).toBe('tool_result');
    expect(kindOf({ kind: 'tool_result' })).toBe('tool_result');
    const old = {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'c1', name: 'add', arguments: { a: 1 } }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      stopReason: 'toolUse',
      timestamp: 1,
    } as unknown as StoredBody;
    expect(currentBody(old)).toMatchObject({ stopReason: 'tool_use', content: [{ type: 'tool_call', id: 'c1' }] });
    const result = { role: 'toolResult', toolCallId: 'c1', toolName: 'add', content: [], isError: false, timestamp: 1 };
    expect(currentBody(result as unknown as StoredBody)).toMatchObject({ role: 'tool_result', toolCallId: 'c1' });
    const now: StoredBody = { role: 'user', content: 'hi', timestamp: 1 };
    expect(currentBody(now)).toBe(now);
  });
});

describe('models recorded as spec strings', () => {
  it('reads a started config, a carried state and a carried pev state with their models as refs', () => {
    const recorded = {
      ...buildAgentConfig({ task: 't', model: 'a/one' }),
      resolver: {
        primary: 'a/one',
        fallbacks: ['b/two'],
        attemptsPerProvider: 3,
        failoverOnOverload: true,
        budget: [{ afterTokens: 5, model: 'c/three' }],
      },
      context: { thresholdRatio: 0.8, keepRecentRatio: 0.3, summaryModel: 'd/four' },
    } as unknown as AgentConfig;
    expect(configProblems(recorded)).toEqual([]);
    const state = initialState(recorded, 'conv');
    expect(state.config.resolver).toMatchObject({
      primary: { provider: 'a', model: 'one' },
      fallbacks: [{ provider: 'b', model: 'two' }],
      budget: [{ afterTokens: 5, model: { provider: 'c', model: 'three' } }],
    });
    expect(state.config.context.summaryModel).toEqual({ provider: 'd', model: 'four' });
    expect(state.resolver.current).toEqual({ provider: 'a', model: 'one' });

    const carried = {
      ...carryState(state),
      resolver: { current: 'b/two', chainIndex: 1, budgetApplied: 0, operatorModel: 'e/five', switches: 1 },
      operatorModel: { model: 'e/five', note: 'cheaper' },
    } as unknown as CarriedState;
    const restored = restoreState(recorded, carried);
    expect(restored.resolver).toMatchObject({
      current: { provider: 'b', model: 'two' },
      operatorModel: { provider: 'e', model: 'five' },
    });
    expect(restored.operatorModel).toEqual({ model: { provider: 'e', model: 'five' }, note: 'cheaper' });
    expect(stateView('id', restored)).toMatchObject({ model: 'b/two', provider: 'b' });

    const pev = currentPevState({
      options: { ...resolvePevOptions({}), models: { executor: 'f/six' } },
      roleResolvers: { executor: { current: 'f/six', chainIndex: 0, budgetApplied: 0, switches: 0 } },
    } as unknown as PevState);
    expect(pev.options.models).toEqual({ executor: { provider: 'f', model: 'six' } });
    expect(pev.roleResolvers.executor.current).toEqual({ provider: 'f', model: 'six' });
  });
});
