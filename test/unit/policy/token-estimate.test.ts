import { estimateBodyTokens, estimateTextTokens } from '../../../src/policy/token-estimate';
import { emptyCost, emptyUsage, type AssistantMessage } from '../../../src/contracts/message-model';

describe('token estimates', () => {
  it('counts CJK characters near one token each and Latin near four characters a token', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('abcdefgh')).toBe(2);
    expect(estimateTextTokens('你好世界')).toBe(4);
    expect(estimateTextTokens('こんにちは')).toBe(5);
    expect(estimateTextTokens('안녕하세요')).toBe(5);
    // The same meaning in Chinese costs far more per character than in English.
    expect(estimateTextTokens('用户想了解最佳实践')).toBeGreaterThan(estimateTextTokens('best practice') * 2);
  });

  it('counts text, tool arguments and images, not ids or usage', () => {
    const m: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'abcd'.repeat(10) },
        { type: 'tool_call', id: 'x'.repeat(400), name: 'add', arguments: { a: 1 } },
      ],
      provider: 'anthropic',
      model: 'm',
      usage: emptyUsage(),
      cost: emptyCost(),
      stopReason: 'tool_use',
      timestamp: 0,
    };
    expect(estimateBodyTokens(m)).toBe(4 + 10 + 1 + Math.ceil('{"a":1}'.length / 4));
    expect(
      estimateBodyTokens({
        role: 'user',
        content: [{ type: 'image', mediaType: 'image/png', data: 'A'.repeat(10_000) }],
      }),
    ).toBe(4 + 1200);
  });
});
