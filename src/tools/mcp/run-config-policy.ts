/**
 * What a worker lets runs bring as their own MCP servers (`runMcpConfigs` in its config file).
 * Without it a run uses only the servers the worker's operator declares, by name.
 */
import path from 'node:path';
import { z } from 'zod';
import { isStdioServer, type NamedMcpServer } from './mcp-config';

/** The opt-in: which servers a run's own MCP config may name. Every value of such a config is taken as written. */
export interface RunMcpPolicy {
  /**
   * URLs a run's Streamable HTTP server may use: same scheme, host and port, and a path at or below
   * the entry's (`https://mcp.example.com/` allows every path there). Redirects are not followed.
   */
  urls: string[];
  /**
   * Commands a run's stdio server may start, matched exactly. The run chooses the arguments and
   * the environment, so `npx`, `uvx`, a shell or an interpreter here lets runs execute arbitrary
   * code on the worker.
   */
  commands: string[];
  /** The directory `tools.mcpConfigPath` is read from (real paths checked); absent: runs may not name a path. */
  configDir?: string;
}

/** `runMcpConfigs` of the config file; a relative `configDir` is resolved against the worker's working directory. */
export const runMcpPolicySchema = z
  .strictObject({
    urls: z.array(z.url({ protocol: /^https?$/ })).default([]),
    commands: z.array(z.string().min(1)).default([]),
    configDir: z.string().min(1).optional(),
  })
  .transform((p): RunMcpPolicy => ({
    ...p,
    ...(p.configDir !== undefined ? { configDir: path.resolve(p.configDir) } : {}),
  }));

/** True when `url` is one of `allowed`, or on the same origin at or below one's path. */
export function urlAllowed(url: string, allowed: readonly string[]): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  return allowed.some((entry) => {
    const base = new URL(entry);
    if (base.protocol !== target.protocol || base.host !== target.host) return false;
    const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
    return target.pathname === base.pathname || target.pathname.startsWith(prefix);
  });
}

/**
 * Why the first of a run's servers may not be used under the policy (one line), or undefined.
 * `quote: false` leaves the refused URL or command out (a config read from a file on the worker).
 */
export function runServerProblem(
  servers: readonly NamedMcpServer[],
  policy: RunMcpPolicy,
  quote = true,
): string | undefined {
  for (const { name, config } of servers) {
    if (isStdioServer(config)) {
      if (!policy.commands.includes(config.command))
        return (
          `This worker does not start the command${quote ? ` "${config.command}"` : ''} of the run's MCP server ` +
          `"${name}"; commands runs may start: ${policy.commands.join(', ') || '(none)'}.`
        );
    } else if (!urlAllowed(config.url, policy.urls)) {
      return (
        `This worker does not connect to ${quote ? config.url : 'the URL'} of the run's MCP server "${name}"; ` +
        `URLs runs may use: ${policy.urls.join(', ') || '(none)'}.`
      );
    }
  }
  return undefined;
}
