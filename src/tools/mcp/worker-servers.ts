/**
 * The MCP part of the worker's config file: the servers its operator declares (`mcpServers`, the
 * usual format, picked by runs by name) and whether runs may bring their own (`runMcpConfigs`).
 * The worker reads it with `${VAR}` expanded from its environment; the CLI reads the same file to
 * refuse an unknown name before a run starts.
 */
import { z } from 'zod';
import { isPlainObject } from '../../common/type-helpers';
import { McpConfigError, mcpServersSchema, namedServers, type McpParseOptions } from './mcp-config';
import { runMcpPolicySchema } from './run-config-policy';
import type { WorkerMcpServers } from './run-servers';

/** One layer of the config: the file, or config given inline on top of it. */
export interface ConfigPart {
  source: string;
  raw: unknown;
}

function parsed<T extends z.ZodType>(schema: T, value: unknown, field: string, source: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new McpConfigError(`Invalid "${field}" in ${source}:\n${z.prettifyError(result.error)}`);
  return result.data;
}

/**
 * The MCP servers and opt-in the config declares. A later part's server replaces an earlier one of
 * the same name and its `runMcpConfigs` replaces the earlier one; disabled servers are left out.
 * `expand` expands `${VAR}` (the worker); without it values stay as written (the CLI, which only
 * needs the names).
 */
export function declaredMcp(parts: readonly ConfigPart[], expand?: McpParseOptions['expand']): WorkerMcpServers {
  const servers = new Map<string, WorkerMcpServers['servers'][number]>();
  let runConfigs: WorkerMcpServers['runConfigs'];
  for (const { source, raw } of parts) {
    if (!isPlainObject(raw)) continue;
    if (raw.mcpServers !== undefined) {
      const record = parsed(mcpServersSchema, raw.mcpServers, 'mcpServers', source);
      for (const name of Object.keys(record)) servers.delete(name);
      for (const server of namedServers(record, source, { expand })) servers.set(server.name, server);
    }
    if (raw.runMcpConfigs !== undefined)
      runConfigs = parsed(runMcpPolicySchema, raw.runMcpConfigs, 'runMcpConfigs', source);
  }
  return { servers: [...servers.values()], ...(runConfigs ? { runConfigs } : {}) };
}
