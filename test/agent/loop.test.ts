import { reply } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { PRIMARY, agentFixture, anthropicMessages, type AgentFixture } from './agent-kit';

describe('agent loop on a real server', () => {
  let fx: AgentFixture;
  beforeAll(async () => {
    fx = await agentFixture();
  });
  afterAll(() => fx.close());
  beforeEach(() => fx.fake.reset());

  it('runs a multi-turn tool-calling conversation to its final answer', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 } }], { text: 'Let me add.' }),
      reply.toolCalls([{ name: 'add', arguments: { a: 5, b: 10 } }, { name: 'write_note', arguments: { text: 'sum is 15' } }]),
      reply.text('The total is 15.', { usage: { input: 100, output: 7 } }),
    );
    const result = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'Add 2 and 3, then add 10, and note it.', model: PRIMARY, tools: {} });
      const res = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-multi-turn');
      return res;
    });
    expect(result).toMatchObject({ status: 'completed', stopReason: 'completed', finalText: 'The total is 15.', turns: 3 });
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
});
