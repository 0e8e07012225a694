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
  mcpServersFrom,
  parseMcpConfig,
  readMcpConfigFile,
  McpConfigError,
  type McpEnv,
  type McpParseOptions,
  type NamedMcpServer,
} from './mcp/mcp-config';
export type { RunMcpPolicy } from './mcp/run-config-policy';

import { builtinTools, type BuiltinToolOptions } from './builtin';
import { braveSearchProvider } from './builtin/web-search';
import { ToolRegistry, type ToolRegistryOptions } from './registry';

export { MCP_COMMANDS_ENV, type ToolsConfig } from './tools-config';
import type { ToolsConfig } from './tools-config';

/** A registry with the built-in tools registered: what a worker normally uses. */
export function createToolRegistry(
  options: ToolRegistryOptions & { builtins?: BuiltinToolOptions | false } = {},
): ToolRegistry {
  const registry = new ToolRegistry(options);
  if (options.builtins !== false) for (const tool of builtinTools(options.builtins)) registry.register(tool, 'builtin');
  return registry;
}

/** The worker's registry: the built-in tools, with the MCP servers and search backend of its config. */
export function configuredToolRegistry(config: ToolsConfig, options: ToolRegistryOptions = {}): ToolRegistry {
  return createToolRegistry({
    ...options,
    mcpServers: config.mcpServers,
    ...(config.runMcpConfigs ? { runMcpConfigs: config.runMcpConfigs } : {}),
    builtins: { webSearch: config.braveSearch ? braveSearchProvider(config.braveSearch) : false },
  });
}
