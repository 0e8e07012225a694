import { loadLlmConfig } from '../../../src/llm/llm-config';
import { withLimits } from '../../../src/llm/limits-file';
import { describeModel } from '../../../src/llm/model-calls';
import { limitKeyFor, llmQueueOf } from '../../../src/policy/llm-queues';

const env = { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' };

describe('limits in the config file', () => {
  it('reads provider and model limits, keyed provider and provider/model', () => {
    const config = loadLlmConfig({
      env,
      file: null,
      inline: {
        providers: { anthropic: { limits: { requestsPerMinute: 500, concurrency: 20 } } },
        models: [
          {
            provider: 'openai',
            model: 'gpt-4o',
            contextWindow: 128000,
            maxOutputTokens: 16384,
            limits: { requestsPerMinute: 120 },
          },
        ],
      },
    });
    expect(config.limits).toEqual({
      anthropic: { requestsPerMinute: 500, concurrency: 20 },
      'openai/gpt-4o': { requestsPerMinute: 120 },
    });
    expect(config.models.map((m) => 'limits' in m)).toEqual([false]);
  });

  it("a model's own limit wins over its provider's, and the worker names it for the run", () => {
    expect(limitKeyFor({ provider: 'openai', model: 'gpt-4o' }, ['openai', 'openai/gpt-4o'])).toBe('openai/gpt-4o');
    expect(limitKeyFor({ provider: 'openai', model: 'gpt-4.1' }, ['openai', 'openai/gpt-4o'])).toBe('openai');
    expect(limitKeyFor({ provider: 'anthropic', model: 'x' }, ['openai'])).toBeUndefined();
    const config = loadLlmConfig({
      env,
      file: null,
      inline: { providers: { anthropic: { limits: { requestsPerMinute: 60 } } } },
    });
    expect(describeModel({ provider: 'anthropic', model: 'claude-sonnet-4-6' }, config)?.limitKey).toBe('anthropic');
    expect(describeModel({ provider: 'openai', model: 'gpt-4o' }, config)?.limitKey).toBeUndefined();
    expect(llmQueueOf('agents', 'openai/gpt-4o')).toBe('agents/llm/openai/gpt-4o');
  });

  it.each([
    [
      { providers: { anthropic: { limits: { requestsPerMinute: 0 } } } },
      /requestsPerMinute must be a number from 0\.01 to 1000000, got 0/,
    ],
    [{ providers: { anthropic: { limits: { requestsPerMinute: 1e-300 } } } }, /requestsPerMinute must be .*got 1e-300/],
    [{ providers: { anthropic: { limits: { requestsPerMinute: 10, concurrency: -1 } } } }, /concurrency/],
    [{ providers: { anthropic: { limits: { requestsPerMinute: 10, burst: 3 } } } }, /burst/],
    [{ providers: { anthropic: { limits: 'fast' } } }, /limits/],
    [
      {
        models: [
          { provider: 'nowhere', model: 'm', contextWindow: 1, maxOutputTokens: 1, limits: { requestsPerMinute: 1 } },
        ],
      },
      /unknown provider/,
    ],
  ])('refuses a bad limits section: %j', (inline, message) => {
    expect(() => loadLlmConfig({ env, file: null, inline: inline as never })).toThrow(message);
  });
});

describe('withLimits (what `limits set` writes)', () => {
  it("sets a provider's limits and keeps the rest of the file", () => {
    const raw = { timeoutMs: 1000, providers: { anthropic: { headers: { a: 'b' } } } };
    expect(withLimits(raw, 'anthropic', { requestsPerMinute: 120, concurrency: 4 }, env)).toEqual({
      timeoutMs: 1000,
      providers: { anthropic: { headers: { a: 'b' }, limits: { requestsPerMinute: 120, concurrency: 4 } } },
    });
    expect(raw.providers.anthropic).toEqual({ headers: { a: 'b' } });
  });

  it('gives a registry model an entry of its own with its limits', () => {
    const file = withLimits({}, 'openai/gpt-4o', { requestsPerMinute: 60 }, env);
    expect(file.models).toMatchObject([{ provider: 'openai', model: 'gpt-4o', limits: { requestsPerMinute: 60 } }]);
    expect(loadLlmConfig({ env, file: null, inline: file }).limits).toEqual({
      'openai/gpt-4o': { requestsPerMinute: 60 },
    });
  });

  it.each([
    ['anthropic', { requestsPerMinute: 0 }, /requests a minute must be a number from 0\.01 to 1000000, got 0/],
    ['anthropic', { requestsPerMinute: 1e-300 }, /requests a minute must be a number from 0\.01 to 1000000/],
    ['anthropic', { requestsPerMinute: 10, concurrency: 1.5 }, /concurrency must be a whole number/],
    ['nowhere', { requestsPerMinute: 10 }, /unknown provider "nowhere"/],
    ['openai/no-such-model', { requestsPerMinute: 10 }, /unknown model "openai\/no-such-model"/],
    ['openai/', { requestsPerMinute: 10 }, /names no model/],
  ])('refuses %s %j in one line', (key, limits, message) => {
    let error: Error | undefined;
    try {
      withLimits({}, key, limits, env);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain('\n');
  });
});
