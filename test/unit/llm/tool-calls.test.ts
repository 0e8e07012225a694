import { complete, parseToolArguments, streamMessage, toAnthropicToolId, toOpenAIToolId } from '../../../src/llm';
import { toolCallsOf } from '../../../src/contracts/message-model';
import { reply, startFakeProvider, type FakeProvider } from '../../../src/testing/fake-provider';
import { configFor, EVERY_ADAPTER, TOOLS, toolResult, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const modes = { complete, stream: streamMessage };
const cases = EVERY_ADAPTER.flatMap((spec) => (['complete', 'stream'] as const).map((mode) => [spec, mode] as const));

describe('tool calls cut or garbled by the model', () => {
  it.each(cases)(
    '%s %s: a call cut by the token limit is marked malformed, the complete one before it is kept',
    async (spec, mode) => {
      fake.script(
        reply.toolCalls(
          [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'read_file', arguments: { path: 'some/rather/long/path/that/gets/cut.txt' } },
          ],
          { truncate: true },
        ),
      );
      const message = await modes[mode](
        { model: spec, messages: [user('go')], options: { tools: TOOLS } },
        { config: configFor(fake) },
      );
      expect(message.stopReason).toBe('length');
      const [whole, cut] = toolCallsOf(message);
      expect(whole).toMatchObject({ name: 'read_file', arguments: { path: 'a.txt' } });
      expect(whole.malformed).toBeUndefined();
      expect(cut.arguments).toEqual({});
      expect(cut.malformed?.reason).toMatch(/max-tokens/);
    },
  );

  it.each(cases)(
    '%s %s: single quotes and a trailing comma are repaired; unclosed JSON is reported, not guessed',
    async (spec, mode) => {
      fake.script(
        reply.toolCalls([
          { name: 'read_file', rawArguments: "{'path': 'notes.md',}" },
          { name: 'list_dir', rawArguments: '{"path": "src", "depth": ' },
        ]),
      );
      const message = await modes[mode](
        { model: spec, messages: [user('go')], options: { tools: TOOLS } },
        { config: configFor(fake) },
      );
      const [repaired, broken] = toolCallsOf(message);
      expect(repaired.arguments).toEqual({ path: 'notes.md' });
      expect(repaired.malformed).toBeUndefined();
      expect(broken.malformed).toEqual({
        raw: '{"path": "src", "depth": ',
        reason: expect.stringContaining('incomplete JSON'),
      });
    },
  );
});

describe('parseToolArguments', () => {
  it.each([
    ['', {}],
    ['{"a":1}', { a: 1 }],
    ['```json\n{"a": 1}\n```', { a: 1 }],
    ['{a: 1, b: True, c: None}', { a: 1, b: true, c: null }],
    ['{"a": "x", /* note */ "b": 2}', { a: 'x', b: 2 }],
    ["{'text': \"it's fine\"}", { text: "it's fine" }],
  ])('repairs %j', (raw, expected) => {
    expect(parseToolArguments(raw)).toMatchObject({ ok: true, arguments: expected });
  });

  it.each([
    ['{"path": "/tmp/fo', /unterminated string/],
    ['{"a": [1, 2', /unclosed brackets/],
    ['[1, 2]', /must be a JSON object/],
    ['"just a string"', /must be a JSON object/],
    ['{"a": 1]', /mismatched/],
  ])('refuses %j', (raw, reason) => {
    const parsed = parseToolArguments(raw);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.malformed).toEqual({ raw, reason: expect.stringMatching(reason) });
  });
});

describe('tool-call ids across providers', () => {
  it('keeps ids each API accepts and maps the others deterministically', () => {
    expect(toAnthropicToolId('call_abc123')).toBe('call_abc123');
    expect(toOpenAIToolId('toolu_01A09q90qw90lq917835lq9')).toBe('toolu_01A09q90qw90lq917835lq9');
    const foreign = 'functions.read_file:0';
    expect(toAnthropicToolId(foreign)).toMatch(/^toolu_[a-zA-Z0-9]{24}$/);
    expect(toAnthropicToolId(foreign)).toBe(toAnthropicToolId(foreign));
    expect(toAnthropicToolId(foreign)).not.toBe(toAnthropicToolId('functions.read_file:1'));
    const long = `toolu_${'x'.repeat(60)}`;
    expect(toOpenAIToolId(long)).toMatch(/^call_[a-zA-Z0-9]{24}$/);
    expect(toOpenAIToolId(long).length).toBeLessThanOrEqual(40);
  });
});

describe('OpenAI-compatible servers that leave out tool-call ids and indices (Ollama)', () => {
  it.each([[['id']], [['index']], [['id', 'index']]] as const)(
    'without %j, each call is told apart, gets an id, and the conversation goes back valid',
    async (omit) => {
      fake.script(
        reply.toolCalls(
          [
            { name: 'read_file', arguments: { path: 'a.txt' } },
            { name: 'list_dir', arguments: { path: 'src' } },
          ],
          { omitToolCallFields: [...omit] },
        ),
        reply.text('done'),
      );
      const spec = 'openai-compatible/llama3.1';
      const config = configFor(fake);
      const first = await streamMessage({ model: spec, messages: [user('go')], options: { tools: TOOLS } }, { config });
      const calls = toolCallsOf(first);
      expect(calls.map((c) => [c.name, c.arguments])).toEqual([
        ['read_file', { path: 'a.txt' }],
        ['list_dir', { path: 'src' }],
      ]);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
      for (const c of calls) expect(c.id).toMatch(/\S/);
      const results = calls.map((c) => toolResult(c.id, c.name, 'ok'));
      const second = await streamMessage(
        { model: spec, messages: [user('go'), first, ...results], options: { tools: TOOLS } },
        { config },
      );
      expect(second.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(fake.requests.map((r) => r.error)).toEqual([undefined, undefined]);
    },
  );
});
