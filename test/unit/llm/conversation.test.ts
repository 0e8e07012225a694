import { complete, streamMessage, stream } from '../../../src/llm';
import { toolCallsOf, type AssistantMessage, type Message } from '../../../src/contracts/message-model';
import type { StreamEvent } from '../../../src/contracts/stream-events';
import { reply, startFakeProvider, type FakeProvider, type FakeStep } from '../../../src/testing/fake-provider';
import { configFor, EVERY_ADAPTER, normalized, toolResult, TOOLS, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** The model's side of the conversation; tool ids in each provider's own format. */
function script(spec: string): FakeStep[] {
  const anthropicFormat = spec.startsWith('anthropic/') || spec.startsWith('minimax/');
  const id = (n: number): string => (anthropicFormat ? `toolu_01Conv${n}` : `call_conv${n}`);
  return [
    reply.text('Hello! What should I look at?', { usage: { input: 20, output: 9 } }),
    reply.toolCalls(
      [
        { id: id(1), name: 'read_file', arguments: { path: 'README.md' } },
        { id: id(2), name: 'list_dir', arguments: { path: 'src', depth: 2 } },
      ],
      { text: 'Reading both now.', usage: { input: 40, output: 30 } },
    ),
    reply.text('The README describes a runtime; src holds two folders.', { usage: { input: 90, output: 14 } }),
  ];
}

type Call = (spec: string, messages: Message[]) => Promise<AssistantMessage>;

/** Plays text → two parallel tool calls → results → final text, returning the assistant turns. */
async function converse(spec: string, call: Call): Promise<AssistantMessage[]> {
  const messages: Message[] = [user('Hi')];
  const first = await call(spec, messages);
  messages.push(first, user('Look at the README and the src folder.'));
  const second = await call(spec, messages);
  messages.push(second);
  for (const tc of toolCallsOf(second))
    messages.push(toolResult(tc.id, tc.name, `contents of ${String(tc.arguments.path)}`));
  const third = await call(spec, messages);
  return [first, second, third];
}

describe('one conversation through every adapter', () => {
  const viaComplete: Call = (spec, messages) =>
    complete(
      { model: spec, systemPrompt: 'You are terse.', messages, options: { tools: TOOLS } },
      { config: configFor(fake) },
    );
  const viaStream: Call = (spec, messages) =>
    streamMessage(
      { model: spec, systemPrompt: 'You are terse.', messages, options: { tools: TOOLS } },
      { config: configFor(fake) },
    );

  const runs: Record<string, AssistantMessage[]> = {};

  for (const spec of EVERY_ADAPTER) {
    for (const [mode, call] of [
      ['complete', viaComplete],
      ['stream', viaStream],
    ] as const) {
      it(`${spec} with ${mode}: every request passes the API's validation and the turns come back whole`, async () => {
        fake.script(...script(spec));
        const turns = await converse(spec, call);
        runs[`${spec} ${mode}`] = turns;

        expect(fake.requests.map((r) => [r.status, r.error])).toEqual([
          [200, undefined],
          [200, undefined],
          [200, undefined],
        ]);
        // Both stream from the provider: a hang shows as silence, whether or not anyone watches the events.
        expect(fake.requests.every((r) => r.stream)).toBe(true);
        const [first, second, third] = turns;
        expect(first.content).toEqual([{ type: 'text', text: 'Hello! What should I look at?' }]);
        expect(second.stopReason).toBe('tool_use');
        expect(toolCallsOf(second).map((c) => [c.name, c.arguments, c.malformed])).toEqual([
          ['read_file', { path: 'README.md' }, undefined],
          ['list_dir', { path: 'src', depth: 2 }, undefined],
        ]);
        expect(third.stopReason).toBe('stop');
        expect(turns.every((t) => t.provider === spec.split('/')[0] && t.model === spec.split('/')[1])).toBe(true);
      });
    }
  }

  it('gives equal normalized messages for every adapter and both modes', () => {
    const keys = Object.keys(runs);
    expect(keys).toHaveLength(EVERY_ADAPTER.length * 2);
    const reference = runs[keys[0]].map(normalized);
    for (const key of keys) expect({ key, turns: runs[key].map(normalized) }).toEqual({ key, turns: reference });
  });
});

describe('stream events', () => {
  it('streams text, thinking and tool-call arguments in pieces, each block bracketed by start and end', async () => {
    fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'The user wants the file; I should read it.' },
        { type: 'text', text: 'Reading it now, one moment please.' },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'docs/a-long-file-name.md' } },
      ]),
    );
    const events: StreamEvent[] = [];
    for await (const e of stream(
      { model: 'anthropic/claude-sonnet-4-6', messages: [user('read it')], options: { tools: TOOLS } },
      { config: configFor(fake) },
    )) {
      events.push(e);
    }
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('start');
    expect(types.slice(-2)).toEqual(['usage', 'done']);
    expect(types.filter((t) => t === 'text_delta').length).toBeGreaterThan(1);
    expect(types.filter((t) => t === 'thinking_delta').length).toBeGreaterThan(1);
    expect(types.filter((t) => t === 'tool_call_delta').length).toBeGreaterThan(1);
    for (const [start, end] of [
      ['thinking_start', 'thinking_end'],
      ['text_start', 'text_end'],
      ['tool_call_start', 'tool_call_end'],
    ]) {
      expect(types.indexOf(start as StreamEvent['type'])).toBeLessThan(types.indexOf(end as StreamEvent['type']));
    }
    const deltas = events.flatMap((e) => (e.type === 'tool_call_delta' ? [e.delta] : [])).join('');
    expect(JSON.parse(deltas)).toEqual({ path: 'docs/a-long-file-name.md' });
  });
});
