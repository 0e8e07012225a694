import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { McpConfigError, isStdioServer, type NamedMcpServer } from './mcp-config';

const CLIENT_INFO = { name: 'durable-agents', version: '0.1.0' };

/** A tool as one MCP server lists it. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Hints from the server (readOnlyHint, …). Informational only: they never decide approvals. */
  annotations?: Record<string, unknown>;
}

interface Connection {
  client: Client;
  closed: boolean;
  tools?: McpTool[];
  /** The pool entry that opened it: only that entry may be dropped on its behalf. */
  opening?: Promise<Connection>;
}

/** Failure to reach or talk to an MCP server: an infrastructure failure the activity retries. */
export class McpConnectionError extends Error {
  override name = 'McpConnectionError';
}

function connectionKey(server: NamedMcpServer): string {
  return `${server.name}\u0000${server.fromRun ? 'run' : 'worker'}\u0000${JSON.stringify(server.config)}`;
}

const STDERR_TAIL_CHARS = 2_000;

/** The transport of a server, and the tail of a stdio server's stderr for error messages. */
function transportFor(server: NamedMcpServer): { transport: Transport; stderrTail: () => string } {
  const { config } = server;
  if (isStdioServer(config)) {
    // The SDK merges `env` over a small safe default (PATH, HOME, …), not over the worker's whole environment.
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      cwd: config.cwd,
      stderr: 'pipe',
    });
    let tail = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    return { transport, stderrTail: () => tail.trim() };
  }
  // A run's server was allowed by its URL: a redirect (even within its origin) would leave that URL.
  const requestInit: RequestInit = { headers: config.headers, ...(server.fromRun ? { redirect: 'error' } : {}) };
  return { transport: new StreamableHTTPClientTransport(new URL(config.url), { requestInit }), stderrTail: () => '' };
}

function toMcpTool(tool: Tool): McpTool {
  const { $schema: _dialect, ...inputSchema } = tool.inputSchema as Record<string, unknown>;
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema,
    annotations: tool.annotations as Record<string, unknown> | undefined,
  };
}

/**
 * MCP client connections shared by every activity of a worker process, one per configured server.
 * A connection that closes (server exited, HTTP session lost) is dropped and reopened on next use.
 */
export class McpPool {
  private readonly connections = new Map<string, Promise<Connection>>();

  private connect(server: NamedMcpServer, timeoutMs: number): Promise<Connection> {
    const key = connectionKey(server);
    const existing = this.connections.get(key);
    if (existing) return existing;
    const client = new Client(CLIENT_INFO);
    const connection: Connection = { client, closed: false };
    const opening = (async () => {
      client.onclose = () => {
        connection.closed = true;
        this.drop(key, connection);
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        connection.tools = undefined;
      });
      const { transport, stderrTail } = transportFor(server);
      try {
        await client.connect(transport, { timeout: timeoutMs });
      } catch (err) {
        await client.close().catch(() => undefined);
        if (isStdioServer(server.config) && isMissingCommand(err))
          throw new McpConfigError(
            `MCP server "${server.name}" cannot start: its command "${server.config.command}" was not found ` +
              `on the worker (${(err as Error).message})`,
          );
        const stderr = stderrTail();
        throw new McpConnectionError(
          `Cannot connect to MCP server "${server.name}": ` +
            `${(err as Error).message}${stderr ? `\nServer stderr:\n${stderr}` : ''}`,
        );
      }
      return connection;
    })();
    connection.opening = opening;
    this.connections.set(key, opening);
    opening.catch(() => this.drop(key, connection));
    return opening;
  }

  /** Forgets a connection, unless a newer one already took its place. */
  private drop(key: string, connection: Connection): void {
    if (this.connections.get(key) === connection.opening) this.connections.delete(key);
  }

  /** Forgets and closes a connection whose transport failed. */
  private async discard(server: NamedMcpServer, connection: Connection): Promise<void> {
    this.drop(connectionKey(server), connection);
    await connection.client.close().catch(() => undefined);
  }

  /** A live connection, reopening it when the previous one died. */
  private async live(server: NamedMcpServer, timeoutMs: number): Promise<Connection> {
    const connection = await this.connect(server, timeoutMs);
    if (!connection.closed) return connection;
    this.drop(connectionKey(server), connection);
    return this.connect(server, timeoutMs);
  }

  /** The server's tools, cached until the server says its list changed or `refresh` is set. */
  async listTools(server: NamedMcpServer, options: { refresh?: boolean; timeoutMs?: number } = {}): Promise<McpTool[]> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const connection = await this.live(server, timeoutMs);
    if (connection.tools && !options.refresh) return connection.tools;
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await connection.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
        tools.push(...page.tools.map(toMcpTool));
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      if (connection.closed || isTransportFailure(err)) await this.discard(server, connection);
      throw new McpConnectionError(`MCP server "${server.name}" failed to list its tools: ${(err as Error).message}`);
    }
    connection.tools = tools;
    return tools;
  }

  /**
   * Calls a tool. Errors the server reports (JSON-RPC errors, `isError` results) come back as a
   * result with `isError: true`; a connection that fails is dropped and the error thrown as
   * {@link McpConnectionError}, so the activity retries on a fresh connection.
   */
  async callTool(
    server: NamedMcpServer,
    request: { name: string; arguments: Record<string, unknown>; meta: Record<string, unknown> },
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<CallToolResult> {
    const connection = await this.live(server, options.timeoutMs);
    try {
      return (await connection.client.callTool(
        { name: request.name, arguments: request.arguments, _meta: request.meta },
        undefined,
        { timeout: options.timeoutMs, signal: options.signal },
      )) as CallToolResult;
    } catch (err) {
      if (connection.closed || isTransportFailure(err)) {
        await this.discard(server, connection);
        throw new McpConnectionError(`MCP server "${server.name}" connection failed: ${(err as Error).message}`);
      }
      return {
        content: [{ type: 'text', text: `MCP server "${server.name}" returned an error: ${(err as Error).message}` }],
        isError: true,
      };
    }
  }

  /** Closes every connection (stdio servers exit). */
  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map(async (c) => (await c.catch(() => undefined))?.client.close().catch(() => undefined)));
  }
}

/** A stdio server whose command (or working directory) does not exist, or may not be run: trying again cannot help. */
function isMissingCommand(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'EACCES';
}

/**
 * A JSON-RPC error the server answered with (`McpError`) is the tool's failure; a closed
 * connection, an HTTP-level error (such as a lost session) or anything else is the transport's.
 */
function isTransportFailure(err: unknown): boolean {
  return !(err instanceof McpError) || err.code === ErrorCode.ConnectionClosed;
}
