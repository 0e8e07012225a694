import { complete, loadLlmConfig, streamMessage } from '../../../src/llm';
import { computeCost, lookupModel } from '../../../src/policy/model-registry';
import { reply, startFakeProvider, fakeProviderEnv, type FakeProvider } from '../../../src/testing/fake-provider';
import { configFor, TOOLS, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const calls = { complete, stream: streamMessage };

describe('usage and cost per message', () => {
  it.each(Object.keys(calls))(
    'a cached Anthropic call counts cache reads and writes apart and prices each (%s)',
    async (mode) => {
      fake.script(reply.text('ok', { usage: { input: 100, output: 50, cacheRead: 2000, cacheWrite: 500 } }));
      const message = await calls[mode as keyof typeof calls](
        {
          model: 'anthropic/claude-sonnet-4-6',
          systemPrompt: 'Long stable instructions.',
          messages: [user('hi')],
          options: { tools: TOOLS },
        },
        { config: configFor(fake) },
      );
      expect(message.usage).toEqual({
        inputTokens: 100,
        outputTokens: 50,
        cacheReadTokens: 2000,
        cacheWriteTokens: 500,
      });
      // claude-sonnet-4-6: $3 input, $15 output, $0.30 cache read, $3.75 cache write per million.
      expect(message.cost.input).toBeCloseTo(0.0003, 12);
      expect(message.cost.output).toBeCloseTo(0.00075, 12);
      expect(message.cost.cacheRead).toBeCloseTo(0.0006, 12);
      expect(message.cost.cacheWrite).toBeCloseTo(0.001875, 12);
      expect(message.cost.total).toBeCloseTo(0.003525, 12);
    },
  );

  it.each(Object.keys(calls))(
    'an OpenAI call with cached tokens takes them out of the input count (%s)',
    async (mode) => {
      fake.script(reply.text('ok', { usage: { input: 300, output: 40, cacheRead: 1200 } }));
      const message = await calls[mode as keyof typeof calls](
        { model: 'openai/gpt-4.1', messages: [user('hi')] },
        { config: configFor(fake) },
      );
      expect(message.usage).toEqual({ inputTokens: 300, outputTokens: 40, cacheReadTokens: 1200, cacheWriteTokens: 0 });
      // gpt-4.1: $2 input, $0.50 cached input, $8 output per million.
      expect(message.cost.input).toBeCloseTo(0.0006, 12);
      expect(message.cost.cacheRead).toBeCloseTo(0.0006, 12);
      expect(message.cost.output).toBeCloseTo(0.00032, 12);
      expect(message.cost.total).toBeCloseTo(0.00152, 12);
    },
  );

  it('prices a model the registry lacks from the config file entry', async () => {
    fake.script(reply.text('ok', { usage: { input: 1_000_000, output: 500_000 } }));
    const config = loadLlmConfig({
      file: null,
      env: fakeProviderEnv(fake),
      inline: {
        models: [
          {
            provider: 'openai-compatible',
            model: 'qwen3-32b',
            contextWindow: 32_768,
            maxOutputTokens: 8192,
            prices: { input: 0.2, output: 0.6 },
          },
        ],
      },
    });
    const message = await complete({ model: 'openai-compatible/qwen3-32b', messages: [user('hi')] }, { config });
    expect(message.cost.total).toBeCloseTo(0.2 + 0.3, 10);
    fake.script(reply.text('ok', { usage: { input: 10, output: 10 } }));
    const unknown = await complete({ model: 'openai-compatible/other', messages: [user('hi')] }, { config });
    expect(unknown.cost.total).toBe(0);
  });
});

describe('prompt-cache breakpoints', () => {
  type Marked = { cache_control?: unknown; type?: string };
  it('marks the end of system prompt and the last block of the conversation, and nothing when caching is off', async () => {
    fake.script(reply.text('a'), reply.text('b'), reply.text('c'));
    const config = configFor(fake);
    const request = {
      model: 'anthropic/claude-sonnet-4-6',
      systemPrompt: 'S',
      messages: [user('one'), user('two')],
      options: { tools: TOOLS },
    };
    await complete(request, { config });
    await complete({ ...request, systemPrompt: undefined }, { config });
    await complete({ ...request, options: { ...request.options, cache: false } }, { config });
    const [withSystem, toolsOnly, off] = fake.requests.map(
      (r) => r.body as { system?: Marked[]; tools: Marked[]; messages: { content: Marked[] }[] },
    );
    const marks = (b: typeof withSystem) => ({
      system: b.system?.map((x) => !!x.cache_control),
      tools: b.tools.map((x) => !!x.cache_control),
      messages: b.messages.map((m) => m.content.map((x) => !!x.cache_control)),
    });
    // The two user turns merge into one user message (the API wants alternation).
    expect(marks(withSystem)).toEqual({ system: [true], tools: [false, false], messages: [[false, true]] });
    expect(marks(toolsOnly)).toEqual({ system: undefined, tools: [false, true], messages: [[false, true]] });
    expect(marks(off)).toEqual({ system: [false], tools: [false, false], messages: [[false, false]] });
  });

  it('in a longer conversation also marks the previous user turn, never a thinking block, at most 4 in all', async () => {
    fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'hm' },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'a' } },
      ]),
      reply.text('done'),
    );
    const config = configFor(fake);
    const options = { tools: TOOLS, thinkingBudget: 1024, maxTokens: 1000 };
    const first = await complete(
      { model: 'anthropic/claude-sonnet-4-6', systemPrompt: 'S', messages: [user('go')], options },
      { config },
    );
    const call = first.content[1] as { id: string; name: string };
    await complete(
      {
        model: 'anthropic/claude-sonnet-4-6',
        systemPrompt: 'S',
        messages: [
          user('go'),
          first,
          {
            role: 'tool_result',
            toolCallId: call.id,
            toolName: call.name,
            content: [{ type: 'text', text: 'x' }],
            isError: false,
            timestamp: 3,
          },
        ],
        options,
      },
      { config },
    );
    const body = fake.requests[1].body as {
      messages: { role: string; content: { type: string; cache_control?: unknown }[] }[];
    };
    expect(body.messages.map((m) => m.content.map((b) => `${b.type}${b.cache_control ? '*' : ''}`))).toEqual([
      ['text*'],
      ['thinking', 'tool_use'],
      ['tool_result*'],
    ]);
    expect(fake.requests[1].status).toBe(200);
  });
});

describe('model registry', () => {
  it('finds dated snapshots under their alias and falls back to declared-unknown defaults', () => {
    expect(lookupModel({ provider: 'anthropic', model: 'claude-haiku-4-5-20251001' })).toMatchObject({
      known: true,
      prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    });
    expect(lookupModel({ provider: 'openai', model: 'gpt-4.1-2025-04-14' })).toMatchObject({
      known: true,
      contextWindow: 1_047_576,
    });
    expect(lookupModel({ provider: 'openai-compatible', model: 'gpt-4.1' })).toMatchObject({
      known: false,
      prices: { input: 0, output: 0 },
    });
    expect(
      computeCost(
        { inputTokens: 2_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        lookupModel({ provider: 'openai', model: 'gpt-5' }).prices,
      ).total,
    ).toBeCloseTo(2.5, 10);
  });

  it('prices every MiniMax model, the highspeed variants at twice the input and output rate', () => {
    for (const version of ['M2.7', 'M2.5', 'M2.1']) {
      const base = lookupModel({ provider: 'minimax', model: `MiniMax-${version}` });
      const fast = lookupModel({ provider: 'minimax', model: `MiniMax-${version}-highspeed` });
      expect(base.known && fast.known).toBe(true);
      expect(base.prices.input).toBeGreaterThan(0);
      expect(fast.prices).toMatchObject({ input: base.prices.input * 2, output: base.prices.output * 2 });
    }
  });
});

describe('model capabilities', () => {
  it('refuses tools or thinking to a model whose entry says it has neither, and sends nothing', async () => {
    const config = loadLlmConfig({
      file: null,
      env: fakeProviderEnv(fake),
      inline: {
        models: [
          {
            provider: 'openai-compatible',
            model: 'text-only',
            contextWindow: 8192,
            maxOutputTokens: 1024,
            capabilities: { tools: false, thinking: false },
          },
        ],
      },
    });
    const request = { model: 'openai-compatible/text-only', messages: [user('hi')], options: { tools: TOOLS } };
    await expect(complete(request, { config })).rejects.toThrow(
      /openai-compatible\/text-only does not take tools .*capabilities\.tools is false/,
    );
    await expect(complete({ ...request, options: { thinkingBudget: 2048 } }, { config })).rejects.toThrow(
      /openai-compatible\/text-only does not think .*capabilities\.thinking is false/,
    );
    expect(fake.requests).toHaveLength(0);
    fake.script(reply.text('ok'));
    await expect(complete({ ...request, options: {} }, { config })).resolves.toMatchObject({ role: 'assistant' });
  });
});
