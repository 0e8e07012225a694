/**
 * Which model a run talks to, as plain data. A caller names a model by its spec string
 * (`anthropic/claude-sonnet-4-6`); the edge (client, CLI) parses it once into a {@link ModelRef}
 * (`policy/model-ref.ts`) and every later step carries the parts.
 */

/** A provider id: a built-in one or one a worker's config file names. */
export type ProviderId = 'anthropic' | 'minimax' | 'openai' | 'openai-compatible' | (string & {});

export interface ModelRef {
  provider: ProviderId;
  /** Model id as the provider knows it; may contain slashes (`meta-llama/Llama-3.1-8B`). */
  model: string;
}

/** A model as callers may give it: a {@link ModelRef}, or its `provider/model` spec string. */
export type ModelName = ModelRef | string;

/** The spec string of a model (`provider/model`): how events, search attributes and the state show it. */
export const modelLabel = (ref: ModelRef): string => `${ref.provider}/${ref.model}`;
