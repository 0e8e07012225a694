/**
 * Model calls against an injected config: resolve the model, check the request, stream from the
 * provider with a total and an idle timeout, and classify every failure.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { isRetryableLlmFailure } from '../policy/llm-failure-policy';
import { LLM_FAILURE } from '../contracts/failure-types';
import type { AssistantMessage, ModelRequest } from '../contracts/message-model';
import type { ResolvedModelInfo } from '../contracts/model-info';
import type { ModelName, ModelRef } from '../contracts/model-ref';
import type { StreamEvent } from '../contracts/stream-events';
import { lookupModel } from '../policy/model-registry';
import { limitKeyFor } from '../policy/llm-queues';
import { modelRefOf, unknownProviderProblem } from '../policy/model-ref';
import { MessageAssembler } from './message-assembler';
import { anthropicAdapter } from './anthropic/anthropic-adapter';
import { readApiKey, type LlmConfig, type ProviderApi, type ProviderConfig } from './llm-config';
import { classifyError, type ErrorContext } from './classify-error';
import { configFailure, llmFailure } from './failures';
import { openaiAdapter } from './openai/openai-adapter';
import type { CallContext, ProviderAdapter, ResolvedCall } from './adapter-types';
import { IdleWatch } from './idle-watch';
import { requestProblems } from './validate-request';

const ADAPTERS: Record<ProviderApi, ProviderAdapter> = { anthropic: anthropicAdapter, openai: openaiAdapter };

/**
 * The provider a model is called through: its syntax checked by the one parser, its provider by the
 * same check the client runs before a start. Throws a non-retryable `LlmConfigError`.
 */
export function providerOf(model: ModelName, config: LlmConfig): { ref: ModelRef; provider: ProviderConfig } {
  let ref: ModelRef;
  try {
    ref = modelRefOf(model);
  } catch (err) {
    throw configFailure((err as Error).message);
  }
  const problem = unknownProviderProblem(ref, Object.keys(config.providers));
  if (problem) throw configFailure(`${problem} ${loadedWhere(config)}`);
  return { ref, provider: config.providers[ref.provider] };
}

/** Where this worker's providers came from: a run may name one declared after the worker started. */
const loadedWhere = (config: LlmConfig): string =>
  config.source
    ? `This worker read its config from ${config.source} when it started: restart it to use providers declared since.`
    : 'This worker has no config file (its providers come from its environment, read when it started).';

/** The limit a model's calls fall under (`provider` or `provider/model`), or undefined for none. */
export type LimitKeyOf = (ref: ModelRef) => string | undefined;

/**
 * What the config says about a model (its entry, else the registry's); undefined when its provider
 * is unknown. Its limit is the config's, unless `limitKeyOf` knows the limits better (the worker's
 * view of the fleet's, `worker/limit-routes.ts`).
 */
export function describeModel(
  ref: ModelRef,
  config: LlmConfig,
  limitKeyOf: LimitKeyOf = (model) => limitKeyFor(model, Object.keys(config.limits)),
): ResolvedModelInfo | undefined {
  if (unknownProviderProblem(ref, Object.keys(config.providers))) return undefined;
  const info = lookupModel(ref, config.models);
  const limitKey = limitKeyOf(ref);
  return { ...info, idleTimeoutMs: info.idleTimeoutMs ?? config.idleTimeoutMs, ...(limitKey ? { limitKey } : {}) };
}

interface Resolved {
  call: ResolvedCall;
  adapter: ProviderAdapter;
  errorContext: () => ErrorContext;
  /** Ends the call's watch; call when the call is over, however it ended. */
  done: () => void;
}

function resolveCall(request: ModelRequest, ctx: CallContext): Resolved {
  const { config } = ctx;
  const { ref, provider } = providerOf(request.model, config);
  if (!provider.baseUrl) {
    throw configFailure(
      `Provider "${provider.id}" has no base URL: set ` +
        (provider.id === 'openai-compatible' ? 'OPENAI_COMPATIBLE_BASE_URL.' : '"baseUrl" for it in the config file.'),
    );
  }
  const badRequest = (text: string): ApplicationFailure => llmFailure(LLM_FAILURE.badRequest, text);
  const problems = requestProblems(request);
  if (problems.length)
    throw badRequest(`Invalid request for ${ref.provider}/${ref.model}:\n- ${problems.join('\n- ')}`);
  const info = lookupModel(ref, config.models);
  if (request.options?.tools?.length && !info.capabilities.tools)
    throw badRequest(
      `${ref.provider}/${ref.model} does not take tools (its entry says capabilities.tools is false), ` +
        `but the request offers ${request.options.tools.length}: run it without tools or pick a model that takes them`,
    );
  if (request.options?.thinkingBudget && info.known && !info.capabilities.thinking)
    throw badRequest(
      `${ref.provider}/${ref.model} does not think (its entry says capabilities.thinking is false): ` +
        `run it without a thinking budget or pick a model that thinks`,
    );
  const apiKey = readApiKey(provider);
  const idleTimeoutMs = info.idleTimeoutMs ?? config.idleTimeoutMs;
  const idle = new IdleWatch(idleTimeoutMs);
  // The call's own deadline, distinguishable from the caller's abort (SDK timeout errors are not
  // reliably recognisable across realms, e.g. under jest).
  const deadline = AbortSignal.timeout(config.timeoutMs);
  const call: ResolvedCall = {
    request,
    provider,
    model: ref.model,
    info,
    apiKey,
    timeoutMs: config.timeoutMs,
    signal: AbortSignal.any([deadline, idle.signal, ...(ctx.signal ? [ctx.signal] : [])]),
    fetch: idle.fetch,
  };
  const errorContext = (): ErrorContext => {
    const callerAborted = ctx.signal?.aborted === true;
    return {
      provider: provider.id,
      model: ref.model,
      timedOut: deadline.aborted && !callerAborted,
      idleTimedOut: idle.fired && !callerAborted && !deadline.aborted,
      idleTimeoutMs,
      callerAborted,
      timeoutMs: config.timeoutMs,
    };
  };
  return { call, adapter: ADAPTERS[provider.api], errorContext, done: () => idle.stop() };
}

/**
 * One model call as events. On failure an `error` event is yielded first, then the iterator
 * throws an `ApplicationFailure` typed by `LLM_FAILURE` (see `classifyError`), except an abort
 * whose reason is Temporal's `CancelledFailure` (an activity's cancellation): that is rethrown as
 * is, so the activity ends as cancelled.
 */
export async function* stream(request: ModelRequest, ctx: CallContext): AsyncGenerator<StreamEvent> {
  let resolved: Resolved;
  try {
    resolved = resolveCall(request, ctx);
  } catch (err) {
    const failure = classifyError(err);
    yield errorEvent(failure);
    throw failure;
  }
  const { call, adapter, errorContext, done } = resolved;
  try {
    for await (const event of adapter.stream(call)) {
      // Events already buffered keep arriving after an abort; the caller asked for no more.
      if (ctx.signal?.aborted) throw ctx.signal.reason ?? new Error('aborted');
      yield event;
    }
  } catch (err) {
    const failure = classifyError(err, errorContext());
    yield errorEvent(failure);
    throw temporalCancellation(ctx) ?? failure;
  } finally {
    done();
  }
}

function temporalCancellation(ctx: CallContext): CancelledFailure | undefined {
  const reason: unknown = ctx.signal?.aborted ? ctx.signal.reason : undefined;
  return reason instanceof CancelledFailure ? reason : undefined;
}

function errorEvent(failure: ApplicationFailure): StreamEvent {
  const type = failure.type ?? LLM_FAILURE.unknown;
  return {
    type: 'error',
    failureType: type,
    message: failure.message,
    retryable: !failure.nonRetryable && isRetryableLlmFailure(type),
  };
}

/**
 * Runs `stream` to the end and returns the assembled message, passing each event to `onEvent` on
 * the way. Throws what `stream` throws.
 */
export async function streamMessage(
  request: ModelRequest,
  ctx: CallContext,
  onEvent?: (event: StreamEvent) => void | Promise<void>,
): Promise<AssistantMessage> {
  const assembler = new MessageAssembler();
  for await (const event of stream(request, ctx)) {
    assembler.push(event);
    if (onEvent) await onEvent(event);
  }
  return assembler.message();
}

/** One model call, whole message (streamed from the provider all the same). Cancels when `ctx.signal` aborts. */
export const complete = (request: ModelRequest, ctx: CallContext): Promise<AssistantMessage> =>
  streamMessage(request, ctx);

export interface HealthCheckResult {
  ok: boolean;
  provider: string;
  model: string;
  latencyMs: number;
  /** Present when `ok` is false. */
  error?: { type: string; message: string; retryable: boolean };
}

/** Makes a tiny call to a model and reports whether it answered. Never throws. */
export async function healthCheck(model: ModelName, ctx: CallContext): Promise<HealthCheckResult> {
  const started = Date.now();
  let ref: ModelRef | undefined;
  try {
    ref = providerOf(model, ctx.config).ref;
    await complete(
      {
        model: ref,
        messages: [{ role: 'user', content: 'Reply with the word ok.', timestamp: started }],
        options: { maxTokens: 16, cache: false },
      },
      ctx,
    );
    return { ok: true, provider: ref.provider, model: ref.model, latencyMs: Date.now() - started };
  } catch (err) {
    const failure = classifyError(err);
    return {
      ok: false,
      provider: ref?.provider ?? '',
      model: ref?.model ?? '',
      latencyMs: Date.now() - started,
      error: { type: failure.type ?? LLM_FAILURE.unknown, message: failure.message, retryable: !failure.nonRetryable },
    };
  }
}

/** The LLM layer bound to one config: what a worker's activities call. */
export interface LlmClient {
  readonly config: LlmConfig;
  complete(request: ModelRequest, ctx?: { signal?: AbortSignal }): Promise<AssistantMessage>;
  stream(request: ModelRequest, ctx?: { signal?: AbortSignal }): AsyncIterable<StreamEvent>;
  /** What the config says about a model; undefined when its provider is unknown. */
  describe(ref: ModelRef): ResolvedModelInfo | undefined;
}

/** The LLM layer bound to `config`; `limitKeyOf` names models' limits when the worker knows more than the config. */
export function llmClient(config: LlmConfig, limitKeyOf?: LimitKeyOf): LlmClient {
  return {
    config,
    complete: (request, ctx = {}) => complete(request, { ...ctx, config }),
    stream: (request, ctx = {}) => stream(request, { ...ctx, config }),
    describe: (ref) => describeModel(ref, config, limitKeyOf),
  };
}
