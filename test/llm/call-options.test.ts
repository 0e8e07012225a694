import { complete, healthCheck } from '../../src/llm';
import type { CallOptions, Message } from '../../src/contracts/message-model';
import { reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { configFor, toolResult, TOOLS, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

async function bodyFor(
  spec: string,
  options: CallOptions,
  messages: Message[] = [user('hi')],
  systemPrompt?: string,
): Promise<Record<string, unknown>> {
  fake.script(reply.text('ok'));
  await complete({ model: spec, systemPrompt, messages, options }, { config: configFor(fake) });
  const request = fake.requests[fake.requests.length - 1];
  expect(request.status).toBe(200);
  return request.body;
}

const CLAUDE = 'anthropic/claude-sonnet-4-6';
const GPT = 'openai/gpt-5-mini';
const COMPAT = 'openai-compatible/llama3.1';

describe('call options on the wire', () => {
  it.each([
    ['auto', { type: 'auto' }, 'auto'],
    ['none', { type: 'none' }, 'none'],
    ['required', { type: 'any' }, 'required'],
    [
      { type: 'tool', name: 'list_dir' },
      { type: 'tool', name: 'list_dir' },
      { type: 'function', function: { name: 'list_dir' } },
    ],
  ] as const)('tool choice %j', async (choice, anthropicWire, openaiWire) => {
    expect((await bodyFor(CLAUDE, { tools: TOOLS, toolChoice: choice })).tool_choice).toEqual(anthropicWire);
    expect((await bodyFor(GPT, { tools: TOOLS, toolChoice: choice })).tool_choice).toEqual(openaiWire);
  });

  it('sampling, limits and stop sequences', async () => {
    const options: CallOptions = { temperature: 0.2, topP: 0.9, maxTokens: 321, stopSequences: ['END'] };
    expect(await bodyFor(CLAUDE, options)).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 321,
      stop_sequences: ['END'],
    });
    // OpenAI proper takes max_completion_tokens; compatible servers take max_tokens.
    const gpt = await bodyFor('openai/gpt-4.1', options);
    expect(gpt).toMatchObject({ temperature: 0.2, top_p: 0.9, max_completion_tokens: 321, stop: ['END'] });
    expect(gpt).not.toHaveProperty('max_tokens');
    // Reasoning models refuse sampling knobs and stop sequences (a run asking for them is refused
    // before it starts), so a direct call leaves them out rather than failing.
    const reasoning = await bodyFor(GPT, options);
    expect(reasoning).not.toHaveProperty('temperature');
    expect(reasoning).not.toHaveProperty('top_p');
    expect(reasoning).not.toHaveProperty('stop');
    expect(await bodyFor(COMPAT, options)).toMatchObject({ max_tokens: 321 });
  });

  it('a thinking budget: Anthropic thinking with room for the answer and no sampling knobs; OpenAI reasoning effort', async () => {
    const claude = await bodyFor(CLAUDE, { thinkingBudget: 3000, maxTokens: 1000, temperature: 0.5 });
    expect(claude).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 3000 }, max_tokens: 4000 });
    expect(claude).not.toHaveProperty('temperature');
    expect((await bodyFor(CLAUDE, { thinkingBudget: 10, maxTokens: 100 })).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 1024,
    });
    // A forced tool choice cannot go with thinking: the explicit choice wins.
    expect(await bodyFor(CLAUDE, { thinkingBudget: 3000, tools: TOOLS, toolChoice: 'required' })).not.toHaveProperty(
      'thinking',
    );
    // Models that decide their own thinking depth get adaptive thinking, with the same room.
    expect(await bodyFor('anthropic/claude-opus-4-6', { thinkingBudget: 3000, maxTokens: 1000 })).toMatchObject({
      thinking: { type: 'adaptive' },
      max_tokens: 4000,
    });
    expect((await bodyFor(GPT, { thinkingBudget: 3000 })).reasoning_effort).toBe('medium');
    // Compatible servers get the same reasoning effort (vLLM, Ollama and Gemini's endpoint take it).
    expect((await bodyFor(COMPAT, { thinkingBudget: 9000 })).reasoning_effort).toBe('high');
    // The budget comes on top of the answer's room, within the model's output limit.
    expect((await bodyFor(CLAUDE, { thinkingBudget: 60_000 })).max_tokens).toBe(64_000);
    // A model whose entry says it does not think is refused a budget rather than sent one it would ignore.
    await expect(bodyFor('openai/gpt-4.1', { thinkingBudget: 3000 })).rejects.toThrow('openai/gpt-4.1 does not think');
  });

  it('response formats: native on OpenAI, an instruction on Anthropic', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const gpt = await bodyFor(GPT, { responseFormat: { type: 'json_schema', name: 'answer', schema, strict: true } });
    expect(gpt.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } });
    expect((await bodyFor(GPT, { responseFormat: { type: 'json' } })).response_format).toEqual({ type: 'json_object' });
    const claude = await bodyFor(
      CLAUDE,
      { responseFormat: { type: 'json_schema', name: 'answer', schema } },
      [user('hi')],
      'Be exact.',
    );
    const system = (claude.system as { text: string }[])[0].text;
    expect(system).toContain('Be exact.');
    expect(system).toContain('JSON Schema');
    expect(system).toContain(JSON.stringify(schema));
  });

  it('images in user messages and tool results reach both APIs in their own shape', async () => {
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' };
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'What is this?' }, image], timestamp: 1 },
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'call_1', name: 'read_file', arguments: { path: 'x.png' } }],
        provider: 'openai',
        model: 'gpt-5-mini',
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        stopReason: 'tool_use',
        timestamp: 2,
      },
      { ...toolResult('call_1', 'read_file', 'the file:'), content: [{ type: 'text', text: 'the file:' }, image] },
    ];
    const claude = await bodyFor(CLAUDE, { tools: TOOLS }, messages);
    const claudeMessages = claude.messages as { content: { type: string; content?: { type: string }[] }[] }[];
    expect(claudeMessages[0].content.map((b) => b.type)).toEqual(['text', 'image']);
    expect(claudeMessages[2].content[0].content?.map((b) => b.type)).toEqual(['text', 'image']);
    const gpt = await bodyFor(GPT, { tools: TOOLS }, messages);
    const gptMessages = gpt.messages as { role: string; content: unknown }[];
    expect(gptMessages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(gptMessages[3].content)).toContain('data:image/png;base64,iVBORw0KGgo=');
  });
});

describe('healthCheck', () => {
  it('reports a model that answers, and the classified failure of one that does not, without throwing', async () => {
    fake.script(reply.text('ok'), reply.error(401));
    await expect(healthCheck(CLAUDE, { config: configFor(fake) })).resolves.toMatchObject({
      ok: true,
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
    });
    await expect(healthCheck(GPT, { config: configFor(fake) })).resolves.toMatchObject({
      ok: false,
      error: { type: 'LlmAuthentication', retryable: false },
    });
    await expect(healthCheck('nonsense', { config: configFor(fake) })).resolves.toMatchObject({
      ok: false,
      error: { type: 'LlmConfigError' },
    });
    expect(fake.requests).toHaveLength(2);
  });
});

describe('stop reasons', () => {
  it.each([
    ['stop', CLAUDE, 'stop', 'end_turn'],
    ['stop_sequence', CLAUDE, 'stop_sequence', 'stop_sequence'],
    ['refusal', CLAUDE, 'refusal', 'refusal'],
    ['length', CLAUDE, 'length', 'max_tokens'],
    ['stop', GPT, 'stop', 'stop'],
    ['content_filter', GPT, 'content_filter', 'content_filter'],
    ['length', GPT, 'length', 'length'],
  ] as const)('scripted %s on %s is normalized to %s, keeping the raw %s', async (scripted, spec, normalized, raw) => {
    fake.script(reply.text('words', { stopReason: scripted }));
    const message = await complete({ model: spec, messages: [user('hi')] }, { config: configFor(fake) });
    expect([message.stopReason, message.rawStopReason]).toEqual([normalized, raw]);
  });
});
