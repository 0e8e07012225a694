import { argsHash } from '../../../src/policy/approval-rules';
import { runSpec } from '../../kit/run-spec';
import { carryState, initialState, restoreState, resultOf, stateView } from '../../../src/policy/agent-state';
import { addCost } from '../../../src/contracts/message-model';

describe('agent state', () => {
  it('carries the small state across continue-as-new and reports the result shape', () => {
    const config = runSpec({ task: 'do it', model: 'anthropic/x' });
    const state = initialState(config, 'conv-1');
    state.turn = 4;
    state.steering.push({ id: 's', text: 'later' });
    state.approvals.push({
      toolCallId: 'c1',
      tool: 'delete_file',
      args: { path: 'a' },
      argsHash: argsHash({ path: 'a' }),
      turn: 1,
      state: 'approved',
    });
    const restored = restoreState(config, JSON.parse(JSON.stringify(carryState(state))));
    expect(restored).toMatchObject({
      conversationId: 'conv-1',
      turn: 4,
      turnsThisRun: 0,
      runs: 2,
      steering: [{ id: 's', text: 'later' }],
      approvals: [],
    });
    state.stopReason = 'max_turns';
    state.status = 'completed';
    expect(Object.keys(resultOf('id-1', state))).toEqual(
      expect.arrayContaining(['id', 'status', 'stopReason', 'finalText', 'turns', 'usage', 'costUsd']),
    );
  });

  it('reports its cost rounded to a billionth of a dollar, in the result, its billing and the state view', () => {
    const state = initialState(runSpec({ task: 'do it', model: 'anthropic/x' }), 'conv-1');
    state.cost = addCost(
      { input: 0.003, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.003 },
      { input: 0.002952, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.002952 },
    );
    expect(state.cost.total).not.toBe(0.005952);
    const result = resultOf('id-1', state);
    expect(result.costUsd).toBe(0.005952);
    expect(result.billing?.cost).toMatchObject({ input: 0.005952, total: 0.005952 });
    expect(stateView('id-1', state).costUsd).toBe(0.005952);
  });
});
