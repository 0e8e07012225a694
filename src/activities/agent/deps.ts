/** What the agent activities need from the rest of the worker. */
import type { SecretSet } from '../../common/secrets';
import type { ToolActivities } from '../../contracts/tool-catalog';
import type { ModelRef } from '../../contracts/model-ref';
import type { LlmClient } from '../../llm';
import type { ContentStore } from '../../store';

/** The LLM layer bound to the worker's config, as the model activities use it. */
export type ModelCaller = Pick<LlmClient, 'complete' | 'stream' | 'describe'>;

/**
 * Where a model's calls go, as the worker knows it now: the limits of its config and those the
 * server holds for the fleet (`worker/limit-routes.ts`).
 */
export interface CallRoutes {
  /** Asks the server about `ref`'s limits the first time the worker sees the model (later, its sweep keeps them). */
  refresh(ref: ModelRef): Promise<void>;
  /** The limit `ref`'s calls fall under, or undefined for none. */
  keyOf(ref: ModelRef): string | undefined;
  /**
   * The limit whose queue a call of `ref` that reached the worker on `taskQueue` belongs on instead:
   * the run's own queue or its provider's for a model with a limit of its own; undefined when the
   * call is where it belongs.
   */
  moveFrom(taskQueue: string, ref: ModelRef): string | undefined;
}

export interface AgentActivityDeps {
  store: ContentStore;
  llm: ModelCaller;
  /** The worker's tool activities; `runTool` delegates to `executeTool` and stores the result. */
  tools: ToolActivities;
  /** Least ms between two writes of a streaming model call's pieces to its run's token stream. */
  tokenBatchMs?: number;
  /** Replaced in the tokens a streaming model call writes (results, failures, bodies: see the worker). */
  secrets?: SecretSet;
  /** Put messages, tool arguments and results in the calls' spans (the operator's opt-in). */
  captureContent?: boolean;
  /** Where model calls go; without it, a call is made on whatever queue it reached. */
  routes?: CallRoutes;
}
