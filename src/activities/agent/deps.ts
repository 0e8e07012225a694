/** What the agent activities need from the rest of the worker. */
import type { SecretSet } from '../../common/secrets';
import type { ToolActivities } from '../../contracts/tool-catalog';
import type { LlmClient } from '../../llm';
import type { ContentStore } from '../../store';

/** The LLM layer bound to the worker's config, as the model activities use it. */
export type ModelCaller = Pick<LlmClient, 'complete' | 'stream' | 'describe'>;

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
}
