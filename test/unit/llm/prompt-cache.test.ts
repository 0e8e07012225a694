import { complete, streamMessage } from '../../../src/llm';
import { emptyCost, emptyUsage, type Message } from '../../../src/contracts/message-model';
import { reply, startFakeProvider, type FakeProvider } from '../../../src/testing/fake-provider';
import { configFor, TOOLS, toolResult, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());

/** A tool turn whose result is `chars` long: an assistant call and its result. */
function toolTurn(id: string, chars: number, fill = 'x'): Message[] {
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool_call', id, name: 'read_file', arguments: { path: `${id}.md` } }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      stopReason: 'tool_use',
      usage: emptyUsage(),
      cost: emptyCost(),
      timestamp: 1,
    },
    toolResult(id, 'read_file', fill.repeat(chars)),
  ];
}

const calls = { complete, stream: streamMessage };
type Mode = keyof typeof calls;

const call = (model: string, messages: Message[], mode: Mode = 'complete') => {
  fake.script(reply.text('ok'));
  return calls[mode](
    { model, systemPrompt: 'Stable instructions.', messages, options: { tools: TOOLS } },
    { config: configFor(fake) },
  );
};

describe('the fake provider bills prompt caching like Anthropic', () => {
  const model = 'anthropic/claude-sonnet-4-6';

  it.each(Object.keys(calls) as Mode[])(
    'writes the prompt up to its last breakpoint, then reads it back when the next turn extends it (%s)',
    async (mode) => {
      const first = [user(`Read the files (${mode}).`), ...toolTurn('a1', 20_000)];
      const one = await call(model, first, mode);
      expect(one.usage.cacheReadTokens).toBe(0);
      expect(one.usage.cacheWriteTokens).toBeGreaterThan(5_000);

      const two = await call(model, [...first, ...toolTurn('a2', 20_000)], mode);
      const total1 = one.usage.inputTokens + one.usage.cacheWriteTokens;
      expect(two.usage.cacheReadTokens).toBe(total1 - one.usage.inputTokens);
      expect(two.usage.cacheWriteTokens).toBeGreaterThan(5_000);
      expect(two.usage.cacheWriteTokens).toBeLessThan(5_200);
    },
  );

  it('finds a prefix written before at a block shortly before a breakpoint', async () => {
    const first = [user('Read three files.'), ...toolTurn('g1', 20_000)];
    const one = await call(model, first);
    // Two turns later neither breakpoint ends where the first request's did; the lookback finds it.
    const three = await call(model, [...first, ...toolTurn('g2', 400), ...toolTurn('g3', 400)]);
    expect(three.usage.cacheReadTokens).toBe(one.usage.cacheWriteTokens);
  });

  it('reports no hit for a prefix it never saw: a changed early message rewrites everything after it', async () => {
    const first = [user('Summarise these.'), ...toolTurn('b1', 20_000), ...toolTurn('b2', 20_000)];
    await call(model, first);
    const changed = [user('Summarise these.'), ...toolTurn('b1', 20_000, 'y'), ...toolTurn('b2', 20_000)];
    const again = await call(model, changed);
    expect(again.usage.cacheReadTokens).toBe(0);
    expect(again.usage.cacheWriteTokens).toBeGreaterThan(10_000);
  });

  it('keeps prompts of different models apart, and leaves short prompts uncached', async () => {
    const messages = [user('Look.'), ...toolTurn('c1', 20_000)];
    await call(model, messages);
    const other = await call('anthropic/claude-opus-4-6', messages);
    expect(other.usage.cacheReadTokens).toBe(0);
    const short = await call(model, [user('Hello there.')]);
    expect(short.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});

describe('the fake provider bills prompt caching like OpenAI', () => {
  const model = 'openai/gpt-4.1';

  it.each(Object.keys(calls) as Mode[])(
    'caches prompts of 1,024 tokens or more in 128-token steps and reads the shared prefix back (%s)',
    async (mode) => {
      const first = [user(`Read the files (${mode}).`), ...toolTurn('d1', 20_000)];
      const one = await call(model, first, mode);
      expect(one.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });

      const two = await call(model, [...first, ...toolTurn('d2', 20_000)], mode);
      expect(two.usage.cacheReadTokens % 128).toBe(0);
      expect(two.usage.cacheReadTokens).toBeGreaterThan(one.usage.inputTokens - 128);
      expect(two.usage.cacheReadTokens).toBeLessThanOrEqual(one.usage.inputTokens);
      expect(two.usage.cacheWriteTokens).toBe(0);
    },
  );

  it('caches nothing below 1,024 tokens', async () => {
    await call(model, [user('Short question.')]);
    const again = await call(model, [user('Short question.'), ...toolTurn('e1', 100)]);
    expect(again.usage.cacheReadTokens).toBe(0);
  });
});

describe('the fake provider without prompt caching', () => {
  it('bills every prompt token as uncached input', async () => {
    const plain = await startFakeProvider({ promptCache: false });
    try {
      const messages = [user('Read.'), ...toolTurn('f1', 20_000)];
      for (let i = 0; i < 2; i++) plain.script(reply.text('ok'));
      const config = configFor(plain);
      await complete({ model: 'anthropic/claude-sonnet-4-6', messages }, { config });
      const again = await complete({ model: 'anthropic/claude-sonnet-4-6', messages }, { config });
      expect(again.usage).toMatchObject({ cacheReadTokens: 0, cacheWriteTokens: 0 });
      expect(again.usage.inputTokens).toBeGreaterThan(5_000);
    } finally {
      await plain.close();
    }
  });
});
