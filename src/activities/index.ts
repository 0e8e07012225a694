import type { ModelCaller } from './agent/deps';
import { createAgentActivities } from './agent';
import { createPevActivities } from './pev';
import { createToolActivities } from './tool-activities';
import { FileContentStore, type ContentStore } from '../store';
import { createToolRegistry, type ToolRegistry } from '../tools';

/** What the worker's activities are built from; every part has a production default. */
export interface ActivityDependencies {
  /** Default: the local-disk store (`DURABLE_AGENTS_STORE_DIR`). */
  store?: ContentStore;
  /** Default: a registry with the built-in tools (MCP servers per run config). */
  tools?: ToolRegistry;
  /** Default: the LLM layer (providers configured from the environment). */
  llm?: ModelCaller;
}

/** The worker's activity map and what to release when the worker stops. */
export interface WorkerActivities {
  activities: Record<string, (...args: never[]) => Promise<unknown>>;
  /** Closes MCP connections the tools opened. */
  close(): Promise<void>;
}

/** The full activity map the project's worker registers: every workflow's activities. */
export function createActivities(deps: ActivityDependencies = {}): WorkerActivities {
  const store = deps.store ?? new FileContentStore();
  const registry = deps.tools ?? createToolRegistry();
  const tools = createToolActivities(registry);
  return {
    activities: {
      ...tools,
      ...createAgentActivities({ store, tools, llm: deps.llm }),
      ...createPevActivities({ store }),
    },
    close: () => registry.close(),
  };
}
