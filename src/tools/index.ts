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
  type NamedMcpServer,
} from './mcp/mcp-config';

import { builtinTools, type BuiltinToolOptions } from './builtin';
import { ToolRegistry, type ToolRegistryOptions } from './registry';

/** Environment variable with the comma-separated stdio commands a worker lets runs' MCP configs start. */
export const MCP_COMMANDS_ENV = 'DURABLE_AGENTS_MCP_COMMANDS';

/**
 * A registry with the built-in tools registered: what a worker normally uses. Without
 * `mcpAllowedCommands`, the list comes from `DURABLE_AGENTS_MCP_COMMANDS` when it is set.
 */
export function createToolRegistry(
  options: ToolRegistryOptions & { builtins?: BuiltinToolOptions | false } = {},
  env: NodeJS.ProcessEnv = process.env,
): ToolRegistry {
  const fromEnv = env[MCP_COMMANDS_ENV]?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  const registry = new ToolRegistry({ ...options, mcpAllowedCommands: options.mcpAllowedCommands ?? fromEnv });
  if (options.builtins !== false) for (const tool of builtinTools(options.builtins)) registry.register(tool, 'builtin');
  return registry;
}
