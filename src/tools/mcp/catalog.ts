import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallContext, ToolCatalogEntry } from '../../contracts/tool-catalog';
import { catalogEntry } from '../fingerprint';
import { McpConfigError, type NamedMcpServer } from './mcp-config';
import type { McpPool, McpTool } from './pool';

/** A catalogue entry of an MCP tool plus what routing a call to its server needs. */
export interface McpRoute {
  entry: ToolCatalogEntry;
  server: NamedMcpServer;
  /** The tool's name on its server (the catalogue name may carry a server prefix). */
  toolName: string;
  inputSchema: Record<string, unknown>;
}

export interface McpListing {
  routes: McpRoute[];
  /** Servers that did not answer; `retryable` is false when trying again cannot help. */
  unavailable: { name: string; error: string; retryable: boolean }[];
}

function sanitize(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
}

/**
 * Lists the tools of every enabled server that answers. A tool keeps its own name unless another
 * server or a local tool uses it too; then every clashing MCP tool is named `<server>__<tool>`.
 * MCP tools run as plain server tools: annotations such as `readOnlyHint` are the server's claims
 * and never exempt a tool from approval; they are treated as side-effecting, so they get an
 * idempotency key.
 */
export async function listMcpTools(
  pool: McpPool,
  servers: NamedMcpServer[],
  localNames: ReadonlySet<string>,
): Promise<McpListing> {
  const unavailable: McpListing['unavailable'] = [];
  const listed = await Promise.all(
    servers.map(async (server) => {
      try {
        return { server, tools: await pool.listTools(server) };
      } catch (err) {
        unavailable.push({
          name: server.name,
          error: (err as Error).message,
          retryable: !(err instanceof McpConfigError),
        });
        return { server, tools: [] as McpTool[] };
      }
    }),
  );
  const uses = new Map<string, number>();
  for (const { tools } of listed)
    for (const t of tools) uses.set(sanitize(t.name), (uses.get(sanitize(t.name)) ?? 0) + 1);
  const routes: McpRoute[] = [];
  for (const { server, tools } of listed) {
    for (const tool of tools) {
      const plain = sanitize(tool.name);
      const clashes = localNames.has(plain) || (uses.get(plain) ?? 0) > 1;
      const name = clashes ? sanitize(`${server.name}__${tool.name}`) : plain;
      routes.push({
        server,
        toolName: tool.name,
        inputSchema: tool.inputSchema,
        entry: catalogEntry({
          name,
          description: tool.description,
          parameters: tool.inputSchema,
          mode: 'server',
          sideEffects: true,
          source: 'mcp',
          server: server.name,
        }),
      });
    }
  }
  return { routes, unavailable };
}

/**
 * Per-call context travels in the request's `_meta`, never in the arguments (which must match the
 * server's schema): `currentResourceId`, `currentTaskId` and `idempotencyKey`.
 */
export function callMeta(context: ToolCallContext | undefined, idempotencyKey: string): Record<string, unknown> {
  const meta: Record<string, unknown> = { idempotencyKey };
  if (context?.resourceId !== undefined) meta.currentResourceId = context.resourceId;
  if (context?.taskId !== undefined) meta.currentTaskId = context.taskId;
  return meta;
}

/** The text of an MCP tool result: text blocks as they are, other blocks as short descriptions. */
export function mcpResultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'image':
      case 'audio':
        return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
      case 'resource_link':
        return `[resource ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
      case 'resource':
        return 'text' in block.resource ? String(block.resource.text) : `[resource ${block.resource.uri}]`;
      default:
        return JSON.stringify(block);
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    return JSON.stringify(result.structuredContent, null, 2);
  return parts.join('\n');
}
