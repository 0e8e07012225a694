import { complete, streamMessage } from '../../../src/llm';
import { toolCallsOf, type AssistantMessage, type Message } from '../../../src/contracts/message-model';
import { reply, startFakeProvider, type FakeProvider, type RecordedRequest } from '../../../src/testing/fake-provider';
import { configFor, toolResult, TOOLS, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const CLAUDE = 'anthropic/claude-sonnet-4-6';
const COMPAT = 'openai-compatible/kimi-k2';
const MINIMAX = 'minimax/MiniMax-M2.5';

type Body = {
  messages: { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  thinking?: unknown;
};
const bodyOf = (r: RecordedRequest): Body => r.body as unknown as Body;
const blocksOf = (r: RecordedRequest): { type: string; signature?: string; id?: string; tool_use_id?: string }[] =>
  bodyOf(r).messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string }[]) : []));

describe('a conversation handed between providers', () => {
  for (const mode of ['complete', 'stream'] as const) {
    it(`keeps Anthropic thinking and tool calls valid for both APIs at every step (${mode})`, async () => {
      const call = mode === 'complete' ? complete : streamMessage;
      const config = configFor(fake);
      const options = { tools: TOOLS, thinkingBudget: 2048, maxTokens: 1024 };
      const messages: Message[] = [user('What is in README.md and src?')];
      const step = async (spec: string): Promise<AssistantMessage> => {
        const message = await call({ model: spec, systemPrompt: 'Be brief.', messages, options }, { config });
        messages.push(message);
        for (const tc of toolCallsOf(message)) messages.push(toolResult(tc.id, tc.name, `result of ${tc.name}`));
        return message;
      };

      fake.script(
        reply.blocks([
          { type: 'thinking', thinking: 'I need the README first.' },
          { type: 'text', text: 'Reading the README.' },
          { type: 'tool_call', name: 'read_file', arguments: { path: 'README.md' } },
        ]),
        // A compatible server with reasoning output and its own id style (not valid for Anthropic).
        reply.blocks([
          { type: 'thinking', thinking: 'Now the folder.' },
          { type: 'tool_call', id: 'functions.list_dir:0', name: 'list_dir', arguments: { path: 'src' } },
        ]),
        reply.blocks([
          { type: 'thinking', thinking: 'Both read; summarise.' },
          { type: 'text', text: 'A README and two folders.' },
        ]),
        reply.text('Nothing else.'),
        reply.text('Agreed.'),
      );

      const claudeTurn = await step(CLAUDE);
      expect(claudeTurn.content[0]).toMatchObject({
        type: 'thinking',
        thinking: 'I need the README first.',
        signature: expect.stringMatching(/^sig_/),
      });
      const compatTurn = await step(COMPAT);
      expect(compatTurn.content[0]).toMatchObject({ type: 'thinking', thinking: 'Now the folder.' });
      expect(compatTurn.content[0]).not.toHaveProperty('signature');
      await step(CLAUDE);
      messages.push(user('Anything else?'));
      await step(CLAUDE);
      messages.push(user('And you, MiniMax?'));
      await step(MINIMAX);

      expect(fake.requests.map((r) => [r.path, r.status, r.error])).toEqual([
        ['/v1/messages', 200, undefined],
        ['/compat/v1/chat/completions', 200, undefined],
        ['/v1/messages', 200, undefined],
        ['/v1/messages', 200, undefined],
        ['/minimax/v1/messages', 200, undefined],
      ]);
      const [first, toCompat, back, later, toMinimax] = fake.requests;

      expect(bodyOf(first).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      // The OpenAI-format request carries no reasoning and answers every call with its mapped id.
      const compatMessages = bodyOf(toCompat).messages;
      const callIds = compatMessages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
      expect(callIds).toHaveLength(1);
      expect(compatMessages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(callIds);
      expect(JSON.stringify(compatMessages)).not.toContain('I need the README first.');

      // Back on Anthropic: Claude's own signed thinking returns verbatim, the other model's
      // reasoning does not, and the foreign tool id is mapped to Anthropic's pattern.
      const backBlocks = blocksOf(back);
      expect(backBlocks.filter((b) => b.type === 'thinking').map((b) => b.signature)).toEqual([
        (claudeTurn.content[0] as { signature: string }).signature,
      ]);
      expect(JSON.stringify(bodyOf(back).messages)).not.toContain('Now the folder.');
      const ids = backBlocks.filter((b) => b.type === 'tool_use').map((b) => b.id ?? '');
      expect(ids).toHaveLength(2);
      expect(ids.every((id) => /^[a-zA-Z0-9_-]+$/.test(id))).toBe(true);
      expect(backBlocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id)).toEqual(ids);
      // The tail turn came from another model and has no signed thinking, so thinking pauses...
      expect(bodyOf(back).thinking).toBeUndefined();
      // ...and resumes once the conversation moved past that tool loop.
      expect(bodyOf(later).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
      // MiniMax gets no Anthropic signatures (they would not verify there).
      expect(blocksOf(toMinimax).some((b) => b.type === 'thinking')).toBe(false);
      expect(fake.pending()).toBe(0);
    });
  }

  it('redacted thinking goes back to Anthropic verbatim and keeps thinking on in the tool loop', async () => {
    fake.script(
      reply.blocks([
        { type: 'redactedThinking', data: 'EqQBCgIYAhIM-opaque' },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'a' } },
      ]),
      reply.text('done'),
    );
    const config = configFor(fake);
    const options = { tools: TOOLS, thinkingBudget: 2048, maxTokens: 1024 };
    const turn = await streamMessage({ model: CLAUDE, messages: [user('go')], options }, { config });
    expect(turn.content[0]).toEqual({ type: 'thinking', thinking: 'EqQBCgIYAhIM-opaque', redacted: true });
    const tc = toolCallsOf(turn)[0];
    await complete(
      { model: CLAUDE, messages: [user('go'), turn, toolResult(tc.id, tc.name, 'x')], options },
      { config },
    );
    const second = fake.requests[1];
    expect(second.status).toBe(200);
    expect(bodyOf(second).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect((bodyOf(second).messages[1].content as unknown[])[0]).toEqual({
      type: 'redacted_thinking',
      data: 'EqQBCgIYAhIM-opaque',
    });
  });

  it('reasoning goes back to the compatible model that wrote it (DeepSeek thinking-mode rule), not elsewhere', async () => {
    fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'Need the file.' },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'a' } },
      ]),
      reply.text('same model'),
      reply.text('other model'),
    );
    const config = configFor(fake);
    const spec = 'openai-compatible/deepseek-reasoner';
    const turn = await complete({ model: spec, messages: [user('go')], options: { tools: TOOLS } }, { config });
    const tc = toolCallsOf(turn)[0];
    const messages: Message[] = [user('go'), turn, toolResult(tc.id, tc.name, 'x')];
    await streamMessage({ model: spec, messages, options: { tools: TOOLS } }, { config });
    await complete({ model: 'openai/gpt-4.1', messages, options: { tools: TOOLS } }, { config });
    const [, same, other] = fake.requests;
    expect([same.status, other.status]).toEqual([200, 200]);
    expect(bodyOf(same).messages[1]).toMatchObject({ role: 'assistant', reasoning_content: 'Need the file.' });
    expect(bodyOf(other).messages[1]).not.toHaveProperty('reasoning_content');
  });

  it.each(['complete', 'stream'] as const)(
    'Gemini-style thought signatures on tool calls return with them to the same model only (%s)',
    async (mode) => {
      const call = mode === 'complete' ? complete : streamMessage;
      fake.script(
        reply.toolCalls([{ name: 'read_file', arguments: { path: 'a' }, thoughtSignature: true }]),
        reply.text('same model'),
        reply.text('other model'),
      );
      const config = configFor(fake);
      const spec = 'openai-compatible/gemini-3-pro-preview';
      const turn = await call({ model: spec, messages: [user('go')], options: { tools: TOOLS } }, { config });
      const tc = toolCallsOf(turn)[0];
      expect(tc.providerExtras).toEqual({
        extra_content: { google: { thought_signature: expect.stringMatching(/^sig_/) } },
      });
      const messages: Message[] = [user('go'), turn, toolResult(tc.id, tc.name, 'x')];
      await call({ model: spec, messages, options: { tools: TOOLS } }, { config });
      await call({ model: 'openai/gpt-4.1', messages, options: { tools: TOOLS } }, { config });
      const [, same, other] = fake.requests;
      expect([same.status, other.status]).toEqual([200, 200]);
      expect(JSON.stringify(bodyOf(same).messages[1])).toContain('thought_signature');
      expect(JSON.stringify(bodyOf(other).messages[1])).not.toContain('thought_signature');
    },
  );

  it('MiniMax thinking returns to the same MiniMax model only', async () => {
    fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'M2 reasoning' },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'a' } },
      ]),
      reply.text('same model'),
      reply.text('other model'),
    );
    const config = configFor(fake);
    const options = { tools: TOOLS };
    const turn = await complete({ model: 'minimax/MiniMax-M2', messages: [user('go')], options }, { config });
    const tc = toolCallsOf(turn)[0];
    const messages: Message[] = [user('go'), turn, toolResult(tc.id, tc.name, 'x')];
    await complete({ model: 'minimax/MiniMax-M2', messages, options }, { config });
    await complete({ model: 'minimax/MiniMax-M2.5', messages, options }, { config });
    const [, same, other] = fake.requests;
    expect([same.status, other.status]).toEqual([200, 200]);
    expect(blocksOf(same).filter((b) => b.type === 'thinking')).toHaveLength(1);
    expect(blocksOf(other).filter((b) => b.type === 'thinking')).toHaveLength(0);
  });

  it('the fake refuses a signature handed to another provider, so the checks above have teeth', async () => {
    fake.script(
      reply.blocks([
        { type: 'thinking', thinking: 'secret plan' },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'a' } },
      ]),
    );
    const config = configFor(fake);
    const claudeTurn = await complete(
      { model: CLAUDE, messages: [user('go')], options: { tools: TOOLS, thinkingBudget: 2048, maxTokens: 1024 } },
      { config },
    );
    // Pretend MiniMax wrote Claude's turn: its signature is then sent to the MiniMax endpoint.
    const forged: AssistantMessage = { ...claudeTurn, provider: 'minimax', model: 'MiniMax-M2.5' };
    const tc = toolCallsOf(claudeTurn)[0];
    await expect(
      complete(
        { model: MINIMAX, messages: [user('go'), forged, toolResult(tc.id, tc.name, 'x')], options: { tools: TOOLS } },
        { config },
      ),
    ).rejects.toMatchObject({ type: 'LlmBadRequest', message: expect.stringContaining('Invalid `signature`') });
    // A call without its result is caught before any request (the fake-provider tests show the
    // APIs' own refusal of the same conversation).
    for (const spec of [CLAUDE, COMPAT]) {
      await expect(
        complete(
          { model: spec, messages: [user('go'), claudeTurn, user('next')], options: { tools: TOOLS } },
          { config },
        ),
      ).rejects.toMatchObject({
        type: 'LlmBadRequest',
        message: expect.stringContaining(`tool calls ${tc.id} have no result`),
      });
    }
    expect(fake.requests.slice(1).map((r) => r.status)).toEqual([400]);
  });
});
