import { planRecitation, toProviderMessages, toolPairingProblems } from '../../../src/policy/provider-view';
import type { LoggedBody } from '../../../src/contracts/stored-body';
import { emptyCost, emptyUsage, type AssistantMessage, type Message } from '../../../src/contracts/message-model';

describe('conversion to the provider view', () => {
  const assistant = (provider: string): AssistantMessage => ({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'text', text: 'answer' },
    ],
    provider,
    model: 'm',
    usage: emptyUsage(),
    cost: emptyCost(),
    stopReason: 'stop',
    timestamp: 1,
  });

  it('drops app-only kinds, turns summaries into user messages and hands over signed reasoning only to its provider', () => {
    const logged: LoggedBody[] = [
      { kind: 'user', body: { role: 'user', content: 'hi', timestamp: 0 } },
      { kind: 'context_note', body: { role: 'context_note', text: 'switched queue', timestamp: 0 } },
      { kind: 'assistant', body: assistant('anthropic') },
      { kind: 'tool_log', body: { role: 'tool_log', text: 'ran', timestamp: 0 } },
    ];
    const same = toProviderMessages(logged, 'anthropic', { text: 'earlier', timestamp: 0 });
    expect(same.map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
    expect(same[0].content).toBe('Summary of the earlier conversation:\nearlier');
    expect((same[2] as AssistantMessage).content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const other = toProviderMessages(logged, 'openai');
    expect((other[1] as AssistantMessage).content.map((b) => b.type)).toEqual(['text']);
  });

  it('recites a plan as a todo list', () => {
    expect(planRecitation(undefined)).toBeUndefined();
    expect(
      planRecitation([
        { id: '1', title: 'search', done: true },
        { id: '2', title: 'write', done: false },
      ]),
    ).toBe('Current plan (todo list):\n[x] 1. search\n[ ] 2. write');
  });
});

const calling = (...ids: string[]): AssistantMessage => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool_call', id, name: 'add', arguments: {} })),
  provider: 'anthropic',
  model: 'm',
  usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  stopReason: 'tool_use',
  timestamp: 0,
});
const result = (id: string): Message => ({
  role: 'tool_result',
  toolCallId: id,
  toolName: 'add',
  content: [{ type: 'text', text: '2' }],
  isError: false,
  timestamp: 0,
});
const user: Message = { role: 'user', content: 'hi', timestamp: 0 };

describe('tool calls and results a provider would refuse', () => {
  it('a conversation where every call has its result before the next message is fine', () => {
    expect(toolPairingProblems([user, calling('a', 'b'), result('b'), result('a'), user])).toEqual([]);
  });

  it('a call left without its result, or a result without its call, is named', () => {
    expect(toolPairingProblems([user, calling('a', 'b'), result('a'), user])).toEqual([
      'the tool call b (add) has no result',
    ]);
    expect(toolPairingProblems([user, result('x')])).toEqual(['the tool result of x (add) answers no call before it']);
    expect(toolPairingProblems([calling('a')])).toEqual(['the tool call a (add) has no result']);
  });
});
