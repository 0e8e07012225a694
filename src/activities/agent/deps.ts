/** What the agent activities need from the rest of the worker. */
import type { AssistantMessage, ModelRequest } from '../../shared/messages';
import type { StreamEvent } from '../../shared/stream-events';
import type { ToolActivities } from '../../shared/tool-catalog';
import type { ContentStore } from '../../store';

/** The LLM layer's entry points, as the model-call activity uses them. */
export interface ModelCaller {
  complete(request: ModelRequest, ctx?: { signal?: AbortSignal }): Promise<AssistantMessage>;
  stream(request: ModelRequest, ctx?: { signal?: AbortSignal }): AsyncIterable<StreamEvent>;
}

export interface AgentActivityDeps {
  store: ContentStore;
  llm: ModelCaller;
  /** The worker's tool activities; `runTool` delegates to `executeTool` and stores the result. */
  tools: ToolActivities;
}

/** Failure type of content-store problems (a gap in a log, a missing body): not retryable. */
export const AGENT_STORE_FAILURE = 'AgentStoreError';

/** Failure type of a store that cannot be reached (database down, connection broken): retried. */
export const AGENT_STORE_UNAVAILABLE = 'AgentStoreUnavailable';
