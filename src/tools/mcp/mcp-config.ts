import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { McpServersConfig } from '../../contracts/tool-catalog';
import { parseJson } from '../../common/json-text';

const stdioServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  disabled: z.boolean().optional(),
});

const httpServer = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'streamableHttp']).optional(),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  disabled: z.boolean().optional(),
});

const SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;
const SERVER_NAME_RULE = 'server names use letters, digits, "_" and "-" (at most 32)';

/** The servers of an `mcpServers` config by name. */
export const mcpServersSchema = z.record(z.string(), z.union([stdioServer, httpServer])).superRefine((servers, ctx) => {
  for (const name of Object.keys(servers)) {
    if (!SERVER_NAME.test(name))
      ctx.addIssue({ code: 'custom', path: [name], message: `server name "${name}": ${SERVER_NAME_RULE}` });
  }
});

/** The widely used `mcpServers` file format (Claude Desktop, Cursor, …). */
const mcpConfigSchema = z.object({ mcpServers: mcpServersSchema });

export type McpStdioServer = z.output<typeof stdioServer>;
type McpHttpServer = z.output<typeof httpServer>;
export type McpServerConfig = McpStdioServer | McpHttpServer;
export interface NamedMcpServer {
  name: string;
  config: McpServerConfig;
  /** Brought by a run (`tools.mcpConfig`, `tools.mcpConfigPath`) rather than declared by the worker's operator. */
  fromRun?: true;
}

/** A config that cannot be used, or a server a run may not use: the message says which and what to fix. */
export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

export function isStdioServer(config: McpServerConfig): config is McpStdioServer {
  return 'command' in config;
}

/** Told every value a config takes from the worker's environment: they are secrets the worker keeps to itself. */
export type OnSecret = (value: string) => void;

/** What `${VAR}` in the operator's MCP servers reads: the worker's environment, as its config read it at start. */
export type McpEnv = Readonly<Record<string, string | undefined>>;

export interface McpParseOptions {
  /**
   * Expands `${VAR}` in env values and headers from `env`, passing each value taken to `onSecret`:
   * for the servers the worker's operator declares. Absent: every value is taken as written.
   */
  expand?: { env: McpEnv; onSecret?: OnSecret };
  /** False: errors name the source and quote none of its content (a file a run names on the worker). */
  quote?: boolean;
}

/** Replaces `${VAR}` with the worker's environment, so secrets stay out of the file. */
function expand(value: string, env: McpEnv, where: string, onSecret?: OnSecret): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const found = env[name];
    if (found === undefined)
      throw new McpConfigError(`${where} refers to \${${name}}, which is not set in the worker's environment.`);
    onSecret?.(found);
    return found;
  });
}

function expandAll(
  record: Record<string, string> | undefined,
  where: string,
  expansion: McpParseOptions['expand'],
): Record<string, string> | undefined {
  if (!record || !expansion) return record;
  const { env, onSecret } = expansion;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v, env, `${where} "${k}"`, onSecret)]));
}

function parseConfigJson(text: string, source: string, quote = true): unknown {
  try {
    return parseJson(text);
  } catch (err) {
    throw new McpConfigError(`${source} is not valid JSON${quote ? `: ${(err as Error).message}` : '.'}`);
  }
}

function validate(json: unknown, source: string, quote = true): z.output<typeof mcpConfigSchema> {
  const parsed = mcpConfigSchema.safeParse(json);
  if (!parsed.success) {
    const rule = `each server needs "command" for stdio or "url" for Streamable HTTP; ${SERVER_NAME_RULE}`;
    throw new McpConfigError(
      quote
        ? `${source} is not a valid mcpServers config (${rule}):\n${z.prettifyError(parsed.error)}`
        : `${source} is not a valid mcpServers config (${rule}).`,
    );
  }
  return parsed.data;
}

/** The enabled servers of a validated `mcpServers` record, with `${VAR}` expanded when asked. */
export function namedServers(
  servers: z.output<typeof mcpServersSchema>,
  source: string,
  options: McpParseOptions = {},
): NamedMcpServer[] {
  return Object.entries(servers)
    .filter(([, config]) => !config.disabled)
    .map(([name, config]) => {
      const where = `${source}: server "${name}"`;
      if (isStdioServer(config))
        return { name, config: { ...config, env: expandAll(config.env, `${where} env`, options.expand) } };
      return { name, config: { ...config, headers: expandAll(config.headers, `${where} header`, options.expand) } };
    });
}

/** Parses config text. Disabled servers are left out; `${VAR}` is expanded only as `options.expand` says. */
export function parseMcpConfig(text: string, source: string, options: McpParseOptions = {}): NamedMcpServer[] {
  return mcpServersFrom(parseConfigJson(text, source, options.quote), source, options);
}

/** Like {@link parseMcpConfig}, for a config already parsed from JSON (e.g. a run's inline `mcpConfig`). */
export function mcpServersFrom(json: unknown, source: string, options: McpParseOptions = {}): NamedMcpServer[] {
  return namedServers(validate(json, source, options.quote).mcpServers, source, options);
}

/**
 * Reads and validates a config file for sending it with a run (`ToolSelection.mcpConfig`), as the
 * CLI's `--mcp FILE` does. Its values travel as written: a worker never expands a run's `${VAR}`.
 */
export async function readMcpConfigFile(path: string): Promise<McpServersConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new McpConfigError(`Cannot read MCP config ${path}: ${(err as Error).message}`);
  }
  const json = parseConfigJson(text, path);
  validate(json, path);
  return json as McpServersConfig;
}
