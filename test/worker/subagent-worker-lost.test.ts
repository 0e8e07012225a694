/**
 * A worker killed while a sub-agent's child run waits on its model call: the call is retried on
 * another worker, the child finishes, the parent reads its answer, and nothing starts twice.
 */
import { reply, type FakeStep } from '../../src/testing/fake-provider';
import { PRIMARY, waitFor } from '../agent/agent-kit';
import { lossScene } from '../kit/worker-loss';
import { useWorkerHosts } from '../kit/worker-process';

describe('a worker killed during a child run', () => {
  const hosts = useWorkerHosts('subagent-worker-lost');

  it('lets the child and its parent finish on another worker, each step once', async () => {
    let childCalls = 0;
    hosts.fake.respond((request): FakeStep => {
      const system = JSON.stringify(request.body.system ?? '');
      const answered = (request.body.messages as { role: string }[]).some((m) => m.role === 'assistant');
      if (!system.includes('You are the researcher.'))
        return answered
          ? reply.text('The researcher found 42.')
          : reply.toolCalls([{ name: 'researcher', arguments: { task: 'Find the number.' }, id: 'toolu_r' }]);
      // The first worker's child call waits on the provider until that worker dies.
      return ++childCalls === 1 ? reply.hang() : reply.text('42');
    });
    const { client, agents, replaceWorker } = await lossScene(hosts, 'subagent-worker-lost');
    const id = await agents.start({
      task: 'Ask the researcher.',
      model: PRIMARY,
      agents: { researcher: { description: 'Finds things.', instructions: 'You are the researcher.' } },
    });
    await waitFor(() => childCalls === 1, 'the child’s model call on the first worker', 60_000);
    await replaceWorker();
    const result = await agents.result(id);
    expect(result).toMatchObject({ status: 'completed', finalText: 'The researcher found 42.' });
    expect(result.children?.map((c) => [c.id, c.status])).toEqual([[`${id}/researcher-toolu_r`, 'completed']]);
    expect(childCalls).toBe(2);
    const { events } = await client.workflow.getHandle(id).fetchHistory();
    expect((events ?? []).filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)).toHaveLength(1);
    // The parent made two model calls, one before and one after its child.
    expect(
      hosts.fake.requests.filter((r) => !JSON.stringify(r.body.system ?? '').includes('researcher.')),
    ).toHaveLength(2);
  }, 120_000);
});
