/** What a worker's tools take from its config, apart from the tools (the CLI reads it without loading them). */
import type { NamedMcpServer } from './mcp/mcp-config';
import type { RunMcpPolicy } from './mcp/run-config-policy';

/**
 * Environment variable that once listed the stdio commands runs' MCP configs could start. It is no
 * longer read: a worker with it set refuses to start, naming what replaced it ({@link MCP_COMMANDS_REPLACED}).
 */
export const MCP_COMMANDS_ENV = 'DURABLE_AGENTS_MCP_COMMANDS';

/** Why a worker with {@link MCP_COMMANDS_ENV} set does not start. */
export const MCP_COMMANDS_REPLACED =
  `${MCP_COMMANDS_ENV} is no longer read: declare the worker's MCP servers under "mcpServers" in its config file ` +
  "(runs pick them with --mcp-server NAME), and list the commands runs' own MCP configs may start under " +
  '"runMcpConfigs": { "commands": [...] } (docs/providers.md, MCP servers); then unset it.';

/** What a worker's tools take from its config (environment and config file, read once at start). */
export interface ToolsConfig {
  /** The MCP servers the worker's operator declares (`mcpServers`), `${VAR}` expanded: runs pick them by name. */
  mcpServers: NamedMcpServer[];
  /** Whether and how runs may bring their own MCP configs (`runMcpConfigs`); absent: they are refused. */
  runMcpConfigs?: RunMcpPolicy;
  /** Brave Search (`BRAVE_SEARCH_API_KEY`, `BRAVE_SEARCH_BASE_URL`); absent: no `web_search` tool. */
  braveSearch?: { apiKey: string; baseUrl?: string };
}
