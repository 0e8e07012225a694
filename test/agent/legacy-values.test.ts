import { currentBody, kindOf } from '../../src/policy/legacy-values';
import type { StoredBody } from '../../src/contracts/stored-body';

describe('values written before snake_case', () => {
  it('reads camelCase log kinds and stored bodies as today’s values, and leaves current ones alone', () => {
    expect(kindOf({ kind: 'toolResult' as never })).toBe('tool_result');
    expect(kindOf({ kind: 'tool_result' })).toBe('tool_result');
    const old = {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'c1', name: 'add', arguments: { a: 1 } }],
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      stopReason: 'toolUse',
      timestamp: 1,
    } as unknown as StoredBody;
    expect(currentBody(old)).toMatchObject({ stopReason: 'tool_use', content: [{ type: 'tool_call', id: 'c1' }] });
    const result = { role: 'toolResult', toolCallId: 'c1', toolName: 'add', content: [], isError: false, timestamp: 1 };
    expect(currentBody(result as unknown as StoredBody)).toMatchObject({ role: 'tool_result', toolCallId: 'c1' });
    const now: StoredBody = { role: 'user', content: 'hi', timestamp: 1 };
    expect(currentBody(now)).toBe(now);
  });
});
