/**
 * Hangs are detected, not waited out: every call streams from the provider, and an attempt fails
 * as a retryable LlmTimeout when no byte has arrived for the idle timeout, however long the whole
 * answer takes. The idle timeout is the config's default or the model entry's own.
 */
import { ApplicationFailure } from '@temporalio/common';
import { complete, streamMessage, type LlmConfig } from '../../../src/llm';
import { LLM_FAILURE } from '../../../src/contracts/failure-types';
import { reply, startFakeProvider, type FakeProvider } from '../../../src/testing/fake-provider';
import { configFor, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const SPECS = ['anthropic/claude-sonnet-4-6', 'openai/gpt-4.1'];
// Long enough that a busy machine's pauses (client and fake share one event loop) do not reach it.
const IDLE_MS = 1_000;

/** The fake's config with a short idle timeout and a long total one. */
const idleConfig = (models: LlmConfig['models'] = []): LlmConfig => ({
  ...configFor(fake, {}, 30_000),
  idleTimeoutMs: IDLE_MS,
  models,
});

async function failureOf(run: () => Promise<unknown>): Promise<ApplicationFailure> {
  const err = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe('idle timeout', () => {
  it.each(SPECS)(
    '%s: a provider that takes the request and never answers fails the attempt after the idle timeout',
    async (spec) => {
      fake.script(reply.hang());
      const started = Date.now();
      const failure = await failureOf(() =>
        complete({ model: spec, messages: [user('hi')] }, { config: idleConfig() }),
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(failure).toMatchObject({ type: LLM_FAILURE.timeout, nonRetryable: false });
      expect(failure.message).toContain('no data from the provider for 1 s (idle timeout');
      // A caller that watches no events still streams from the provider. The fake may read the
      // request only after the client gave up on it.
      while (fake.requests.length === 0 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
      expect(fake.requests.map((r) => r.stream)).toEqual([true]);
    },
  );

  it.each(SPECS)('%s: a stream that falls silent mid-answer fails at the idle timeout', async (spec) => {
    fake.script(reply.text('An answer whose next words never come.', { eventDelayMs: 5_000 }));
    const failure = await failureOf(() =>
      streamMessage({ model: spec, messages: [user('hi')] }, { config: idleConfig() }),
    );
    expect(failure.type).toBe(LLM_FAILURE.timeout);
    expect(failure.message).toContain('idle timeout');
  });

  it.each(SPECS)('%s: a slow but steady answer outlives the idle timeout', async (spec) => {
    // Gaps of a tenth of the idle timeout, and about twenty of them.
    const text = 'Slow and steady wins the race, one word at a time. '.repeat(2);
    fake.script(reply.text(text, { eventDelayMs: IDLE_MS / 10 }));
    const started = Date.now();
    const message = await complete({ model: spec, messages: [user('hi')] }, { config: idleConfig() });
    expect(message).toMatchObject({ stopReason: 'stop' });
    expect(Date.now() - started).toBeGreaterThan(IDLE_MS);
  });

  it.each(SPECS)('%s: a model entry’s own idle timeout wins over the default (slow reasoning models)', async (spec) => {
    const [provider, model] = spec.split('/');
    const patient = idleConfig([
      {
        provider,
        model,
        contextWindow: 100_000,
        maxOutputTokens: 1_000,
        capabilities: { tools: true, thinking: true, vision: false, jsonMode: false },
        prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        idleTimeoutMs: 5_000,
      },
    ]);
    fake.script(reply.text('Thought long before this answer.', { delayMs: IDLE_MS * 2 }));
    await expect(complete({ model: spec, messages: [user('hi')] }, { config: patient })).resolves.toMatchObject({
      stopReason: 'stop',
    });
    fake.script(reply.text('Thought long before this answer.', { delayMs: IDLE_MS * 2 }));
    const failure = await failureOf(() => complete({ model: spec, messages: [user('hi')] }, { config: idleConfig() }));
    expect(failure.type).toBe(LLM_FAILURE.timeout);
  });
});
