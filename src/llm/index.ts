/**
 * The provider-neutral LLM layer (activity side). Workflows never import this module; they use
 * the types in `src/shared` and call these functions through activities.
 */
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { isRetryableLlmFailure } from '../policy/llm-failure-policy';
import { LLM_FAILURE } from '../contracts/failure-types';
import type { AssistantMessage, ModelRequest } from '../contracts/message-model';
import { computeCost, lookupModel, splitModelSpec } from '../policy/model-registry';
import { type ModelSpec, type ResolvedModelInfo } from '../contracts/model-info';
import { MessageAssembler } from './message-assembler';
import { type StreamEvent } from '../contracts/stream-events';
import { anthropicAdapter } from './anthropic/anthropic-adapter';
import { loadLlmConfig, readApiKey, type LlmConfig, type ProviderApi, type ProviderConfig } from './llm-config';
import { classifyError, type ErrorContext } from './classify-error';
import { configFailure, llmFailure } from './failures';
import { openaiAdapter } from './openai/openai-adapter';
import type { CallContext, ProviderAdapter, ResolvedCall } from './adapter-types';
import { requestProblems } from './validate-request';

export { classifyError, retryAfterFromHeaders } from './classify-error';
export type { ErrorContext } from './classify-error';
export { loadLlmConfig, DEFAULT_TIMEOUT_MS, CONFIG_PATH_ENV, DEFAULT_CONFIG_FILE } from './llm-config';
export type { LlmConfig, LlmConfigFile, LoadLlmConfigOptions, ProviderApi, ProviderConfig } from './llm-config';
export type { CallContext } from './adapter-types';
export type { LlmFailureDetails } from './failures';
export { parseToolArguments } from './tool-arguments';
export { requestProblems } from './validate-request';
export { toAnthropicToolId, toOpenAIToolId } from './tool-ids';
export { computeCost };

const ADAPTERS: Record<ProviderApi, ProviderAdapter> = { anthropic: anthropicAdapter, openai: openaiAdapter };

export interface ParsedModelSpec extends ModelSpec {
  /** Wire format of the provider. */
  api: ProviderApi;
}

/**
 * Parses `<provider>/<model>` and checks the provider exists: `anthropic`, `minimax`, `openai`,
 * `openai-compatible`, or a name from the config file. Throws a non-retryable `LlmConfigError`.
 */
export function parseModelSpec(spec: string, config?: LlmConfig): ParsedModelSpec {
  let parsed: ModelSpec;
  try {
    parsed = splitModelSpec(spec);
  } catch (err) {
    throw configFailure((err as Error).message);
  }
  const providers = (config ?? loadLlmConfig()).providers;
  const provider = providers[parsed.provider];
  if (!provider) {
    throw configFailure(
      `Unknown provider "${parsed.provider}" in model spec "${spec}". Known providers: ` +
        `${Object.keys(providers).sort().join(', ')}. ` +
        `Declare others under "providers" in the config file.`,
    );
  }
  return { provider: parsed.provider, model: parsed.model, api: provider.api };
}

/** Registry entry for a spec, including `models` entries from the config file. */
export function modelInfoFor(spec: string, config?: LlmConfig): ResolvedModelInfo {
  const cfg = config ?? loadLlmConfig();
  const { provider, model } = parseModelSpec(spec, cfg);
  return lookupModel(provider, model, cfg.models);
}

function resolveCall(
  request: ModelRequest,
  ctx: CallContext,
): { call: ResolvedCall; adapter: ProviderAdapter; errorContext: () => ErrorContext } {
  const config = ctx.config ?? loadLlmConfig();
  const spec = parseModelSpec(request.model, config);
  const provider: ProviderConfig = config.providers[spec.provider];
  if (!provider.baseUrl) {
    throw configFailure(
      `Provider "${provider.id}" has no base URL: set ` +
        (provider.id === 'openai-compatible' ? 'OPENAI_COMPATIBLE_BASE_URL.' : '"baseUrl" for it in the config file.'),
    );
  }
  const problems = requestProblems(request);
  if (problems.length) {
    throw llmFailure(LLM_FAILURE.badRequest, `Invalid request for ${request.model}:\n- ${problems.join('\n- ')}`);
  }
  const apiKey = readApiKey(provider, config);
  // The call's own deadline, distinguishable from the caller's abort (SDK timeout errors are not
  // reliably recognisable across realms, e.g. under jest).
  const deadline = AbortSignal.timeout(config.timeoutMs);
  const call: ResolvedCall = {
    request,
    provider,
    model: spec.model,
    info: lookupModel(spec.provider, spec.model, config.models),
    apiKey,
    timeoutMs: config.timeoutMs,
    signal: ctx.signal ? AbortSignal.any([ctx.signal, deadline]) : deadline,
  };
  const errorContext = (): ErrorContext => ({
    provider: provider.id,
    model: spec.model,
    timedOut: deadline.aborted && !ctx.signal?.aborted,
    callerAborted: ctx.signal?.aborted === true,
    timeoutMs: config.timeoutMs,
  });
  return { call, adapter: ADAPTERS[provider.api], errorContext };
}

/**
 * One model call, whole response. Cancels when `ctx.signal` aborts. Every failure is thrown as
 * an `ApplicationFailure` typed by `LLM_FAILURE` (see `classifyError`), except an abort whose
 * reason is Temporal's `CancelledFailure` (an activity's cancellation signal): that is rethrown
 * as is, so the activity ends as cancelled.
 */
export async function complete(request: ModelRequest, ctx: CallContext = {}): Promise<AssistantMessage> {
  const { call, adapter, errorContext } = resolveCall(request, ctx);
  try {
    return await adapter.complete(call);
  } catch (err) {
    throw temporalCancellation(ctx) ?? classifyError(err, errorContext());
  }
}

/**
 * One model call as events. On failure an `error` event is yielded first, then the iterator
 * throws the classified `ApplicationFailure`.
 */
export async function* stream(request: ModelRequest, ctx: CallContext = {}): AsyncGenerator<StreamEvent> {
  let resolved: ReturnType<typeof resolveCall>;
  try {
    resolved = resolveCall(request, ctx);
  } catch (err) {
    const failure = classifyError(err);
    yield errorEvent(failure);
    throw failure;
  }
  const { call, adapter, errorContext } = resolved;
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
  }
}

/**
 * An activity's cancellation signal aborts with a `CancelledFailure`; rethrowing it lets the
 * worker report the activity as cancelled rather than failed.
 */
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
 * Runs `stream` to the end and returns the assembled message (equal to what `complete` returns
 * for the same response), passing each event to `onEvent` on the way. Throws like `complete`.
 */
export async function streamMessage(
  request: ModelRequest,
  ctx: CallContext = {},
  onEvent?: (event: StreamEvent) => void | Promise<void>,
): Promise<AssistantMessage> {
  const assembler = new MessageAssembler();
  for await (const event of stream(request, ctx)) {
    assembler.push(event);
    if (onEvent) await onEvent(event);
  }
  return assembler.message();
}

export interface HealthCheckResult {
  ok: boolean;
  provider: string;
  model: string;
  latencyMs: number;
  /** Present when `ok` is false. */
  error?: { type: string; message: string; retryable: boolean };
}

/** Makes a tiny call to the model behind `spec` and reports whether it answered. Never throws. */
export async function healthCheck(spec: string, ctx: CallContext = {}): Promise<HealthCheckResult> {
  const started = Date.now();
  let provider = '';
  let model = '';
  try {
    const parsed = parseModelSpec(spec, ctx.config);
    provider = parsed.provider;
    model = parsed.model;
    await complete(
      {
        model: spec,
        messages: [{ role: 'user', content: 'Reply with the word ok.', timestamp: started }],
        options: { maxTokens: 16, cache: false },
      },
      ctx,
    );
    return { ok: true, provider, model, latencyMs: Date.now() - started };
  } catch (err) {
    const failure = classifyError(err);
    const type = failure.type ?? LLM_FAILURE.unknown;
    return {
      ok: false,
      provider,
      model,
      latencyMs: Date.now() - started,
      error: { type, message: failure.message, retryable: !failure.nonRetryable },
    };
  }
}
