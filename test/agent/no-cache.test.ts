import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, useAgentFixture, waitFor, waitForState } from './agent-kit';

// Every workflow task replays the whole history: the loop must make the same commands each time.
describe('agent loop with the workflow cache off', () => {
  const fx = useAgentFixture();

  it('approval, steering, failover, continue-as-new and a watcher all replay on every task', async () => {
    fx.fake.script(
      reply.error(529),
      reply.toolCalls([
        { name: 'delete_file', arguments: { path: 'old.log' }, id: 'toolu_del' },
        { name: 'add', arguments: { a: 1, b: 2 } },
      ]),
      reply.toolCalls([
        { name: 'slow_step', arguments: { label: 'A' }, id: 'toolu_A' },
        { name: 'slow_step', arguments: { label: 'B' }, id: 'toolu_B' },
      ]),
      reply.toolCalls([{ name: 'add', arguments: { a: 3, b: 4 } }]),
      reply.text('Done.'),
    );
    const out = await withWorker(
      { activities: fx.activities, maxCachedWorkflows: 0 },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await agents.start({
          task: 'Tidy up.',
          model: PRIMARY,
          fallbacks: [FALLBACK],
          approve: ['delete_file'],
          continueAsNewAfterTurns: 2,
          stream: true,
        });
        const watched: string[] = [];
        const watching = (async () => {
          for await (const item of agents.watch(id)) if (item.topic === 'events') watched.push(item.event.type);
        })();
        await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
        await agents.approve(id, 'toolu_del');
        await waitFor(() => fx.calls.includes('slow_step:A'), 'step A to start');
        await agents.steer(id, 'Skip B.', 'steer-nc');
        await waitForState(agents, id, (s) => s.steeringQueued === 1);
        fx.latch.open();
        const result = await agents.result(id);
        await watching;
        return { result, state: await agents.state(id), watched };
      },
    );
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'Done.', turns: 4, model: FALLBACK });
    expect(fx.calls).toEqual(['delete_file:old.log', 'add:1+2', 'slow_step:A', 'add:3+4']);
    expect(fx.fake.requests.map((r) => [r.api, r.status])).toEqual([
      ['anthropic', 529],
      ['openai', 200],
      ['openai', 200],
      ['openai', 200],
      ['openai', 200],
    ]);
    expect(fx.fake.requests.slice(1).map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);
    expect(out.state.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['provider_switch', 'approval_decided', 'steering', 'continued_as_new', 'done']),
    );
    // The watcher saw the whole trace, in order, across both runs.
    expect(out.watched).toEqual(out.state.events.map((e) => e.type));
  });
});
