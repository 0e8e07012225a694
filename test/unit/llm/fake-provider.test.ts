import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { complete } from '../../../src/llm';
import { toolCallsOf, type Message } from '../../../src/contracts/message-model';
import { reply, startFakeProvider, type FakeProvider } from '../../../src/testing/fake-provider';
import { configFor, toolResult, TOOLS, user } from './support';

let fake: FakeProvider;
let anthropic: Anthropic;
let openai: OpenAI;
beforeAll(async () => {
  fake = await startFakeProvider();
  anthropic = new Anthropic({ apiKey: 'k', baseURL: fake.anthropicBaseUrl(), maxRetries: 0 });
  openai = new OpenAI({ apiKey: 'k', baseURL: fake.openaiBaseUrl(), maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const MODEL = 'claude-sonnet-4-6';

describe('fake provider: wire format as the official SDKs parse it', () => {
  it('Anthropic: the SDK message stream helper assembles the same message as the whole response', async () => {
    const step = reply.blocks([
      { type: 'thinking', thinking: 'Plan: read.' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_call', name: 'read_file', arguments: { path: 'a' }, id: 'toolu_fixed' },
    ]);
    fake.script(step, step);
    const params = { model: MODEL, max_tokens: 4096, messages: [{ role: 'user' as const, content: 'hi' }] };
    const whole = await anthropic.messages.create(params);
    const streamed = await anthropic.messages.stream(params).finalMessage();
    expect(streamed.content).toEqual(whole.content.map((b) => (b.type === 'text' ? { ...b, citations: null } : b)));
    expect(streamed.stop_reason).toBe('tool_use');
    expect(whole.content[2]).toEqual({ type: 'tool_use', id: 'toolu_fixed', name: 'read_file', input: { path: 'a' } });
  });

  it('OpenAI: streamed chunks accumulate into the whole completion, with usage when asked', async () => {
    const step = reply.toolCalls([{ name: 'read_file', arguments: { path: 'a' }, id: 'call_fixed' }], {
      text: 'Reading.',
      usage: { input: 5, output: 7, cacheRead: 3 },
    });
    fake.script(step, step);
    const params = { model: 'gpt-4.1', messages: [{ role: 'user' as const, content: 'hi' }] };
    const whole = await openai.chat.completions.create(params);
    const streamed = await openai.chat.completions
      .stream({ ...params, stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(streamed.choices[0].message.tool_calls).toEqual(whole.choices[0].message.tool_calls);
    expect(streamed.choices[0].message.content).toBe('Reading.');
    expect(streamed.choices[0].finish_reason).toBe('tool_calls');
    expect(whole.usage).toMatchObject({
      prompt_tokens: 8,
      completion_tokens: 7,
      prompt_tokens_details: { cached_tokens: 3 },
    });
    expect(streamed.usage).toEqual(whole.usage);
  });
});

describe('fake provider: validation like the real APIs', () => {
  const anthropicCases: [string, Record<string, unknown>, RegExp][] = [
    ['missing max_tokens', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, /max_tokens/],
    [
      'an assistant first',
      { model: MODEL, max_tokens: 10, messages: [{ role: 'assistant', content: 'hi' }] },
      /first message/,
    ],
    [
      'two user turns in a row',
      {
        model: MODEL,
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      /roles must alternate/,
    ],
    [
      'a tool_use without its tool_result',
      {
        model: MODEL,
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'x', input: {} }] },
          { role: 'user', content: 'b' },
        ],
      },
      /`tool_use` ids were found without `tool_result`.*toolu_1/,
    ],
    [
      'a tool_result for an unknown call',
      {
        model: MODEL,
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }] }],
      },
      /unexpected `tool_use_id`/,
    ],
    [
      'a tool id with a dot',
      {
        model: MODEL,
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'fn.x:0', name: 'x', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'fn.x:0', content: 'x' }] },
        ],
      },
      /pattern/,
    ],
    [
      'a thinking budget above max_tokens',
      {
        model: MODEL,
        max_tokens: 2000,
        thinking: { type: 'enabled', budget_tokens: 4000 },
        messages: [{ role: 'user', content: 'a' }],
      },
      /budget_tokens/,
    ],
    [
      'empty text',
      { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      /non-empty/,
    ],
  ];

  it.each(anthropicCases)('Anthropic refuses %s with an API-shaped 400', async (_name, body, message) => {
    const err = await anthropic.messages.create(body as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect((err as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(message) },
    });
    expect(fake.requests[0]).toMatchObject({ status: 400, error: expect.stringMatching(message) });
  });

  const openaiCases: [string, Record<string, unknown>, RegExp][] = [
    ['missing model', { messages: [{ role: 'user', content: 'hi' }] }, /model/],
    [
      'a tool message without a matching call',
      {
        model: 'gpt-4.1',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'tool', tool_call_id: 'call_1', content: 'x' },
        ],
      },
      /must be a response to a preceeding message with 'tool_calls'/,
    ],
    [
      'a call left unanswered',
      {
        model: 'gpt-4.1',
        messages: [
          { role: 'user', content: 'a' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'x', arguments: '{}' } }],
          },
          { role: 'user', content: 'b' },
        ],
      },
      /did not have response messages: call_1/,
    ],
    [
      'a call id over 40 characters',
      {
        model: 'gpt-4.1',
        messages: [
          { role: 'user', content: 'a' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_${'x'.repeat(40)}`, type: 'function', function: { name: 'x', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: `call_${'x'.repeat(40)}`, content: 'x' },
        ],
      },
      /maximum length 40/,
    ],
    [
      'json_object without the word json',
      { model: 'gpt-4.1', response_format: { type: 'json_object' }, messages: [{ role: 'user', content: 'hi' }] },
      /must contain the word 'json'/,
    ],
  ];

  it('OpenAI-format: a tool call issued with reasoning must get its reasoning back, as DeepSeek requires', async () => {
    fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'hmm' },
        { type: 'tool_call', name: 'x', arguments: {}, id: 'call_r1' },
      ]),
    );
    await openai.chat.completions.create({ model: 'deepseek-reasoner', messages: [{ role: 'user', content: 'a' }] });
    const history = [
      { role: 'user' as const, content: 'a' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [{ id: 'call_r1', type: 'function' as const, function: { name: 'x', arguments: '{}' } }],
      },
      { role: 'tool' as const, tool_call_id: 'call_r1', content: 'done' },
    ];
    const err = await openai.chat.completions
      .create({ model: 'deepseek-reasoner', messages: history })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: 'Missing `reasoning_content` field in the assistant message at message index 1',
    });
  });

  it('OpenAI-format: a tool call issued with a thought signature must carry it back, as Gemini requires', async () => {
    fake.script(reply.toolCalls([{ name: 'x', arguments: {}, id: 'call_g1', thoughtSignature: true }]));
    const first = await openai.chat.completions.create({
      model: 'gemini-3-pro',
      messages: [{ role: 'user', content: 'a' }],
    });
    expect(first.choices[0].message.tool_calls?.[0]).toHaveProperty('extra_content.google.thought_signature');
    const err = await openai.chat.completions
      .create({
        model: 'gemini-3-pro',
        messages: [
          { role: 'user', content: 'a' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_g1', type: 'function', function: { name: 'x', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_g1', content: 'done' },
        ],
      })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: expect.stringContaining('missing a thought_signature'),
    });
  });

  it.each(openaiCases)('OpenAI refuses %s with an API-shaped 400', async (_name, body, message) => {
    const err = await openai.chat.completions.create(body as never).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      message: expect.stringMatching(message),
    });
  });
});

describe('fake provider: scripting', () => {
  it('fails loudly when the script runs out, and records it', async () => {
    const err = await complete({ model: 'openai/gpt-4.1', messages: [user('hi')] }, { config: configFor(fake) }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ type: 'LlmServerError', message: expect.stringContaining('script exhausted') });
    expect(fake.requests[0]).toMatchObject({
      status: 500,
      error: expect.stringContaining('script exhausted, no step left for request #1'),
    });
  });

  it('a responder function carries a 200-turn tool conversation, every request valid', async () => {
    fake.respond((request) => {
      const turn = (request.body.messages as unknown[]).length;
      return turn >= 400
        ? reply.text('done')
        : reply.toolCalls([{ name: 'read_file', arguments: { path: `f${turn}.txt` } }]);
    });
    for (const spec of ['anthropic/claude-sonnet-4-6', 'openai/gpt-4.1']) {
      const messages: Message[] = [user('read everything')];
      for (let i = 0; i < 200; i++) {
        const message = await complete(
          { model: spec, messages, options: { tools: TOOLS } },
          { config: configFor(fake) },
        );
        messages.push(message);
        for (const call of toolCallsOf(message)) messages.push(toolResult(call.id, call.name, `contents ${i}`));
      }
      expect(messages).toHaveLength(401);
    }
    expect(fake.requests).toHaveLength(400);
    expect(fake.requests.every((r) => r.status === 200)).toBe(true);
  });
});
