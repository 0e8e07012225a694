import { toolPairingProblems } from '../../src/policy/provider-view';
import type { AssistantMessage, Message } from '../../src/contracts/message-model';

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
