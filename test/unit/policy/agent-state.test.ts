import { argsHash } from '../../../src/policy/approval-rules';
import { runSpec } from '../../../src/policy/run-spec';
import { carryState, initialState, restoreState, resultOf } from '../../../src/policy/agent-state';

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
});
