import type { SecretSet } from '../common/secrets';
import { llmClient, type LlmConfig } from '../llm';
import { createAgentActivities } from './agent';
import type { CallRoutes } from './agent/deps';
import { createPevActivities } from './pev';
import { createToolActivities } from './tool-activities';
import { redactingStore } from './redacting-store';
import { FileContentStore, type ContentStore } from '../store';
import { configuredToolRegistry, type ToolRegistry, type ToolsConfig } from '../tools';

export { redactingStore } from './redacting-store';

/** What the worker reads once from its environment and config file and hands to its activities. */
export interface ActivityConfig {
  /** Providers, models and timeouts of the LLM layer. */
  llm: LlmConfig;
  /**
   * Every credential the worker holds (the values its MCP servers take from its environment
   * included). Bodies are stored with them replaced.
   */
  secrets: SecretSet;
  /** Least ms between two writes of a streaming model call's pieces to its run's token stream. */
  tokenBatchMs: number;
  /** The built-in tools' settings: the worker's MCP servers, whether runs may bring their own, web search. */
  tools: ToolsConfig;
}

/** What the worker's activities are built from. */
export interface ActivityDependencies {
  config: ActivityConfig;
  /** Default: the file store in `.durable-agents/store` (the worker passes the store its config names). */
  store?: ContentStore;
  /** Default: a registry with the built-in tools and MCP servers `config.tools` sets. */
  tools?: ToolRegistry;
  /** Put messages, tool arguments and results in the model and tool calls' spans (the operator's opt-in). */
  captureContent?: boolean;
  /** Where model calls go (the worker's view of the fleet's limits); default: the config's limits. */
  routes?: CallRoutes;
}

/** The worker's activity map and what to release when the worker stops. */
export interface WorkerActivities {
  activities: Record<string, (...args: never[]) => Promise<unknown>>;
  /** The store the activities write conversations to (secrets redacted). */
  store: ContentStore;
  /** Closes MCP connections the tools opened. */
  close(): Promise<void>;
}

/** The full activity map the project's worker registers: every workflow's activities. */
export function createActivities(deps: ActivityDependencies): WorkerActivities {
  const { config, routes } = deps;
  const store = redactingStore(deps.store ?? new FileContentStore(), config.secrets);
  const registry = deps.tools ?? configuredToolRegistry(config.tools);
  const tools = createToolActivities(registry);
  return {
    activities: {
      ...tools,
      ...createAgentActivities({
        store,
        tools,
        llm: llmClient(config.llm, routes && ((ref) => routes.keyOf(ref))),
        tokenBatchMs: config.tokenBatchMs,
        secrets: config.secrets,
        ...(deps.captureContent ? { captureContent: true } : {}),
        ...(routes ? { routes } : {}),
      }),
      ...createPevActivities({ store }),
    },
    store,
    close: () => registry.close(),
  };
}
