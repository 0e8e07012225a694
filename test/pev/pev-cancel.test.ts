import type { PevAgentResult, PevStateView } from '../../src/contracts/pev-run';
import type { AgentStateView } from '../../src/contracts/agent-run';
import type { AgentClient } from '../../src/client';
import { reply } from '../../src/testing/fake-provider';
import { cancelRun, holdReply, toolResultTexts, unansweredCalls, waitForState } from '../agent/agent-kit';
import { answer, roleOf, startPev, usePevFixture, waitFor, type StartPev } from './pev-kit';

const phaseOf = (s: AgentStateView): string | undefined => (s as PevStateView).pev?.phase;

describe('cancelling a pev run returns its result', () => {
  const fx = usePevFixture();
  const cancelPev = (
    start: Partial<StartPev>,
    ready: (agents: AgentClient, id: string) => Promise<unknown>,
    history: string,
    release?: () => void,
  ) =>
    cancelRun<PevAgentResult>(fx, {
      start: (_agents, { client, taskQueue }) => startPev(client, taskQueue, { task: 'Add 1 and 2.', ...start }),
      ready,
      history,
      release,
      activities: fx.pevActivities,
    });

  it("while the executor's model call runs: its tool calls get results and never run", async () => {
    fx.fake.script(answer.plan([{ id: 'task-1', description: 'Add 1 and 2' }]));
    const held = holdReply(fx, reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 }, id: 'toolu_add' }]));
    const out = await cancelPev(
      {},
      () => waitFor(() => fx.fake.requests.length === 2, 'the executor call'),
      'pev-cancel-model-call',
      () => held.open(),
    );
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: 'cancelled', turns: 2 });
    expect(out.result.todos[0]).toMatchObject({ id: 'task-1', status: 'executing' });
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner', 'executor']);
    expect(fx.calls).toEqual([]);
    expect(unansweredCalls(out.state)).toEqual([]);
    expect(await toolResultTexts(fx, out.state)).toEqual([expect.stringContaining('the run was stopped')]);
  });

  it('while an executor tool runs: the tool finishes, no role takes another turn', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Run the slow step' }]),
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'x' } }]),
    );
    const out = await cancelPev(
      {},
      () => waitFor(() => fx.calls.includes('slow_step:x'), 'the slow step to start'),
      'pev-cancel-tool',
      () => fx.latch.open(),
    );
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: 'cancelled' });
    expect(fx.fake.requests).toHaveLength(2);
    expect(unansweredCalls(out.state)).toEqual([]);
    expect(await toolResultTexts(fx, out.state)).toEqual([expect.stringContaining('step x done')]);
  });

  it('while an executor call waits for approval: the call is closed unapproved and never runs', async () => {
    fx.fake.script(
      answer.plan([{ id: 'task-1', description: 'Delete old.txt' }]),
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.txt' } }]),
    );
    const out = await cancelPev(
      { options: { tools: { approve: ['delete_file'] } } },
      (agents, id) => waitForState(agents, id, (s) => s.pendingApprovals.length === 1),
      'pev-cancel-approval',
    );
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: 'cancelled' });
    expect(fx.calls).toEqual([]);
    expect(out.state.pendingApprovals).toEqual([]);
    expect(unansweredCalls(out.state)).toEqual([]);
    expect(await toolResultTexts(fx, out.state)).toEqual([expect.stringContaining('the run was stopped')]);
  });

  it('while the plan waits for a decision: the run ends without executing it', async () => {
    fx.fake.script(answer.plan([{ id: 'task-1', description: 'Add 1 and 2' }]));
    const out = await cancelPev(
      { pev: { confirmPlan: true } },
      (agents, id) => waitForState(agents, id, (s) => phaseOf(s) === 'confirming'),
      'pev-cancel-confirm-plan',
    );
    expect(out.status).toBe('COMPLETED');
    expect(out.result).toMatchObject({ status: 'stopped', stopReason: 'cancelled', turns: 1 });
    expect(out.result.todos).toEqual([expect.objectContaining({ id: 'task-1', status: 'pending' })]);
    expect(out.result.pev.trace.some((e) => e.type === 'plan_decided')).toBe(false);
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner']);
    expect(phaseOf(out.state)).toBe('confirming');
    expect(out.state.events.at(-1)).toMatchObject({ type: 'done', stopReason: 'cancelled' });
  });
});
