import { temporal } from '@temporalio/proto';
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from '../agent/agent-kit';

// A worker that caches few runs keeps the SDK's poller split: with the task queue polled as often as
// the sticky queue, a cached run's next workflow task waited on the sticky queue for its 10 s
// timeout after each regular tool call, and the history shows each wait as a timed-out task.
const { EventType } = temporal.api.enums.v1;

describe('a worker with a small workflow cache', () => {
  const fx = useAgentFixture();

  it('gives each cached run its next workflow task without a sticky-queue timeout', async () => {
    fx.fake.respond((request) => {
      const notes = JSON.stringify(request.body.messages).match(/wrote \d+ characters/g)?.length ?? 0;
      return notes < 2
        ? reply.toolCalls([{ name: 'write_note', arguments: { text: `note ${notes}` } }])
        : reply.text('Done.');
    });
    const timedOut = await withWorker(
      { activities: fx.activities, maxCachedWorkflows: 6 },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const ids = await Promise.all(
          [1, 2, 3].map((i) => agents.start({ task: `Write two notes (${i}).`, model: PRIMARY })),
        );
        const results = await Promise.all(ids.map((id) => agents.result(id)));
        expect(results.map((r) => [r.status, r.turns])).toEqual([
          ['completed', 3],
          ['completed', 3],
          ['completed', 3],
        ]);
        const histories = await Promise.all(ids.map((id) => client.workflow.getHandle(id).fetchHistory()));
        return histories
          .flatMap((h) => h.events ?? [])
          .filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT).length;
      },
    );
    expect(timedOut).toBe(0);
  }, 120_000);
});
