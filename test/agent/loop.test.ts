import { reply } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { FALLBACK, PRIMARY, useAgentFixture, anthropicMessages, waitFor, waitForState } from './agent-kit';

describe('agent loop on a real server', () => {
  const fx = useAgentFixture();

  it('runs a multi-turn tool-calling conversation to its final answer', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }], { text: 'Let me add.' }),
      reply.toolCalls([
        { name: 'add', arguments: { a: 5, b: 10 } },
        { name: 'write_note', arguments: { text: 'sum is 15' } },
      ]),
      reply.text('The total is 15.', { usage: { input: 100, output: 7 } }),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Add 2 and 3, then add 10, and note it.', model: PRIMARY, tools: {} });
      const res = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-multi-turn');
      return res;
    });
    expect(result).toMatchObject({
      status: 'completed',
      stopReason: 'completed',
      finalText: 'The total is 15.',
      turns: 3,
    });
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(100);
    expect(fx.calls).toEqual(['add:2+3', 'add:5+10', 'write_note:sum is 15']);
    expect(fx.fake.requests.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    // The last request carries the whole conversation, tool results included, in order.
    const last = anthropicMessages(fx.fake.requests[2].body);
    expect(last.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    const results = last[4].blocks.filter((b) => b.type === 'tool_result').map((b) => JSON.stringify(b.content));
    expect(results).toHaveLength(2);
    expect(results[0]).toContain('15');
    expect(fx.fake.requests[0].body.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'add' })]));
  });
  it('runs independent tool calls of a turn in parallel and side-effecting ones alone, results in call order', async () => {
    fx.calls.length = 0;
    fx.fake.script(
      reply.toolCalls([
        { name: 'add', arguments: { a: 1, b: 1 }, id: 'toolu_p1' },
        { name: 'add', arguments: { a: 2, b: 2 }, id: 'toolu_p2' },
        { name: 'add', arguments: { a: 3, b: 3 }, id: 'toolu_p3' },
        { name: 'write_note', arguments: { text: 'after' }, id: 'toolu_p4' },
      ]),
      reply.text('2, 4, 6.'),
    );
    const history = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Add three pairs, then note it.', model: PRIMARY });
      await agents.result(id);
      return client.workflow.getHandle(id).fetchHistory();
    });
    // Commands of one workflow task: the three adds are scheduled together, the note only after they finished.
    const kinds = (history.events ?? [])
      .map((e) => {
        if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool') return 'schedule';
        if (e.activityTaskCompletedEventAttributes) return 'complete';
        return undefined;
      })
      .filter((k) => k !== undefined);
    const toolPhase = kinds.slice(kinds.indexOf('schedule'));
    expect(toolPhase.slice(0, 4)).toEqual(['schedule', 'schedule', 'schedule', 'complete']);
    expect(toolPhase.slice(3, 7)).toEqual(['complete', 'complete', 'complete', 'schedule']);
    const results = anthropicMessages(fx.fake.requests[1].body)[2].blocks.map((b) => b.tool_use_id);
    expect(results).toEqual(['toolu_p1', 'toolu_p2', 'toolu_p3', 'toolu_p4']);
  });
  it('never runs an unknown tool, malformed arguments or a call cut off by the token limit; each gets an error result', async () => {
    fx.calls.length = 0;
    fx.fake.script(
      reply.toolCalls([
        { name: 'nope', arguments: {}, id: 'toolu_u' },
        { name: 'add', rawArguments: '{"a": 1, "b":', id: 'toolu_m' },
      ]),
      reply.toolCalls([{ name: 'write_note', arguments: { text: 'a long note that gets cut' }, id: 'toolu_t' }], {
        truncate: true,
      }),
      reply.text('Giving up on tools.'),
    );
    const state = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Try tools.', model: PRIMARY });
      await agents.result(id);
      return agents.state(id);
    });
    expect(state).toMatchObject({ status: 'completed', finalText: 'Giving up on tools.' });
    expect(fx.calls).toEqual([]);
    expect(fx.fake.requests.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
    const resultOf = (req: number, id: string) =>
      anthropicMessages(fx.fake.requests[req].body)
        .flatMap((m) => m.blocks)
        .find((b) => b.type === 'tool_result' && b.tool_use_id === id);
    expect(resultOf(1, 'toolu_u')).toMatchObject({ is_error: true });
    expect(JSON.stringify(resultOf(1, 'toolu_u')?.content)).toContain('Unknown tool \\"nope\\"');
    expect(JSON.stringify(resultOf(1, 'toolu_m')?.content)).toContain('Not run: the arguments were not valid JSON');
    expect(JSON.stringify(resultOf(2, 'toolu_t')?.content)).toContain('max-tokens limit');
  });
});

describe('streaming, plan recitation and operator switch', () => {
  const fx = useAgentFixture();

  it('streams model calls (heartbeating) and recites the plan at the end of every request', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 1, b: 1 } }], { text: 'Working.' }),
      reply.text('Two.'),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Add one and one.',
        model: PRIMARY,
        stream: true,
        plan: [
          { id: '1', title: 'add the numbers', done: false },
          { id: '2', title: 'report', done: false },
        ],
      });
      return agents.result(id);
    });
    expect(result).toMatchObject({ status: 'completed', finalText: 'Two.', turns: 2 });
    expect(fx.fake.requests.map((r) => r.stream)).toEqual([true, true]);
    for (const request of fx.fake.requests) {
      const messages = anthropicMessages(request.body);
      const last = messages[messages.length - 1];
      expect(last.role).toBe('user');
      expect(JSON.stringify(last.blocks)).toContain(
        'Current plan (todo list):\\n[ ] 1. add the numbers\\n[ ] 2. report',
      );
    }
  });

  it('an operator switch applies at the next turn and is recorded with its reason', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'slow_step', arguments: { label: 'op' } }]),
      reply.text('Now on the other model.'),
    );
    fx.resetLatch();
    const state = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Go.', model: PRIMARY });
      await waitFor(() => fx.calls.includes('slow_step:op'), 'the step to start');
      await agents.switchModel(id, FALLBACK, 'cheaper for the rest');
      await agents.setPlan(id, [{ id: 'a', title: 'finish', done: true }]);
      await waitForState(agents, id, (s) => s.plan?.[0]?.done === true);
      fx.latch.open();
      await agents.result(id);
      return agents.state(id);
    });
    expect(state.model).toBe(FALLBACK);
    expect(fx.fake.requests.map((r) => r.api)).toEqual(['anthropic', 'openai']);
    expect(state.events.find((e) => e.type === 'provider_switch')).toMatchObject({
      fromModel: PRIMARY,
      toModel: FALLBACK,
      reason: 'operator request',
    });
    expect(JSON.stringify(fx.fake.requests[1].body.messages)).toContain('[x] a. finish');
  });
});
