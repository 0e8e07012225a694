/** What the agent activities need from the rest of the worker. */
import type { AssistantMessage, ModelRequest } from '../../contracts/message-model';
import type { StreamEvent } from '../../contracts/stream-events';
import type { ToolActivities } from '../../contracts/tool-catalog';
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
