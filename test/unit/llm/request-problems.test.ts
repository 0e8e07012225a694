import { complete, requestProblems } from '../../../src/llm';
import { emptyCost, emptyUsage, type AssistantMessage, type Message } from '../../../src/contracts/message-model';
import { startFakeProvider } from '../../../src/testing/fake-provider';
import { configFor, toolResult, TOOLS, user } from './support';

const assistantCalling = (...ids: string[]): AssistantMessage => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool_call' as const, id, name: 'read_file', arguments: {} })),
  provider: 'anthropic',
  model: 'claude-sonnet-4-6',
  usage: emptyUsage(),
  cost: emptyCost(),
  stopReason: 'tool_use',
  timestamp: 1,
});

const problems = (messages: Message[], options = {}): string[] =>
  requestProblems({ model: 'anthropic/claude-sonnet-4-6', messages, options });

describe('requestProblems', () => {
  it('accepts a conversation where every call is answered right after it', () => {
    expect(
      problems(
        [
          user('a'),
          assistantCalling('t1', 't2'),
          toolResult('t2', 'read_file', 'x'),
          toolResult('t1', 'read_file', 'y'),
          user('b'),
        ],
        { tools: TOOLS },
      ),
    ).toEqual([]);
  });

  it.each([
    ['no messages', [], {}, /at least one message/],
    [
      'an unanswered call',
      [user('a'), assistantCalling('t1', 't2'), toolResult('t1', 'read_file', 'x'), user('b')],
      {},
      /messages\[1\]: tool calls t2 have no result before messages\[3\]/,
    ],
    [
      'a call left open at the end',
      [user('a'), assistantCalling('t1')],
      {},
      /tool calls t1 have no result \(every call needs one/,
    ],
    [
      'a result for an unknown call',
      [user('a'), toolResult('t9', 'read_file', 'x')],
      {},
      /messages\[1\]: tool result for "t9"/,
    ],
    [
      'a user message between a call and its result',
      [user('a'), assistantCalling('t1'), user('steer'), toolResult('t1', 'read_file', 'x')],
      {},
      /tool calls t1 have no result before messages\[2\]/,
    ],
    ['a bad tool name', [user('a')], { tools: [{ ...TOOLS[0], name: 'read file' }] }, /name "read file" must match/],
    ['a duplicate tool name', [user('a')], { tools: [TOOLS[0], TOOLS[0]] }, /declared twice/],
    [
      'a tool choice naming no tool',
      [user('a')],
      { tools: TOOLS, toolChoice: { type: 'tool', name: 'nope' } },
      /tool "nope" is not among/,
    ],
    [
      'a required tool choice without tools',
      [user('a')],
      { toolChoice: 'required' },
      /"required" needs at least one tool/,
    ],
    ['a fractional max tokens', [user('a')], { maxTokens: 1.5 }, /maxTokens: expected a positive integer/],
  ] as const)('reports %s', (_name, messages, options, message) => {
    const found = problems([...messages], options);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(message);
  });

  it('complete refuses such a request as a non-retryable bad request without calling the provider', async () => {
    const fake = await startFakeProvider();
    try {
      await expect(
        complete(
          { model: 'openai/gpt-4.1', messages: [user('a'), assistantCalling('t1')] },
          { config: configFor(fake) },
        ),
      ).rejects.toMatchObject({
        type: 'LlmBadRequest',
        nonRetryable: true,
      });
      expect(fake.requests).toHaveLength(0);
    } finally {
      await fake.close();
    }
  });
});
