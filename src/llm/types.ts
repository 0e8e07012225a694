/** Types shared by the provider adapters. */
import type { AssistantMessage, ModelRequest } from '../shared/messages';
import type { ResolvedModelInfo } from '../shared/model-registry';
import type { StreamEvent } from '../shared/stream-events';
import type { LlmConfig, ProviderConfig } from './config';

/** Per-call context: cancellation and configuration (defaults to `loadLlmConfig()`). */
export interface CallContext {
  signal?: AbortSignal;
  config?: LlmConfig;
}

/** A request with its spec resolved against the configuration, ready for an adapter. */
export interface ResolvedCall {
  request: ModelRequest;
  provider: ProviderConfig;
  model: string;
  info: ResolvedModelInfo;
  apiKey: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** One wire format (Anthropic Messages or OpenAI Chat Completions). */
export interface ProviderAdapter {
  complete(call: ResolvedCall): Promise<AssistantMessage>;
  /** Yields events; errors propagate raw and are classified by the caller. */
  stream(call: ResolvedCall): AsyncIterable<StreamEvent>;
}
