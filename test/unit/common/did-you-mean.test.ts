import { closestName, didYouMean } from '../../../src/common/did-you-mean';

describe('closestName', () => {
  it('names the one a slip of a letter or two meant', () => {
    expect(closestName('anthropc', ['anthropic', 'openai', 'minimax'])).toBe('anthropic');
    expect(closestName('opnai', ['anthropic', 'openai'])).toBe('openai');
    expect(closestName('maxTurn', ['maxTurns', 'maxTokens'])).toBe('maxTurns');
    expect(closestName('MaxTurns', ['maxTurns', 'maxTokens'])).toBe('maxTurns');
  });

  it('names none for a name of its own, or one that is among them', () => {
    expect(closestName('ollama', ['anthropic', 'openai', 'minimax'])).toBeUndefined();
    expect(closestName('openai', ['anthropic', 'openai'])).toBeUndefined();
    expect(didYouMean('x', ['tools'])).toBe('');
  });
});
