import { NOT_RUN_RESULT, closeOpenCalls, type CopiedMessage } from '../../../src/activities/agent/close-open-calls';
import type { StoredBody } from '../../../src/contracts/stored-body';

const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

const user = (text: string): CopiedMessage => ({
  kind: 'user',
  hash: `h-${text}`,
  body: { role: 'user', content: text, timestamp: 1 },
});
const answer = (calls: string[], timestamp = 5): CopiedMessage => ({
  kind: 'assistant',
  hash: `h-${calls.join(',')}`,
  body: {
    role: 'assistant',
    content: calls.map((id) => ({ type: 'tool_call' as const, id, name: `tool_${id}`, arguments: {} })),
    api: 'anthropic',
    provider: 'anthropic',
    model: 'm',
    usage,
    cost,
    stopReason: 'tool_use',
    timestamp,
  } as StoredBody,
});
const result = (id: string): CopiedMessage => ({
  kind: 'tool_result',
  hash: `h-r-${id}`,
  body: { role: 'tool_result', toolCallId: id, toolName: `tool_${id}`, content: [], isError: false, timestamp: 6 },
});
const note = (text: string): CopiedMessage => ({
  kind: 'tool_log',
  hash: `h-${text}`,
  body: { role: 'tool_log', text, timestamp: 7 },
});
const notRun = (id: string, timestamp = 5): CopiedMessage => ({
  kind: 'tool_result',
  body: {
    role: 'tool_result',
    toolCallId: id,
    toolName: `tool_${id}`,
    content: [{ type: 'text', text: NOT_RUN_RESULT }],
    isError: true,
    timestamp,
  },
});

describe('closeOpenCalls', () => {
  it('leaves a conversation whose every call has a result as it is', () => {
    const messages = [user('task'), answer(['a', 'b']), result('b'), note('log'), result('a'), user('more')];
    expect(closeOpenCalls(messages)).toEqual(messages);
  });

  it('closes the calls of the last answer that have no result, at the end, at the time of the answer', () => {
    expect(closeOpenCalls([user('task'), answer(['a', 'b'], 42), result('a')])).toEqual([
      user('task'),
      answer(['a', 'b'], 42),
      result('a'),
      notRun('b', 42),
    ]);
  });

  it('closes an open call before the next message the model reads, after the entries it does not', () => {
    expect(closeOpenCalls([user('task'), answer(['a']), note('log'), user('steer'), answer([])])).toEqual([
      user('task'),
      answer(['a']),
      note('log'),
      notRun('a'),
      user('steer'),
      answer([]),
    ]);
  });
});
