export { defineTool, RetryableToolError, ToolRegistrationError, type FunctionSpec, type ToolDefinition, type ToolExecutionContext, type ToolOptions } from './define';
export { ToolRegistry, type ToolRegistryOptions } from './registry';
export { builtinTools, type BuiltinToolOptions } from './builtin/index';
export { guardedFetch } from './builtin/fetch';
export { braveSearchProvider, type WebSearchProvider, type WebSearchResult } from './builtin/web-search';
export { McpPool } from './mcp/pool';
export { loadMcpConfig, mcpServersFrom, parseMcpConfig, readMcpConfigFile, McpConfigError, type NamedMcpServer } from './mcp/config';

import { builtinTools, type BuiltinToolOptions } from './builtin/index';
import { ToolRegistry, type ToolRegistryOptions } from './registry';

/** A registry with the built-in tools registered: what a worker normally uses. */
export function createToolRegistry(options: ToolRegistryOptions & { builtins?: BuiltinToolOptions | false } = {}): ToolRegistry {
  const registry = new ToolRegistry(options);
  if (options.builtins !== false) for (const tool of builtinTools(options.builtins)) registry.register(tool, 'builtin');
  return registry;
}
