// Per-call cost of the tool layer, outside Temporal: validation and execution of a registered
// tool, rejection of malformed calls, and MCP calls over stdio (server-filesystem) and Streamable
// HTTP (server-everything) on pooled connections, plus the cold start of a stdio server.
// Prints only: records nothing in bench/results.
// Run: node -r ./scripts/register-ts.js bench/tools.ts [callsPerCase]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { z } from 'zod';
import type { ExecuteToolInput, ToolSelection } from '../src/contracts/tool-catalog';
import { ToolRegistry, defineTool, mcpServersFrom } from '../src/tools';

const CALLS = Number(process.argv[2] ?? 500);

function call(
  name: string,
  args: unknown,
  selection: ToolSelection = {},
): Omit<ExecuteToolInput, 'args'> & { args: unknown } {
  return { runId: 'bench', toolCallId: 'c', name, args, selection };
}

async function measure(label: string, n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  await fn(-1); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn(i);
  const perCall = Number(process.hrtime.bigint() - start) / 1e3 / n;
  console.log(`${label.padEnd(52)} ${perCall.toFixed(1).padStart(9)} µs/call  (${n} calls)`);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tools-'));
  fs.writeFileSync(path.join(dir, 'note.txt'), 'n'.repeat(4096));
  const port = await freePort();
  const everything = spawn(
    process.execPath,
    [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'],
    {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  await new Promise<void>((resolve) =>
    everything.stderr!.on('data', (c: Buffer) => c.toString().includes('listening') && resolve()),
  );
  // The worker's own servers, as its config file declares them; runs name them.
  const mcpServers = mcpServersFrom(
    {
      mcpServers: {
        files: {
          command: process.execPath,
          args: [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), dir],
        },
        everything: { url: `http://127.0.0.1:${port}/mcp` },
      },
    },
    'the bench config',
  );
  const selection = { mcpServers: ['files', 'everything'] };
  const registry = new ToolRegistry({ mcpServers }).register(
    defineTool({
      name: 'add',
      description: 'Add',
      parameters: z.object({ a: z.number(), b: z.number(), note: z.string().optional() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    }),
  );
  try {
    await measure('registered tool: validate + run + format', CALLS, (i) =>
      registry.execute(call('add', { a: i, b: 1 })),
    );
    await measure('registered tool: JSON text arguments', CALLS, (i) =>
      registry.execute(call('add', `{"a": ${i}, "b": 1}`)),
    );
    await measure('malformed: extra field rejected', CALLS, () => registry.execute(call('add', { a: 1, b: 2, c: 3 })));
    await measure('malformed: 1 MB string rejected', 50, () =>
      registry.execute(call('add', { a: 1, b: 2, note: 'x'.repeat(1_000_000) })),
    );

    const coldStart = process.hrtime.bigint();
    const cold = new ToolRegistry({ mcpServers });
    await cold.catalog(selection);
    console.log(
      `${'MCP cold start: spawn/connect both servers + list'.padEnd(52)} ${(Number(process.hrtime.bigint() - coldStart) / 1e6).toFixed(1).padStart(9)} ms`,
    );
    await cold.close();

    await measure('MCP stdio read_text_file (4 KiB), pooled', Math.min(CALLS, 200), () =>
      registry.execute(call('read_text_file', { path: path.join(dir, 'note.txt') }, selection)),
    );
    await measure('MCP Streamable HTTP echo, pooled', Math.min(CALLS, 200), () =>
      registry.execute(call('echo', { message: 'hi' }, selection)),
    );
  } finally {
    await registry.close();
    everything.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
