export {
  defineTool,
  RetryableToolError,
  ToolRegistrationError,
  type FunctionSpec,
  type ToolDefinition,
  type ToolExecutionContext,
  type ToolOptions,
} from './define';
export { ToolRegistry, type ToolRegistryOptions } from './registry';
export { builtinTools, type BuiltinToolOptions } from './builtin';
export { guardedFetch } from './builtin/fetch';
export { braveSearchProvider, type WebSearchProvider, type WebSearchResult } from './builtin/web-search';
export { McpPool } from './mcp/pool';
export { runClientToolEntry } from './client-tools';
export {
  loadMcpConfig,
  mcpServersFrom,
  parseMcpConfig,
  readMcpConfigFile,
  McpConfigError,
  type McpEnv,
  type NamedMcpServer,
} from './mcp/mcp-config';

import { builtinTools, type BuiltinToolOptions } from './builtin';
import { braveSearchProvider } from './builtin/web-search';
import type { McpEnv } from './mcp/mcp-config';
import { ToolRegistry, type ToolRegistryOptions } from './registry';

/** Environment variable with the comma-separated stdio commands a worker lets runs' MCP configs start. */
export const MCP_COMMANDS_ENV = 'DURABLE_AGENTS_MCP_COMMANDS';

/** What a worker's tools take from its config (environment variables, read once at start). */
export interface ToolsConfig {
  /** Commands a run's MCP config may start (`DURABLE_AGENTS_MCP_COMMANDS`); absent: any. */
  mcpAllowedCommands?: string[];
  /** The environment `${VAR}` in a run's MCP config reads. */
  mcpEnv: McpEnv;
  /** Brave Search (`BRAVE_SEARCH_API_KEY`, `BRAVE_SEARCH_BASE_URL`); absent: no `web_search` tool. */
  braveSearch?: { apiKey: string; baseUrl?: string };
}

/** A registry with the built-in tools registered: what a worker normally uses. */
export function createToolRegistry(
  options: ToolRegistryOptions & { builtins?: BuiltinToolOptions | false } = {},
): ToolRegistry {
  const registry = new ToolRegistry(options);
  if (options.builtins !== false) for (const tool of builtinTools(options.builtins)) registry.register(tool, 'builtin');
  return registry;
}

/** The worker's registry: the built-in tools, with the MCP settings and search backend of its config. */
export function configuredToolRegistry(config: ToolsConfig, options: ToolRegistryOptions = {}): ToolRegistry {
  return createToolRegistry({
    ...options,
    mcpAllowedCommands: config.mcpAllowedCommands,
    mcpEnv: config.mcpEnv,
    builtins: { webSearch: config.braveSearch ? braveSearchProvider(config.braveSearch) : false },
  });
}
