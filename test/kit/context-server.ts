import { REPO_ROOT } from './env';

/**
 * A small stdio MCP server built on the real MCP SDK, for tests of context passing, server errors,
 * restarts and catalogue pinning. It runs as `node --input-type=module -e <source>` from the repo
 * root so its imports resolve. DESCRIPTION_FILE (optional) holds the description of `whoami`.
 */
const SOURCE = `
import fs from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const descriptionFile = process.env.DESCRIPTION_FILE;
const description = descriptionFile ? fs.readFileSync(descriptionFile, 'utf8') : 'Report the call context';
const server = new McpServer({ name: 'context-server', version: '1.0.0' });
server.registerTool('whoami', { description, inputSchema: { note: z.string().optional() }, annotations: { readOnlyHint: true } }, async (args, extra) => ({
  content: [{ type: 'text', text: JSON.stringify({ args, meta: extra._meta ?? null, pid: process.pid }) }],
}));
server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => {
  throw new Error('database unavailable');
});
server.registerTool('crash', { description: 'Exit the server process', inputSchema: {} }, async () => {
  process.exit(3);
});
await server.connect(new StdioServerTransport());
`;

/** The `mcpServers` entry that starts the server. */
export function contextServerConfig(env: Record<string, string> = {}) {
  return { command: process.execPath, args: ['--input-type=module', '-e', SOURCE], cwd: REPO_ROOT, env };
}
