import { WorkflowUpdateFailedError } from '@temporalio/client';
import { decidePlanUpdate } from '../../src/contracts/agent-workflows';
import type { PevStateView } from '../../src/contracts/pev-run';
import { reply } from '../../src/testing/fake-provider';
import { useTimeSkippingEnv, saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { waitForState } from '../agent/agent-kit';
import { answer, messageText, usePevFixture, pevProgress, pevResult, roleOf, startPev } from './pev-kit';

/** The validator's reason of a refused update. */
const refusal = (update: Promise<unknown>): Promise<string | undefined> =>
  update.then(
    () => 'accepted',
    (err: unknown) => (err instanceof WorkflowUpdateFailedError ? err.cause?.message : String(err)),
  );

describe('Plan mode with plan confirmation', () => {
  const fx = usePevFixture();

  it('waits for the decision on each plan; a rejection sends its feedback to the planner, an approval starts execution', async () => {
    fx.fake.script(
      answer.plan([{ id: 'step-1', description: 'Add 1 and 1' }]),
      answer.plan([{ id: 'step-1', description: 'Add 2 and 2' }]),
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 2 } }]),
      answer.executed('2 + 2 = 4'),
      answer.verified('It is 4.'),
    );
    const result = await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startPev(client, taskQueue, {
        task: 'Add two numbers.',
        pev: { mode: 'plan', confirmPlan: true },
      });
      const handle = client.workflow.getHandle(id);
      const first = (await waitForState(
        agents,
        id,
        (s) => (s as PevStateView).pev?.phase === 'confirming',
      )) as PevStateView;
      expect(first.status).toBe('awaiting_approval');
      expect(first.pev.todos).toEqual([
        expect.objectContaining({ id: 'step-1', description: 'Add 1 and 1', status: 'pending' }),
      ]);
      expect(fx.fake.requests).toHaveLength(1);
      await expect(
        handle.executeUpdate(decidePlanUpdate, { args: [{ approve: false, feedback: 'Use 2 and 2 instead.' }] }),
      ).resolves.toEqual({ approved: false, cycle: 1 });
      await waitForState(
        agents,
        id,
        (s) => (s as PevStateView).pev?.phase === 'confirming' && fx.fake.requests.length === 2,
      );
      expect((await pevProgress(client, id)).todos[0]).toMatchObject({ description: 'Add 2 and 2' });
      await handle.executeUpdate(decidePlanUpdate, { args: [{ approve: true }] });
      const res = await pevResult(client, id);
      await saveHistoryIfRecording(handle, 'pev-confirm-plan');
      return res;
    });
    expect(messageText(fx.fake.requests[1])).toContain('- Use 2 and 2 instead.');
    expect(fx.fake.requests.map(roleOf)).toEqual(['planner', 'planner', 'executor', 'executor', 'verifier']);
    expect(fx.calls).toEqual(['add:2+2']);
    expect(result).toMatchObject({ stopReason: 'completed', finalText: 'It is 4.', pev: { mode: 'plan', cycles: 1 } });
    expect(result.pev.trace.filter((e) => e.type === 'plan_decided')).toEqual([
      { type: 'plan_decided', cycle: 1, approved: false, by: 'user', feedback: 'Use 2 and 2 instead.' },
      { type: 'plan_decided', cycle: 1, approved: true, by: 'user' },
    ]);
  });

  it('refuses a plan decision while no plan is waiting', async () => {
    fx.fake.reset();
    fx.resetLatch();
    fx.fake.script(
      answer.plan([{ id: 'step-1', description: 'Run the slow step' }]),
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'p' } }]),
      answer.executed('done'),
      answer.verified('done'),
    );
    await withWorker({ activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const id = await startPev(client, taskQueue, { task: 'Run it.', pev: { confirmPlan: true } });
      const agents = fx.agents(client, taskQueue);
      await waitForState(agents, id, (s) => (s as PevStateView).pev?.phase === 'confirming');
      const handle = client.workflow.getHandle(id);
      expect(
        await refusal(handle.executeUpdate(decidePlanUpdate, { args: [{ approve: 'yes' as unknown as boolean }] })),
      ).toBe('a plan decision needs approve: true or false');
      await handle.executeUpdate(decidePlanUpdate, { args: [{ approve: true }] });
      await waitForState(agents, id, (s) => (s as PevStateView).pev?.phase === 'executing');
      expect(await refusal(handle.executeUpdate(decidePlanUpdate, { args: [{ approve: true }] }))).toBe(
        'no plan is waiting for a decision (phase executing)',
      );
      fx.latch.open();
      await pevResult(client, id);
    });
  });
});

describe('plan confirmation timeout (time-skipping server)', () => {
  const fx = usePevFixture();
  const env = useTimeSkippingEnv();

  it('a plan nobody confirms within the approval timeout ends the run as plan_not_confirmed', async () => {
    fx.fake.script(answer.plan([{ id: 'step-1', description: 'Add 1 and 1' }]));
    const out = await withWorker({ env, activities: fx.pevActivities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await startPev(client, taskQueue, {
        task: 'Add 1 and 1.',
        options: { searchAttributes: false },
        pev: { mode: 'plan', confirmPlan: true },
      });
      await waitForState(agents, id, (s) => (s as PevStateView).pev?.phase === 'confirming');
      await env.sleep('23 hours');
      const stillWaiting = (await agents.state(id)) as PevStateView;
      await env.sleep('2 hours');
      return { stillWaiting, result: await pevResult(client, id) };
    });
    expect(out.stillWaiting.pev.phase).toBe('confirming');
    expect(out.result).toMatchObject({
      stopReason: 'plan_not_confirmed',
      finalText: 'The plan was not confirmed within 24 h.',
      pev: { endReason: 'plan_not_confirmed' },
    });
    expect(fx.fake.requests).toHaveLength(1);
    expect(fx.calls).toEqual([]);
  });
});
