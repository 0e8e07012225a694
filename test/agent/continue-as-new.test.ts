import { reply } from '../../src/testing/fake-provider';
import { saveHistoryIfRecording, withWorker } from '../kit/temporal';
import { CHEAP, PRIMARY, useAgentFixture, anthropicMessages } from './agent-kit';

describe('continue-as-new and context compaction', () => {
  const fx = useAgentFixture();

  it('continues as new every N turns, carrying the conversation by reference', async () => {
    fx.fake.script(
      ...[1, 2, 3, 4].map((n) => reply.toolCalls([{ name: 'add', arguments: { a: n, b: n } }])),
      reply.text('All added.'),
    );
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        session: { continueAsNewAfterTurns: 2 },
        task: 'Add four times.',
        model: PRIMARY,
      });
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-continue-as-new');
      return { result, state: await agents.state(id) };
    });
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'All added.', turns: 5 });
    expect(out.state.events.filter((e) => e.type === 'continued_as_new').map((e) => e.turn)).toEqual([2, 4]);
    expect(fx.calls).toEqual(['add:1+1', 'add:2+2', 'add:3+3', 'add:4+4']);
    // The last request still carries the whole conversation, read from the store.
    expect(fx.fake.requests.map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(anthropicMessages(fx.fake.requests[4].body)).toHaveLength(9);
    expect(out.state.messages).toHaveLength(10);
  });

  it('summarises older turns with the summary model once the context passes the threshold, never splitting a call from its result', async () => {
    const long = (tag: string) => `${tag} `.repeat(800);
    fx.fake.script(
      reply.toolCalls([{ name: 'write_note', arguments: { text: long('alpha') }, id: 'toolu_n1' }]),
      reply.toolCalls([{ name: 'write_note', arguments: { text: long('beta') }, id: 'toolu_n2' }]),
      reply.text('The user asked for notes; alpha note written.'),
      reply.text('Both notes are written.'),
    );
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({
        task: 'Write two notes.',
        model: PRIMARY,
        context: { windowTokens: 3000, thresholdRatio: 0.8, keepRecentRatio: 0.3, summaryModel: CHEAP },
      });
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-compaction');
      return { result, state: await agents.state(id) };
    });
    expect(out.result).toMatchObject({ status: 'completed', finalText: 'Both notes are written.' });
    const [, , summaryCall, third] = fx.fake.requests;
    expect(summaryCall.api).toBe('openai');
    expect(summaryCall.body.model).toBe('gpt-4.1-nano');
    expect(JSON.stringify(summaryCall.body.messages)).toContain('alpha');
    const sent = anthropicMessages(third.body);
    expect(third.error).toBeUndefined();
    expect(String(sent[0].blocks[0].text)).toContain(
      'Summary of the earlier conversation:\nThe user asked for notes; alpha note written.',
    );
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[1].blocks.find((b) => b.type === 'tool_use')?.id).toBe('toolu_n2');
    expect(out.state.events.find((e) => e.type === 'context_compacted')).toMatchObject({ summarisedMessages: 3 });
  });
});

describe('context too long', () => {
  const fx = useAgentFixture();

  it('compacts and retries once when the provider says the context is too long', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 7, b: 8 } }], { text: 'Adding.' }),
      reply.error(413),
      reply.text('The user wants 7 + 8.'),
      reply.text('15.'),
    );
    const out = await withWorker({ activities: fx.activities }, async ({ client, taskQueue }) => {
      const agents = fx.agents(client, taskQueue);
      const id = await agents.start({ task: 'What is 7 + 8?', model: PRIMARY });
      const result = await agents.result(id);
      await saveHistoryIfRecording(client.workflow.getHandle(id), 'agent-context-too-long');
      return { result, state: await agents.state(id) };
    });
    expect(out.result).toMatchObject({ status: 'completed', finalText: '15.' });
    expect(out.state.events.map((e) => e.type)).toEqual(expect.arrayContaining(['model_failure', 'context_compacted']));
    expect(out.state.events.find((e) => e.type === 'model_failure')).toMatchObject({
      failureType: 'LlmContextTooLong',
    });
    const retried = anthropicMessages(fx.fake.requests[3].body);
    expect(fx.fake.requests[3].error).toBeUndefined();
    expect(String(retried[0].blocks[0].text)).toContain('Summary of the earlier conversation:\nThe user wants 7 + 8.');
    expect(retried.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });
});
