import type { AgentResult } from '../../src/contracts/agent-run';
import type { AgentClient, StartAgentOptions } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import {
  PRIMARY,
  cancelRun,
  holdReply,
  toolResultTexts,
  unansweredCalls,
  useAgentFixture,
  waitFor,
  waitForState,
} from './agent-kit';

const start = (options: Partial<StartAgentOptions> = {}) => ({
  start: (agents: AgentClient) => agents.start({ task: 'Work.', model: PRIMARY, ...options }),
});

describe('cancelling a ReAct run returns its result', () => {
  const fx = useAgentFixture();

  it('while a model call runs: the answer is recorded, its tool calls get results and never run', async () => {
    const held = holdReply(
      fx,
      reply.toolCalls([
        { name: 'add', arguments: { a: 1, b: 2 }, id: 'toolu_add' },
        { name: 'write_note', arguments: { text: 'x' }, id: 'toolu_note' },
      ]),
    );
    const out = await cancelRun<AgentResult>(fx, {
      ...start(),
      ready: () => waitFor(() => fx.fake.requests.length === 1, 'the model call'),
      release: () => held.open(),
      history: 'agent-cancel-model-call',
    });
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: 'cancelled', turns: 1 });
    expect(fx.calls).toEqual([]);
    expect(fx.fake.requests).toHaveLength(1);
    expect(out.state.messages.map((m) => m.kind)).toEqual(['user', 'assistant', 'tool_result', 'tool_result']);
    expect(unansweredCalls(out.state)).toEqual([]);
    for (const text of await toolResultTexts(fx, out.state)) expect(text).toContain('the run was stopped');
    expect(out.state.events.at(-1)).toMatchObject({ type: 'done', stopReason: 'cancelled' });
  });

  it('while a tool runs: the tool finishes, the calls after it get results', async () => {
    fx.fake.script(
      reply.toolCalls([
        { name: 'slow_step', arguments: { label: 'A' } },
        { name: 'add', arguments: { a: 1, b: 1 } },
      ]),
    );
    const out = await cancelRun<AgentResult>(fx, {
      ...start(),
      ready: () => waitFor(() => fx.calls.includes('slow_step:A'), 'step A to start'),
      release: () => fx.latch.open(),
      history: 'agent-cancel',
    });
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: 'cancelled', turns: 1 });
    expect(fx.calls).toEqual(['slow_step:A']);
    expect(unansweredCalls(out.state)).toEqual([]);
    const [slow, add] = await toolResultTexts(fx, out.state);
    expect(slow).toContain('step A done');
    expect(add).toContain('the run was stopped');
  });

  it('while waiting for an approval: the call is closed unapproved and never runs', async () => {
    fx.fake.script(reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.txt' }, id: 'toolu_del' }]));
    const out = await cancelRun<AgentResult>(fx, {
      ...start({ tools: { approve: ['delete_file'] } }),
      ready: (agents, id) => waitForState(agents, id, (s) => s.status === 'awaiting_approval'),
      history: 'agent-cancel-approval',
    });
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: 'cancelled', turns: 1 });
    expect(fx.calls).toEqual([]);
    expect(out.state.pendingApprovals).toEqual([]);
    expect(unansweredCalls(out.state)).toEqual([]);
    expect(await toolResultTexts(fx, out.state)).toEqual([expect.stringContaining('the run was stopped')]);
  });
});
