/**
 * Wire-faithful fake LLM provider for tests and offline demos: a real HTTP server speaking the
 * Anthropic Messages and OpenAI Chat Completions formats (SSE included), scripted per test,
 * validating requests like the real APIs and recording every request. Usage bills a token per
 * four characters of the prompt, with prompt caching as each format does (`prompt-cache.ts`).
 *
 * ```ts
 * const fake = await startFakeProvider();
 * fake.script(reply.toolCalls([{ name: 'read_file', arguments: { path: 'a.md' } }]), reply.text('Done.'));
 * const config = loadLlmConfig({ file: null, env: fakeProviderEnv(fake) });
 * await complete({ model: 'anthropic/claude-sonnet-4-6', messages }, { config });
 * expect(fake.requests.every((r) => r.status === 200)).toBe(true);
 * await fake.close();
 * ```
 *
 * An empty script answers 500 "script exhausted" (recorded with `error`), which the LLM layer
 * classifies as a retryable `LlmServerError`: give activities a bounded retry policy in tests.
 */
import type { FakeProvider } from './script';

export { startFakeProvider } from './server';

export { reply } from './script';
export { rateLimited, type RateLimitOptions } from './rate-limit';
export type {
  FakeApi,
  FakeBlock,
  FakeError,
  FakeHang,
  FakeProvider,
  FakeProviderOptions,
  FakeReply,
  FakeReset,
  FakeResponder,
  FakeStep,
  FakeStopReason,
  FakeUsage,
  RecordedRequest,
} from './script';

/**
 * Environment that points every built-in provider at the fake: `anthropic` at `/`, `minimax`
 * at `/minimax`, `openai` at `/v1`, `openai-compatible` at `/compat/v1`. Pass it to
 * `loadLlmConfig({ env })`, or merge it into the environment a worker's config is built from.
 */
export function fakeProviderEnv(fake: FakeProvider, apiKey = 'fake-key'): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_BASE_URL: fake.anthropicBaseUrl(),
    MINIMAX_API_KEY: apiKey,
    MINIMAX_BASE_URL: fake.anthropicBaseUrl('/minimax'),
    OPENAI_API_KEY: apiKey,
    OPENAI_BASE_URL: fake.openaiBaseUrl(),
    OPENAI_COMPATIBLE_BASE_URL: fake.openaiBaseUrl('/compat'),
  };
}
