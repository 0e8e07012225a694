/** What the runtime knows about a model: context window, output limit, capabilities and price. */
import type { ProviderId } from './model-ref';

export interface ModelCapabilities {
  tools: boolean;
  /** Extended thinking / reasoning the caller can budget. */
  thinking: boolean;
  vision: boolean;
  /** A native JSON / JSON-schema response format. */
  jsonMode: boolean;
  /** Anthropic models that take `thinking: {type: 'adaptive'}` rather than a fixed budget. */
  adaptiveThinking?: boolean;
}

/** US dollars per million tokens. */
export interface ModelPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ModelInfo {
  /** Provider id this entry applies to; `*` matches any provider. */
  provider: ProviderId | '*';
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  capabilities: ModelCapabilities;
  prices: ModelPrices;
  /**
   * How long a call may go without a byte from the provider before the attempt fails as a timeout
   * (default 120 s); reasoning models that think silently get more.
   */
  idleTimeoutMs?: number;
}

/** Lookup result; `known` is false when neither the registry nor the config lists the model. */
export interface ResolvedModelInfo extends ModelInfo {
  known: boolean;
  /**
   * The worker's limit this model's calls fall under (`provider` or `provider/model`): they go to
   * that limit's own task queue (`policy/llm-queues.ts`). Absent when the model is not limited.
   */
  limitKey?: string;
}
