import { reply } from '../../src/testing/fake-provider';
import { useTimeSkippingEnv, saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, anthropicMessages, useAgentFixture, waitForState } from './agent-kit';

// Long waits are driven with env.sleep and queries, never an awaited update: the time-skipping
// server does not skip time while a client awaits an update (sdk-typescript#1549).
describe('approval timeout (time-skipping server)', () => {
  const fx = useAgentFixture();
  const env = useTimeSkippingEnv();

  it('an approval nobody decides within 24 h resolves as a rejection the model reads', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'a.txt' }, id: 'toolu_late' }]),
      reply.text('Nobody approved; I left the file.'),
    );
    const out = await withWorker({ env, activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        tools: { approve: ['delete_file'] },
        task: 'Delete a.txt.',
        model: PRIMARY,
        searchAttributes: false,
      });
      await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
      await env.sleep('23 hours');
      const stillWaiting = await agents.state(id);
      await env.sleep('2 hours');
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-approval-timeout');
      return { stillWaiting, result, state: await agents.state(id) };
    });
    expect(out.stillWaiting.status).toBe('awaiting_approval');
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'Nobody approved; I left the file.' });
    expect(fx.calls).toEqual([]);
    expect(out.state.events.find((e) => e.type === 'approval_decided')).toMatchObject({
      decision: 'rejected',
      by: 'timeout',
      reason: 'no decision within 24 h',
    });
    const result = anthropicMessages(fx.fake.requests[1].body)
      .flatMap((m) => m.blocks)
      .find((b) => b.type === 'tool_result');
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toContain('Not approved: no decision within 24 h');
  });
});
