import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { complete, stream, streamMessage } from '../../../src/llm';
import { LLM_FAILURE } from '../../../src/contracts/failure-types';
import { NON_RETRYABLE_LLM_FAILURES } from '../../../src/policy/llm-failure-policy';
import type { StreamEvent } from '../../../src/contracts/stream-events';
import { reply, startFakeProvider, type FakeProvider, type FakeStep } from '../../../src/testing/fake-provider';
import { configFor, EVERY_ADAPTER, user } from './support';

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

interface Row {
  name: string;
  /** Rows about one API's error body. */
  only?: 'openai';
  step: FakeStep;
  type: string;
  retryable: boolean;
  delayMs?: number;
}

const status = (code: number, headers?: Record<string, string>): FakeStep => reply.error(code, { headers });

const MATRIX: Row[] = [
  { name: '400', step: status(400), type: LLM_FAILURE.badRequest, retryable: false },
  { name: '401', step: status(401), type: LLM_FAILURE.authentication, retryable: false },
  { name: '403', step: status(403), type: LLM_FAILURE.authentication, retryable: false },
  { name: '404', step: status(404), type: LLM_FAILURE.badRequest, retryable: false },
  { name: '408', step: status(408), type: LLM_FAILURE.timeout, retryable: true },
  { name: '409', step: status(409), type: LLM_FAILURE.conflict, retryable: true },
  { name: '413', step: status(413), type: LLM_FAILURE.contextTooLong, retryable: false },
  { name: '422', step: status(422), type: LLM_FAILURE.badRequest, retryable: false },
  { name: '429 without retry headers', step: status(429), type: LLM_FAILURE.rateLimited, retryable: true },
  {
    name: '429 with retry-after',
    step: status(429, { 'retry-after': '7' }),
    type: LLM_FAILURE.rateLimited,
    retryable: true,
    delayMs: 7000,
  },
  {
    name: '429 with retry-after-ms',
    step: status(429, { 'retry-after-ms': '1500' }),
    type: LLM_FAILURE.rateLimited,
    retryable: true,
    delayMs: 1500,
  },
  {
    name: '429 with both (retry-after-ms wins)',
    step: status(429, { 'retry-after-ms': '250', 'retry-after': '9' }),
    type: LLM_FAILURE.rateLimited,
    retryable: true,
    delayMs: 250,
  },
  { name: '500', step: status(500), type: LLM_FAILURE.serverError, retryable: true },
  { name: '502', step: status(502), type: LLM_FAILURE.serverError, retryable: true },
  { name: '503', step: status(503), type: LLM_FAILURE.overloaded, retryable: true },
  {
    name: '503 with retry-after',
    step: status(503, { 'retry-after': '3' }),
    type: LLM_FAILURE.overloaded,
    retryable: true,
    delayMs: 3000,
  },
  { name: '529', step: status(529), type: LLM_FAILURE.overloaded, retryable: true },
  { name: 'connection reset', step: reply.reset(), type: LLM_FAILURE.connection, retryable: true },
  { name: 'timeout', step: reply.hang(), type: LLM_FAILURE.timeout, retryable: true },
  {
    name: '400 saying the prompt is too long',
    step: reply.error(400, { message: 'prompt is too long: 210000 tokens > 200000 maximum' }),
    type: LLM_FAILURE.contextTooLong,
    retryable: false,
  },
  {
    name: '400 with code context_length_exceeded',
    only: 'openai',
    step: reply.error(400, { code: 'context_length_exceeded', message: 'Too long.' }),
    type: LLM_FAILURE.contextTooLong,
    retryable: false,
  },
  {
    name: '400 with code content_policy_violation',
    only: 'openai',
    step: reply.error(400, { code: 'content_policy_violation', message: 'Rejected.' }),
    type: LLM_FAILURE.contentFiltered,
    retryable: false,
  },
  {
    name: '429 with code insufficient_quota',
    only: 'openai',
    step: reply.error(429, { code: 'insufficient_quota', message: 'You exceeded your current quota.' }),
    type: LLM_FAILURE.quotaExceeded,
    retryable: false,
  },
  {
    name: '400 saying the credit balance is too low',
    step: reply.error(400, { message: 'Your credit balance is too low to access the Anthropic API.' }),
    type: LLM_FAILURE.quotaExceeded,
    retryable: false,
  },
];

async function failureOf(run: () => Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApplicationFailure);
    return err as ApplicationFailure;
  }
  throw new Error('expected the call to fail');
}

const SPECS = ['anthropic/claude-sonnet-4-6', 'openai/gpt-4.1'];
const MODES = {
  complete: (spec: string, timeoutMs: number) =>
    complete({ model: spec, messages: [user('hi')] }, { config: configFor(fake, {}, timeoutMs) }),
  stream: (spec: string, timeoutMs: number) =>
    streamMessage({ model: spec, messages: [user('hi')] }, { config: configFor(fake, {}, timeoutMs) }),
};

describe('error matrix', () => {
  for (const spec of EVERY_ADAPTER) {
    for (const [mode, run] of Object.entries(MODES)) {
      describe(`${spec} ${mode}`, () => {
        const rows = MATRIX.filter((row) => !row.only || spec.startsWith(row.only));
        it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
          fake.script(row.step);
          const failure = await failureOf(() => run(spec, row.name === 'timeout' ? 300 : 30_000));
          expect({ type: failure.type, nonRetryable: failure.nonRetryable, delay: failure.nextRetryDelay }).toEqual({
            type: row.type,
            nonRetryable: !row.retryable,
            delay: row.delayMs,
          });
          expect(NON_RETRYABLE_LLM_FAILURES.includes(failure.type as never)).toBe(!row.retryable);
          expect(fake.requests).toHaveLength(1);
        });
      });
    }
  }
});

describe('failures inside a stream', () => {
  it.each(SPECS)(
    '%s: an error event after HTTP 200 classifies by its body and is yielded before the throw',
    async (spec) => {
      fake.script(
        reply.error(529, {
          inStream: true,
          errorType: spec.startsWith('anthropic') ? 'overloaded_error' : 'server_error',
          message: 'Overloaded',
        }),
      );
      const events: StreamEvent[] = [];
      const failure = await failureOf(async () => {
        for await (const e of stream({ model: spec, messages: [user('hi')] }, { config: configFor(fake) }))
          events.push(e);
      });
      const expected = spec.startsWith('anthropic') ? LLM_FAILURE.overloaded : LLM_FAILURE.serverError;
      expect(failure.type).toBe(expected);
      expect(events[events.length - 1]).toMatchObject({ type: 'error', failureType: expected, retryable: true });
      expect(fake.requests).toHaveLength(1);
    },
  );

  it.each(SPECS)('%s: a connection dropped mid-stream is a retryable connection failure', async (spec) => {
    fake.script(reply.text('This answer will never finish arriving.', { breakAfterEvents: 4 }));
    const events: StreamEvent[] = [];
    const failure = await failureOf(async () => {
      for await (const e of stream({ model: spec, messages: [user('hi')] }, { config: configFor(fake) }))
        events.push(e);
    });
    expect(failure.type).toBe(LLM_FAILURE.connection);
    expect(failure.nonRetryable).toBe(false);
    expect(events.some((e) => e.type === 'text_delta')).toBe(true);
    expect(events.some((e) => e.type === 'done')).toBe(false);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('cancellation and configuration failures', () => {
  it.each(SPECS)('%s: aborting mid-stream ends the stream as LlmAborted, not as a broken connection', async (spec) => {
    fake.script(reply.text('A long answer that the caller stops reading halfway through.', { eventDelayMs: 20 }));
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    const failure = await failureOf(async () => {
      for await (const e of stream(
        { model: spec, messages: [user('hi')] },
        { signal: controller.signal, config: configFor(fake) },
      )) {
        events.push(e);
        if (e.type === 'text_delta') controller.abort();
      }
    });
    expect(failure.type).toBe(LLM_FAILURE.aborted);
    expect(events[events.length - 1]).toMatchObject({
      type: 'error',
      failureType: LLM_FAILURE.aborted,
      retryable: false,
    });
    expect(events.filter((e) => e.type === 'text_delta')).toHaveLength(1);
  });

  it.each(SPECS)('%s: aborting the signal cancels the call as a non-retryable LlmAborted', async (spec) => {
    fake.script(reply.hang());
    const controller = new AbortController();
    const pending = complete(
      { model: spec, messages: [user('hi')] },
      { signal: controller.signal, config: configFor(fake) },
    );
    while (fake.requests.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort();
    const failure = await failureOf(() => pending);
    expect(failure.type).toBe(LLM_FAILURE.aborted);
    expect(failure.nonRetryable).toBe(true);
  });

  it.each(SPECS)(
    '%s: an activity cancellation (abort reason CancelledFailure) is rethrown so the activity ends cancelled',
    async (spec) => {
      fake.script(reply.hang(), reply.text('slow', { eventDelayMs: 20 }));
      const cancelled = new CancelledFailure('CANCELLED');
      const whole = new AbortController();
      const pending = complete(
        { model: spec, messages: [user('hi')] },
        { signal: whole.signal, config: configFor(fake) },
      );
      while (fake.requests.length === 0) await new Promise((r) => setImmediate(r));
      whole.abort(cancelled);
      await expect(pending).rejects.toBe(cancelled);

      const streamed = new AbortController();
      const events: StreamEvent[] = [];
      const thrown = await (async () => {
        for await (const e of stream(
          { model: spec, messages: [user('hi')] },
          { signal: streamed.signal, config: configFor(fake) },
        )) {
          events.push(e);
          if (e.type === 'text_delta') streamed.abort(cancelled);
        }
      })().catch((e: unknown) => e);
      expect(thrown).toBe(cancelled);
      expect(events[events.length - 1]).toMatchObject({ type: 'error', failureType: LLM_FAILURE.aborted });
    },
  );

  it.each([
    ['anthropic/claude-sonnet-4-6', 'ANTHROPIC_API_KEY'],
    ['minimax/MiniMax-M2.5', 'MINIMAX_API_KEY'],
    ['openai/gpt-4.1', 'OPENAI_API_KEY'],
  ])('%s without a key fails before any request, naming %s', async (spec, envVar) => {
    const failure = await failureOf(() =>
      complete({ model: spec, messages: [user('hi')] }, { config: configFor(fake, { [envVar]: undefined }) }),
    );
    expect(failure.type).toBe(LLM_FAILURE.authentication);
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain(envVar);
    expect(fake.requests).toHaveLength(0);
  });

  it('openai-compatible needs no key but does need a base URL', async () => {
    fake.script(reply.text('ok'));
    await expect(
      complete({ model: 'openai-compatible/llama3.1', messages: [user('hi')] }, { config: configFor(fake) }),
    ).resolves.toMatchObject({
      stopReason: 'stop',
    });
    expect(fake.requests[0].headers.authorization).toBe('Bearer no-key');
    const failure = await failureOf(() =>
      complete(
        { model: 'openai-compatible/llama3.1', messages: [user('hi')] },
        { config: configFor(fake, { OPENAI_COMPATIBLE_BASE_URL: undefined }) },
      ),
    );
    expect(failure.type).toBe(LLM_FAILURE.config);
    expect(failure.message).toContain('OPENAI_COMPATIBLE_BASE_URL');
  });

  it('a wrong key is the provider’s 401, classified as authentication', async () => {
    const strict = await startFakeProvider({ apiKey: 'right' });
    try {
      const failure = await failureOf(() =>
        complete(
          { model: 'anthropic/claude-sonnet-4-6', messages: [user('hi')] },
          { config: configFor(strict, { ANTHROPIC_API_KEY: 'wrong' }) },
        ),
      );
      expect(failure.type).toBe(LLM_FAILURE.authentication);
      expect(strict.requests.map((r) => r.status)).toEqual([401]);
    } finally {
      await strict.close();
    }
  });
});
