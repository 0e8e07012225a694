import { temporal } from '@temporalio/proto';
import { reply, type RecordedRequest } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { PRIMARY, useAgentFixture } from './agent-kit';

const eventBytes = (e: temporal.api.history.v1.IHistoryEvent): number =>
  temporal.api.history.v1.HistoryEvent.encode(e).finish().length;

// The 200-turn figure is measured by `npm run bench`; this keeps a shorter run honest in every test pass.
describe('history growth', () => {
  const fx = useAgentFixture();

  it('adds the same number of history bytes per turn however long the conversation gets', async () => {
    const turns = 30;
    let calls = 0;
    fx.fake.respond((_req: RecordedRequest) => {
      calls += 1;
      if (calls >= turns) return reply.text('done');
      // Large tool arguments: if the transcript travelled through history, every turn would grow by them.
      return reply.toolCalls(
        [{ name: 'write_note', arguments: { text: `note ${String(calls).padStart(3, '0')} `.repeat(300) } }],
        { text: 'x'.repeat(200) },
      );
    });
    const history = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Write notes.', model: PRIMARY, limits: { maxTurns: turns } });
      await agents.result(id);
      return client.workflow.getHandle(id).fetchHistory();
    });
    const events = history.events ?? [];
    const starts = events.flatMap((e, i) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [i] : [],
    );
    expect(starts).toHaveLength(turns);
    const perTurn = starts
      .slice(0, -1)
      .map((s, k) => events.slice(s, starts[k + 1]).reduce((sum, e) => sum + eventBytes(e), 0));
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const early = avg(perTurn.slice(1, 6));
    const late = avg(perTurn.slice(-5));
    // Each turn's tool arguments (~3 KB) appear once in history; the earlier turns' do not come back.
    expect(late / early).toBeLessThan(1.05);
    expect(late).toBeLessThan(early + 3000);
  });
});
