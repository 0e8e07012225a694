/**
 * Where a limited provider's or model's calls go: a task queue of its own, derived from the
 * worker's queue, whose server-side rate limit holds the whole fleet to the provider's limit.
 * The worker names the limit a model falls under (`ResolvedModelInfo.limitKey`); the workflow
 * derives the queue from it and its own activity queue.
 */
import type { ModelRef } from '../contracts/model-ref';

/** The part of a limited queue's name between the worker's queue and the limit key. */
export const LLM_QUEUE_SEGMENT = '/llm/';

/** The task queue of the model calls limited under `limitKey` (`provider` or `provider/model`). */
export const llmQueueOf = (baseQueue: string, limitKey: string): string =>
  `${baseQueue}${LLM_QUEUE_SEGMENT}${limitKey}`;

/** The limit a model's calls fall under: its own, else its provider's; undefined when neither is limited. */
export function limitKeyFor(ref: ModelRef, limitKeys: readonly string[]): string | undefined {
  const own = `${ref.provider}/${ref.model}`;
  if (limitKeys.includes(own)) return own;
  return limitKeys.includes(ref.provider) ? ref.provider : undefined;
}

/** Requests a minute as the queue's requests a second. */
export const perSecond = (requestsPerMinute: number): number => requestsPerMinute / 60;
