/** Types shared by the provider adapters. */
import type { AssistantMessage, ModelRequest } from '../contracts/message-model';
import type { ResolvedModelInfo } from '../contracts/model-info';
import type { StreamEvent } from '../contracts/stream-events';
import type { LlmConfig, ProviderConfig } from './llm-config';

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
