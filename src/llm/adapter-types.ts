/** Types and SDK client options shared by the provider adapters. */
import type { ModelRequest } from '../contracts/message-model';
import type { ResolvedModelInfo } from '../contracts/model-info';
import type { StreamEvent } from '../contracts/stream-events';
import type { LlmConfig, ProviderConfig } from './llm-config';

/** Per-call context: the worker's LLM config and the caller's cancellation. */
export interface CallContext {
  config: LlmConfig;
  signal?: AbortSignal;
}

/** A request with its model resolved against the configuration, ready for an adapter. */
export interface ResolvedCall {
  request: ModelRequest;
  provider: ProviderConfig;
  model: string;
  info: ResolvedModelInfo;
  apiKey: string;
  timeoutMs: number;
  /** Aborts on the caller's cancellation, the total timeout and the idle timeout. */
  signal: AbortSignal;
  /** The `fetch` the SDK client uses (it reports arriving bytes to the idle watch). */
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

/** What both SDK clients are made with: the call's key, base URL, timeout, headers and `fetch`; no retries. */
export function sdkClientOptions(call: ResolvedCall) {
  return {
    apiKey: call.apiKey,
    baseURL: call.provider.baseUrl,
    maxRetries: 0,
    timeout: call.timeoutMs,
    defaultHeaders: call.provider.headers,
    fetch: call.fetch,
  };
}

/**
 * One wire format (Anthropic Messages or OpenAI Chat Completions). Every call streams from the
 * provider, so a hang shows as silence however long the answer is.
 */
export interface ProviderAdapter {
  /** Yields events; errors propagate raw and are classified by the caller. */
  stream(call: ResolvedCall): AsyncIterable<StreamEvent>;
}
