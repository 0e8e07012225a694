import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { McpServersConfig } from '../../contracts/tool-catalog';

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

/** The widely used `mcpServers` file format (Claude Desktop, Cursor, …). */
const mcpConfigSchema = z.object({
  mcpServers: z.record(z.string(), z.union([stdioServer, httpServer])).superRefine((servers, ctx) => {
    for (const name of Object.keys(servers)) {
      if (!SERVER_NAME.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `server name "${name}": server names use letters, digits, "_" and "-" (at most 32)`,
        });
      }
    }
  }),
});

export type McpStdioServer = z.output<typeof stdioServer>;
type McpHttpServer = z.output<typeof httpServer>;
export type McpServerConfig = McpStdioServer | McpHttpServer;
export interface NamedMcpServer {
  name: string;
  config: McpServerConfig;
}

/** A config file that cannot be used: the message says which file and what to fix. */
export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

export function isStdioServer(config: McpServerConfig): config is McpStdioServer {
  return 'command' in config;
}

/** Told every value a config takes from the worker's environment: they are secrets the worker keeps to itself. */
export type OnSecret = (value: string) => void;

/** The variables `${VAR}` in an MCP config reads: the worker's environment, as its config read it at start. */
export type McpEnv = Readonly<Record<string, string | undefined>>;

/** Replaces `${VAR}` in env values and headers with the worker's environment, so secrets stay out of the file. */
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
  env: McpEnv,
  where: string,
  onSecret?: OnSecret,
): Record<string, string> | undefined {
  if (!record) return undefined;
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v, env, `${where} "${k}"`, onSecret)]));
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
}

function validate(json: unknown, source: string): z.output<typeof mcpConfigSchema> {
  const parsed = mcpConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new McpConfigError(
      `${source} is not a valid mcpServers config (each server needs "command" for stdio or "url" for ` +
        `Streamable HTTP):\n${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

/**
 * Parses config text. Disabled servers are left out; `${VAR}` in env values and headers is
 * expanded, and each value taken from the environment is passed to `onSecret`.
 */
export function parseMcpConfig(text: string, source: string, env: McpEnv, onSecret?: OnSecret): NamedMcpServer[] {
  return mcpServersFrom(parseJson(text, source), source, env, onSecret);
}

/** Like {@link parseMcpConfig}, for a config already parsed from JSON (e.g. a run's inline `mcpConfig`). */
export function mcpServersFrom(json: unknown, source: string, env: McpEnv, onSecret?: OnSecret): NamedMcpServer[] {
  return Object.entries(validate(json, source).mcpServers)
    .filter(([, config]) => !config.disabled)
    .map(([name, config]) => {
      const where = `${source}: server "${name}"`;
      if (isStdioServer(config))
        return { name, config: { ...config, env: expandAll(config.env, env, `${where} env`, onSecret) } };
      return { name, config: { ...config, headers: expandAll(config.headers, env, `${where} header`, onSecret) } };
    });
}

/** Reads and parses the config file at `path` (a run's `mcpConfigPath`), expanding `${VAR}` from `env`. */
export async function loadMcpConfig(path: string, env: McpEnv, onSecret?: OnSecret): Promise<NamedMcpServer[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new McpConfigError(`Cannot read MCP config ${path}: ${(err as Error).message}`);
  }
  return parseMcpConfig(text, path, env, onSecret);
}

/**
 * Reads and validates a config file for sending it with a run (`ToolSelection.mcpConfig`), as the
 * CLI's `--mcp FILE` does. `${VAR}` references stay as they are: the worker expands them.
 */
export async function readMcpConfigFile(path: string): Promise<McpServersConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new McpConfigError(`Cannot read MCP config ${path}: ${(err as Error).message}`);
  }
  const json = parseJson(text, path);
  validate(json, path);
  return json as McpServersConfig;
}
