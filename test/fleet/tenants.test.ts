import type { WorkflowHandle } from '@temporalio/client';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/contracts/search-attributes';
import { reply } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture, waitFor } from '../agent/agent-kit';

/** The priorities the run's (latest execution's) activities were scheduled with, by activity type. */
async function scheduledPriorities(handle: WorkflowHandle) {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    if (!a) return [];
    return [{ type: a.activityType?.name, priorityKey: a.priority?.priorityKey, fairnessKey: a.priority?.fairnessKey }];
  });
}

describe('tenants and priorities', () => {
  const fx = useAgentFixture();

  it("a run's tenant and priority go with its model calls and tools, across continue-as-new, and name it in search", async () => {
    fx.fake.script(reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 2 } }]), reply.text('3.'));
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        session: { continueAsNewAfterTurns: 1 },
        fleet: { priority: 2, tenant: 'acme' },
        task: 'Add 1 and 2.',
        model: PRIMARY,
        tools: { allow: ['add'] },
      });
      const result = await agents.result(id);
      expect(result).toMatchObject({ status: 'completed', finalText: '3.' });
      const handle = client.workflow.getHandle(id);
      await saveHistoryIfRecording(handle, 'agent-tenant-priority');
      const first = await handle.describe();
      expect(first.typedSearchAttributes.get(AGENT_SEARCH_ATTRIBUTES.tenant)).toBe('acme');
      const firstRunId = first.raw.workflowExecutionInfo?.firstRunId ?? '';
      const firstRun = client.workflow.getHandle(id, firstRunId);
      const priorities = [...(await scheduledPriorities(firstRun)), ...(await scheduledPriorities(handle))];
      expect(priorities.map((p) => p.type).sort()).toEqual(['callModel', 'callModel', 'runTool']);
      expect(new Set(priorities.map((p) => `${p.fairnessKey}:${p.priorityKey}`))).toEqual(new Set(['acme:2']));
      expect(first.runId).not.toBe(firstRunId);
    });
  });

  it('a priority-1 run started behind queued priority-5 runs gets its answer before their median', async () => {
    const answered = new Map<string, number>();
    fx.fake.respond((request) => {
      const body = JSON.stringify(request.body);
      const job = /Job (\w+)\./.exec(body)?.[1] ?? '?';
      answered.set(job, answered.size);
      return reply.text(`Done ${job}.`, { delayMs: 100 });
    });
    await withWorker(
      { activities: fx.activities, workerOptions: { maxConcurrentActivityTaskExecutions: 1 } },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const queued = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            agents.start({ fleet: { priority: 5, tenant: 'batch' }, task: `Job p${i}.`, model: PRIMARY }),
          ),
        );
        await waitFor(() => answered.size >= 2, 'the queued runs to start answering');
        const urgent = await agents.start({
          fleet: { priority: 1, tenant: 'batch' },
          task: 'Job urgent.',
          model: PRIMARY,
        });
        await Promise.all([...queued, urgent].map((id) => agents.result(id)));
      },
    );
    const order = [...answered.entries()].filter(([job]) => job.startsWith('p')).map(([, at]) => at);
    const median = [...order].sort((a, b) => a - b)[Math.floor(order.length / 2)];
    expect(answered.get('urgent')).toBeLessThan(median);
  });

  it("tenants at equal weight share a backlog: a small tenant's 3 runs all finish before the median of a big one's 30", async () => {
    const answered: string[] = [];
    fx.fake.respond((request) => {
      const job = /Job (\w+)\./.exec(JSON.stringify(request.body))?.[1] ?? '?';
      answered.push(job);
      return reply.text(`Done ${job}.`, { delayMs: 100 });
    });
    const closed = await withWorker(
      { activities: fx.activities, workerOptions: { maxConcurrentActivityTaskExecutions: 1 } },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const big = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            agents.start({ fleet: { tenant: 'big' }, task: `Job a${i}.`, model: PRIMARY }),
          ),
        );
        await waitFor(() => answered.length >= 2, 'the big tenant to start answering');
        const small = await Promise.all(
          Array.from({ length: 3 }, (_, i) =>
            agents.start({ fleet: { tenant: 'small' }, task: `Job b${i}.`, model: PRIMARY }),
          ),
        );
        await Promise.all([...big, ...small].map((id) => agents.result(id)));
        const closeTime = async (id: string) => (await client.workflow.getHandle(id).describe()).closeTime!.getTime();
        return { big: await Promise.all(big.map(closeTime)), small: await Promise.all(small.map(closeTime)) };
      },
    );
    const median = [...closed.big].sort((a, b) => a - b)[Math.floor(closed.big.length / 2)];
    expect(Math.max(...closed.small)).toBeLessThan(median);
    // The small tenant's calls were answered among the first half of the 33, not after the backlog.
    const smallAt = answered.flatMap((job, at) => (job.startsWith('b') ? [at] : []));
    expect(smallAt).toHaveLength(3);
    expect(Math.max(...smallAt)).toBeLessThan(answered.length / 2);
  });

  it('a tenant that is not a valid key or a priority outside 1 to 5 is refused before the run starts', async () => {
    await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      await expect(agents.start({ fleet: { tenant: 'two words' }, task: 'Hi.', model: PRIMARY })).rejects.toThrow(
        /tenant "two words" is not a valid key/,
      );
      await expect(agents.start({ fleet: { priority: 7 }, task: 'Hi.', model: PRIMARY })).rejects.toThrow(
        /priority must be a whole number from 1/,
      );
    });
    expect(fx.fake.requests).toEqual([]);
  });
});
