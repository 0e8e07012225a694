/**
 * What the runtime knows about models: context window, output limit, capabilities and price.
 * Pure data and lookup, workflow-safe: workflows use it to budget context and cost.
 * Models not listed here work when declared in the config file (`models` entries).
 */
import type { ModelCapabilities, ModelInfo, ModelPrices, ResolvedModelInfo } from '../contracts/model-info';
import type { Cost, Usage } from '../contracts/message-model';
import type { ModelRef } from '../contracts/model-ref';
import { sameModel } from './model-ref';

const ALL: ModelCapabilities = { tools: true, thinking: true, vision: true, jsonMode: true };
const NO_JSON: ModelCapabilities = { ...ALL, jsonMode: false };
const NO_THINKING: ModelCapabilities = { ...ALL, thinking: false };

/** Anthropic bills 5-minute cache writes at 1.25x input and cache reads at 0.1x. */
function claude(
  model: string,
  input: number,
  output: number,
  maxOutputTokens: number,
  adaptiveThinking = false,
): ModelInfo {
  return {
    provider: 'anthropic',
    model,
    contextWindow: 200_000,
    maxOutputTokens,
    // JSON output is emulated with instructions on the Anthropic adapter, so no native jsonMode.
    capabilities: adaptiveThinking ? { ...NO_JSON, adaptiveThinking } : NO_JSON,
    prices: { input, output, cacheRead: round(input * 0.1), cacheWrite: round(input * 1.25) },
  };
}

/**
 * OpenAI's reasoning models think without sending a byte (Chat Completions streams no reasoning),
 * so they get a longer idle timeout than the default.
 */
const SILENT_REASONING_IDLE_MS = 300_000;

/** OpenAI bills cached input at the listed cached rate and has no cache-write charge. */
function openai(
  model: string,
  prices: [input: number, cachedInput: number, output: number],
  contextWindow: number,
  maxOutputTokens: number,
  capabilities: ModelCapabilities = ALL,
): ModelInfo {
  const [input, cacheRead, output] = prices;
  return {
    provider: 'openai',
    model,
    contextWindow,
    maxOutputTokens,
    capabilities,
    prices: { input, output, cacheRead, cacheWrite: 0 },
    ...(capabilities.thinking ? { idleTimeoutMs: SILENT_REASONING_IDLE_MS } : {}),
  };
}

/** A MiniMax model; its `-highspeed` variant costs twice as much per input and output token. */
function minimax(model: string, cacheRead = 0.03): ModelInfo {
  const rate = model.endsWith('-highspeed') ? 2 : 1;
  return {
    provider: 'minimax',
    model,
    contextWindow: 204_800,
    maxOutputTokens: 131_072,
    capabilities: { tools: true, thinking: true, vision: false, jsonMode: false },
    prices: { input: 0.3 * rate, output: 1.2 * rate, cacheRead, cacheWrite: 0.375 },
  };
}

const round = (n: number): number => Math.round(n * 1e6) / 1e6;

/** Built-in entries. Prices are list prices in USD per million tokens. */
export const MODEL_REGISTRY: readonly ModelInfo[] = [
  claude('claude-opus-4-6', 5, 25, 128_000, true),
  claude('claude-sonnet-4-6', 3, 15, 64_000),
  claude('claude-opus-4-5', 5, 25, 64_000),
  claude('claude-sonnet-4-5', 3, 15, 64_000),
  claude('claude-haiku-4-5', 1, 5, 64_000),
  claude('claude-opus-4-1', 15, 75, 32_000),
  claude('claude-sonnet-4', 3, 15, 64_000),
  openai('gpt-5.4', [2.5, 0.25, 15], 272_000, 128_000),
  openai('gpt-5.4-mini', [0.75, 0.075, 4.5], 272_000, 128_000),
  openai('gpt-5.4-nano', [0.2, 0.02, 1.25], 272_000, 128_000),
  openai('gpt-5.2', [1.75, 0.175, 14], 400_000, 128_000),
  openai('gpt-5.1', [1.25, 0.125, 10], 400_000, 128_000),
  openai('gpt-5', [1.25, 0.125, 10], 400_000, 128_000),
  openai('gpt-5-mini', [0.25, 0.025, 2], 400_000, 128_000),
  openai('gpt-5-nano', [0.05, 0.005, 0.4], 400_000, 128_000),
  openai('gpt-4.1', [2, 0.5, 8], 1_047_576, 32_768, NO_THINKING),
  openai('gpt-4.1-mini', [0.4, 0.1, 1.6], 1_047_576, 32_768, NO_THINKING),
  openai('gpt-4.1-nano', [0.1, 0.025, 0.4], 1_047_576, 32_768, NO_THINKING),
  openai('gpt-4o', [2.5, 1.25, 10], 128_000, 16_384, NO_THINKING),
  openai('gpt-4o-mini', [0.15, 0.075, 0.6], 128_000, 16_384, NO_THINKING),
  openai('o3', [2, 0.5, 8], 200_000, 100_000),
  openai('o4-mini', [1.1, 0.275, 4.4], 200_000, 100_000),
  minimax('MiniMax-M2.7', 0.06),
  minimax('MiniMax-M2.7-highspeed', 0.06),
  minimax('MiniMax-M2.5'),
  minimax('MiniMax-M2.5-highspeed'),
  minimax('MiniMax-M2.1'),
  minimax('MiniMax-M2.1-highspeed'),
  minimax('MiniMax-M2'),
];

/** Used for models nobody declared: tools on, nothing else assumed, zero price. */
export const UNKNOWN_MODEL_DEFAULTS: Omit<ModelInfo, 'provider' | 'model'> = {
  contextWindow: 128_000,
  maxOutputTokens: 8_192,
  capabilities: { tools: true, thinking: false, vision: false, jsonMode: false },
  prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

/** Dated snapshots (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`) share their alias's entry. */
const withoutDateSuffix = (model: string): string => model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');

/**
 * Finds a model's entry: config entries (`custom`) first, then the built-in registry, each by
 * exact id and then without a date suffix. The built-in OpenAI entries also serve
 * `openai-compatible` endpoints serving the same model ids only when listed in `custom`.
 */
export function lookupModel(ref: ModelRef, custom: readonly ModelInfo[] = []): ResolvedModelInfo {
  const { provider, model } = ref;
  const candidates = [model, withoutDateSuffix(model)];
  for (const source of [custom, MODEL_REGISTRY]) {
    for (const id of candidates) {
      const hit = source.find((m) => m.model === id && (m.provider === provider || m.provider === '*'));
      if (hit) return { ...hit, provider, model, known: true };
    }
  }
  return { ...UNKNOWN_MODEL_DEFAULTS, provider, model, known: false };
}

/**
 * What a run knows about a model: the entry the worker resolved for it (`AgentState.models`), else
 * the built-in registry's (runs that predate resolved entries, models the run has not called yet).
 */
export function runModelInfo(resolved: readonly ResolvedModelInfo[] | undefined, ref: ModelRef): ResolvedModelInfo {
  return resolved?.find((info) => sameModel(info, ref)) ?? lookupModel(ref);
}

/** Whether the run has the worker's entry for a model. */
export const knowsModel = (resolved: readonly ResolvedModelInfo[] | undefined, ref: ModelRef): boolean =>
  resolved?.some((info) => sameModel(info, ref)) ?? false;

/** The run's entries with `info` in place of any earlier one for its model. */
export function rememberModelInfo(
  resolved: readonly ResolvedModelInfo[] | undefined,
  info: ResolvedModelInfo,
): ResolvedModelInfo[] {
  return [...(resolved ?? []).filter((known) => !sameModel(known, info)), info];
}

/** Cost in USD of one call's usage at the given prices. */
export function computeCost(usage: Usage, prices: ModelPrices): Cost {
  const input = (usage.inputTokens * prices.input) / 1e6;
  const output = (usage.outputTokens * prices.output) / 1e6;
  const cacheRead = (usage.cacheReadTokens * prices.cacheRead) / 1e6;
  const cacheWrite = (usage.cacheWriteTokens * prices.cacheWrite) / 1e6;
  return { input, output, cacheRead, cacheWrite, total: input + output + cacheRead + cacheWrite };
}
