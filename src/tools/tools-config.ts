/** What a worker's tools take from its config, apart from the tools (the CLI reads it without loading them). */
import type { McpEnv } from './mcp/mcp-config';

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
