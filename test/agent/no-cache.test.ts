import type { PevAgentResult } from '../../src/contracts/pev-run';
import { reply } from '../../src/testing/fake-provider';
import { withWorker } from '../kit/temporal';
import { answer, roleOf, startPev, usePevFixture } from '../pev/pev-kit';
import { CHEAP, FALLBACK, PRIMARY, holdReply, useAgentFixture, waitFor, waitForState } from './agent-kit';

// Every workflow task replays the whole history: both kinds must make the same commands each time.
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
          session: { continueAsNewAfterTurns: 2 },
          tools: { approve: ['delete_file'] },
          task: 'Tidy up.',
          model: { primary: PRIMARY, fallbacks: [FALLBACK] },
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

describe('pev with the workflow cache off', () => {
  const fx = usePevFixture();

  it('a role on its own model, its failover, an approval, an operator switch and continue-as-new all replay on every task', async () => {
    const executorModel = 'anthropic/claude-haiku-4-5';
    fx.fake.script(
      answer.plan([
        { id: 'task-1', description: 'Delete old.log' },
        { id: 'task-2', description: 'Add 3 and 4' },
      ]),
      reply.error(529),
    );
    const held = holdReply(
      fx,
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.log' }, id: 'toolu_del' }]),
    );
    const out = await withWorker(
      { activities: fx.pevActivities, maxCachedWorkflows: 0 },
      async ({ client, taskQueue }) => {
        const agents = fx.agents(client, taskQueue);
        const id = await startPev(client, taskQueue, {
          task: 'Delete old.log, then add 3 and 4.',
          options: {
            session: { continueAsNewAfterTurns: 2 },
            tools: { approve: ['delete_file'] },
            model: { fallbacks: [FALLBACK] },
            stream: true,
          },
          pev: { models: { executor: executorModel } },
        });
        const watched: string[] = [];
        const watching = (async () => {
          for await (const item of agents.watch(id)) if (item.topic === 'events') watched.push(item.event.type);
        })();
        await waitFor(() => fx.fake.requests.length === 3, 'the executor call on the fallback');
        // The executor's model is a parameter of its call: the run's own model stays in the view.
        const during = await agents.state(id);
        fx.fake.script(
          answer.executed('deleted old.log'),
          reply.toolCalls([{ name: 'add', arguments: { a: 3, b: 4 } }]),
          answer.executed('7'),
          answer.verified('old.log is gone; 3 + 4 = 7.'),
        );
        held.open();
        await waitForState(agents, id, (s) => s.status === 'awaiting_approval');
        await agents.switchModel(id, CHEAP, 'cheaper for the rest');
        await agents.approve(id, 'toolu_del');
        const result = (await agents.result(id)) as PevAgentResult;
        await watching;
        return { during, result, state: await agents.state(id), watched };
      },
    );
    expect(out.during.model).toBe(PRIMARY);
    expect(out.result).toMatchObject({
      stopReason: 'completed',
      finalText: 'old.log is gone; 3 + 4 = 7.',
      model: CHEAP,
    });
    expect(fx.calls).toEqual(['delete_file:old.log', 'add:3+4']);
    // The operator's model reaches every resolver at its next turn: the executor's own and the run's (verifier).
    expect(fx.fake.requests.map((r) => `${roleOf(r)}:${String(r.body.model)}`)).toEqual([
      'planner:claude-sonnet-4-6',
      'executor:claude-haiku-4-5',
      'executor:gpt-4o-mini',
      'executor:gpt-4.1-nano',
      'executor:gpt-4.1-nano',
      'executor:gpt-4.1-nano',
      'verifier:gpt-4.1-nano',
    ]);
    // No request the real APIs would refuse (the 529 is the scripted overload).
    expect(fx.fake.requests.map((r) => r.status)).toEqual([200, 529, 200, 200, 200, 200, 200]);
    const switches = out.state.events.flatMap((e) => (e.type === 'provider_switch' ? [[e.fromModel, e.toModel]] : []));
    expect(switches).toEqual([
      [executorModel, FALLBACK],
      [FALLBACK, CHEAP],
      [PRIMARY, CHEAP],
    ]);
    expect(out.state.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['approval_decided', 'continued_as_new']),
    );
    expect(out.watched).toEqual(out.state.events.map((e) => e.type));
  });
});
