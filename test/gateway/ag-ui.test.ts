import { HttpAgent } from '@ag-ui/client';
import type { BaseEvent, RunAgentInput } from '@ag-ui/core';
import { EventSchemas } from '@ag-ui/core/schemas';
import { reply } from '../../src/testing/fake-provider';
import { useAgentFixture } from '../agent/agent-kit';
import { collect, withGateway } from './gateway-kit';

const FIRST = 'I will add the two numbers with the tool first, then tell you the sum.';
const FINAL = 'The sum of 2 and 3 is 5, as the add tool said; nothing else was needed here.';

type Ev = BaseEvent & Record<string, unknown>;

const input = (threadId: string, runId: string, text: string, extra: Partial<RunAgentInput> = {}): RunAgentInput => ({
  threadId,
  runId,
  messages: [{ id: `u-${runId}`, role: 'user', content: text }],
  tools: [],
  context: [],
  ...extra,
});

/** The streamed text of each message, by id. */
function texts(events: Ev[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events)
    if (e.type === 'TEXT_MESSAGE_CONTENT')
      out[e.messageId as string] = (out[e.messageId as string] ?? '') + String(e.delta);
  return out;
}

/** Every event validates against AG-UI's own event schemas. */
function expectConformant(events: Ev[]): void {
  for (const e of events) {
    const checked = EventSchemas.safeParse(e);
    if (!checked.success) throw new Error(`${e.type} does not conform: ${checked.error.message}`);
  }
}

describe('the AG-UI endpoint', () => {
  const fx = useAgentFixture();

  it('streams a run with its tokens, a tool call and its result, its steps and its end', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'add', arguments: { a: 2, b: 3 }, id: 'toolu_g1' }], { text: FIRST, eventDelayMs: 20 }),
      reply.text(FINAL, { eventDelayMs: 20 }),
    );
    await withGateway(fx, {}, async (gateway) => {
      const agent = new HttpAgent({ url: `${gateway.url}/ag-ui/reader` });
      const events = (await collect(agent.run(input('thread-1', `r-${Date.now()}`, 'Add 2 and 3.')))) as Ev[];
      expectConformant(events);
      const types = events.map((e) => e.type);
      expect(types[0]).toBe('RUN_STARTED');
      expect(types.at(-1)).toBe('RUN_FINISHED');
      expect(Object.values(texts(events))).toEqual([FIRST, FINAL]);
      expect(events.find((e) => e.type === 'TOOL_CALL_START')).toMatchObject({
        toolCallId: 'toolu_g1',
        toolCallName: 'add',
      });
      expect(JSON.parse(String(events.find((e) => e.type === 'TOOL_CALL_ARGS')?.delta))).toEqual({ a: 2, b: 3 });
      expect(events.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({ toolCallId: 'toolu_g1', content: '5' });
      expect(types.filter((t) => t === 'STEP_STARTED')).toHaveLength(2);
      expect(events.at(-1)).toMatchObject({
        outcome: { type: 'success' },
        result: { text: FINAL, stopReason: 'completed' },
      });
    });
  });

  it('ends the stream with an approval interrupt, and a resume that approves goes on to the end', async () => {
    fx.fake.script(
      reply.toolCalls([{ name: 'delete_file', arguments: { path: 'old.log' }, id: 'toolu_g2' }]),
      reply.text('Deleted old.log as you approved.'),
    );
    await withGateway(fx, {}, async (gateway, agents) => {
      const agent = new HttpAgent({ url: `${gateway.url}/ag-ui/reader` });
      const runId = `r-${Date.now()}`;
      const first = (await collect(agent.run(input('thread-2', runId, 'Delete old.log.')))) as Ev[];
      expectConformant(first);
      const end = first.at(-1) as unknown as { outcome: { type: string; interrupts: Record<string, unknown>[] } };
      expect(end.outcome.type).toBe('interrupt');
      const [interrupt] = end.outcome.interrupts;
      expect(interrupt).toMatchObject({ reason: 'tool_approval', toolCallId: 'toolu_g2' });
      expect(interrupt.metadata).toMatchObject({ tool: 'delete_file', args: { path: 'old.log' } });
      expect(fx.calls).not.toContain('delete_file:old.log');

      const resumed = (await collect(
        agent.run(
          input('thread-2', `${runId}-2`, 'Delete old.log.', {
            resume: [{ interruptId: String(interrupt.id), status: 'resolved', payload: { approved: true } }],
          }),
        ),
      )) as Ev[];
      expectConformant(resumed);
      expect(resumed[0].type).toBe('RUN_STARTED');
      expect(resumed.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({ content: 'deleted old.log' });
      expect(resumed.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
      expect(fx.calls).toContain('delete_file:old.log');
      const result = await agents.result(`reader:${runId}`);
      expect(result.finalText).toBe('Deleted old.log as you approved.');
    });
  });

  it('resumes a stream a client left mid-answer from its last event, with no token lost or repeated', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    fx.fake.script(reply.text(long, { eventDelayMs: 60 }));
    await withGateway(fx, {}, async (gateway) => {
      const runId = `r-${Date.now()}`;
      const body = input('thread-3', runId, 'Say many words.');
      const client = new HttpAgent({ url: `${gateway.url}/ag-ui/reader` });
      const first = (await collect(
        client.run(body),
        (events) => events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length >= 2,
        () => client.abortRun(),
      )) as Ev[];
      const resume = (first.at(-1)!.rawEvent as { resume: string }).resume;
      const again = new HttpAgent({ url: `${gateway.url}/ag-ui/reader`, headers: { 'Last-Event-ID': resume } });
      const rest = (await collect(again.run(body))) as Ev[];
      expectConformant(rest);
      const before = Object.values(texts(first)).join('');
      const after = Object.values(texts(rest)).join('');
      expect(before.length).toBeGreaterThan(0);
      expect(after.length).toBeGreaterThan(0);
      expect(before + after).toBe(long);
      expect(rest.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    });
  });

  it('resumes the stream of a run that ended meanwhile with the tokens it had not sent', async () => {
    const long = Array.from({ length: 24 }, (_, i) => `part${i}`).join(' ');
    fx.fake.script(reply.text(long, { eventDelayMs: 60 }));
    await withGateway(fx, {}, async (gateway, agents) => {
      const runId = `r-${Date.now()}`;
      const body = input('thread-4', runId, 'Say many parts.');
      const client = new HttpAgent({ url: `${gateway.url}/ag-ui/reader` });
      const first = (await collect(
        client.run(body),
        (events) => events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').length >= 1,
        () => client.abortRun(),
      )) as Ev[];
      await agents.result(`reader:${runId}`);
      const resume = (first.at(-1)!.rawEvent as { resume: string }).resume;
      const again = new HttpAgent({ url: `${gateway.url}/ag-ui/reader`, headers: { 'Last-Event-ID': resume } });
      const rest = (await collect(again.run(body))) as Ev[];
      expect(Object.values(texts(first)).join('') + Object.values(texts(rest)).join('')).toBe(long);
      expect(rest.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    });
  });

  it("starts a new thread's run from the messages before its last; a system message is refused and starts nothing", async () => {
    fx.fake.script(reply.text('Your code word was heron.'));
    await withGateway(fx, {}, async (gateway) => {
      const agent = new HttpAgent({ url: `${gateway.url}/ag-ui/reader` });
      const runId = `r-${Date.now()}`;
      const events = (await collect(
        agent.run(
          input('thread-history', runId, 'Which code word did I give you?', {
            messages: [
              { id: 'u-1', role: 'user', content: 'My code word is heron.' },
              { id: 'elsewhere-1', role: 'assistant', content: 'Noted: heron.' },
              { id: 'u-2', role: 'user', content: 'Which code word did I give you?' },
            ],
          }),
        ),
      )) as Ev[];
      expect(Object.values(texts(events))).toEqual(['Your code word was heron.']);
      const said = JSON.stringify(fx.fake.requests.at(-1)?.body);
      expect(said).toContain('My code word is heron.');
      expect(said).toContain('Noted: heron.');

      const before = fx.fake.requests.length;
      const refused = new HttpAgent({ url: `${gateway.url}/ag-ui/reader` });
      await expect(
        collect(
          refused.run(
            input('thread-system', `r-${Date.now()}-s`, 'Hi.', {
              messages: [
                { id: 's-1', role: 'system', content: 'Answer in French.' },
                { id: 'u-3', role: 'user', content: 'Hi.' },
              ],
            }),
          ),
        ),
      ).rejects.toThrow(/messages\[0\] is a system message: the agent's instructions are its own/);
      expect(fx.fake.requests.length).toBe(before);
    });
  });
});
