// One tool call through Temporal, as a run sees it: agent runs of N tool turns each (default 50) on a
// dev server with one in-process worker, one run per kind of tool: a registered tool run as a
// regular activity (heartbeats, its own timeout), and an MCP tool over stdio (server-filesystem,
// pooled connection). A call lasts from its `tool_start` event (the workflow schedules it) to its
// `tool_execution` event (the workflow has its result), in workflow time. The baseline is the same
// call made in-process through the same registry, without Temporal. Target (the seed's): one call
// under 5 s.
// Run: node -r ./scripts/register-ts.js bench/tool-calls.ts [turns] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import type { AgentEvent } from '../src/contracts/agent-events';
import type { ToolSelection } from '../src/contracts/tool-catalog';
import { reply, startFakeProvider } from '../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../src/tools';
import { agentWorker, benchArgs, figure, percentile, round, runBench, startBenchServer, writeBenchResult } from './kit';

const args = benchArgs();
const TURNS = args.sizes[0] ?? (args.smoke ? 4 : 50);
const MODEL = 'openai/gpt-4.1';
const TARGET = '<= 5000';

/** A registered tool that runs as a regular activity (not local): what a tool with I/O usually is. */
const recordTool = defineTool({
  name: 'fetch_record',
  description: 'Fetches a record.',
  parameters: z.object({ n: z.number() }),
  local: false,
  execute: ({ n }) => ({ record: n, body: 'r'.repeat(512) }),
});

interface ToolCase {
  key: string;
  label: string;
  tool: string;
  args: (n: number) => Record<string, unknown>;
}

/** Each call's time from the workflow scheduling it to the workflow holding its result. */
function callTimes(events: AgentEvent[]): number[] {
  const started = new Map<string, number>();
  const times: number[] = [];
  for (const e of events) {
    if (e.type === 'tool_start') started.set(e.toolCallId, e.at);
    if (e.type === 'tool_execution' && started.has(e.toolCallId)) times.push(e.at - (started.get(e.toolCallId) ?? 0));
  }
  return times;
}

/** The same call in-process, through the same registry: the baseline, per call in ms (median). */
async function inProcess(registry: ToolRegistry, c: ToolCase, selection: ToolSelection): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= TURNS; i++) {
    const started = performance.now();
    await registry.execute({ runId: 'bench', toolCallId: `c${i}`, name: c.tool, args: c.args(i), selection });
    if (i > 0) times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

async function main(): Promise<boolean> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tool-calls-'));
  fs.writeFileSync(path.join(dir, 'note.txt'), 'n'.repeat(4096));
  const serverFilesystem = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  // The worker's own server, as its config file declares it; the runs name it.
  const mcpServers = [{ name: 'files', config: { command: process.execPath, args: [serverFilesystem, dir] } }];
  const selection: ToolSelection = { mcpServers: ['files'] };
  const cases: ToolCase[] = [
    { key: 'activity', label: 'registered tool as a regular activity', tool: 'fetch_record', args: (n) => ({ n }) },
    {
      key: 'mcp',
      label: 'MCP tool over stdio (read_text_file, 4 KiB)',
      tool: 'read_text_file',
      args: () => ({ path: path.join(dir, 'note.txt') }),
    },
  ];
  const server = await startBenchServer(args);
  const fake = await startFakeProvider();
  const registry = new ToolRegistry({ mcpServers }).register(recordTool);
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const parts = await agentWorker(fake, registry, dir);
    const taskQueue = 'bench-tool-calls';
    const worker = await Worker.create({ connection, taskQueue, plugins: [parts.plugin()] });
    const agents = new AgentClient(new Client({ connection }), taskQueue);
    const figures: Record<string, ReturnType<typeof figure>> = {};
    const details: Record<string, unknown> = {};
    await worker.runUntil(async () => {
      for (const c of cases) {
        let turn = 0;
        fake.respond(() =>
          ++turn > TURNS ? reply.text('Done.') : reply.toolCalls([{ name: c.tool, arguments: c.args(turn) }]),
        );
        const id = await agents.start({
          context: { mask: false },
          task: `Call ${c.tool} ${TURNS} times.`,
          model: MODEL,
          tools: { allow: [c.tool], ...selection },
          limits: { maxTurns: TURNS + 2 },
        });
        const result = await agents.result(id);
        if (result.stopReason !== 'completed') throw new Error(`the ${c.key} run ended ${result.stopReason}`);
        const times = callTimes((await agents.state(id)).events);
        if (times.length !== TURNS) throw new Error(`the ${c.key} run made ${times.length} calls, not ${TURNS}`);
        const baseline = await inProcess(registry, c, selection);
        figures[`${c.key}P50Ms`] = figure(
          percentile(times, 50),
          'ms',
          `one tool call through Temporal, p50: ${c.label}`,
          {
            baseline,
          },
        );
        figures[`${c.key}P95Ms`] = figure(
          percentile(times, 95),
          'ms',
          `one tool call through Temporal, p95: ${c.label}`,
          {
            target: TARGET,
          },
        );
        details[c.key] = { calls: times.length, maxMs: Math.max(...times), inProcessP50Ms: round(baseline, 3) };
      }
    });
    writeBenchResult('tool-calls', figures, {
      args,
      description: `${TURNS} tool turns per kind of tool (a regular activity, MCP over stdio) on a dev server, against the same call in-process`,
      details,
    });
    return Object.values(figures).every((f) => f.met !== false);
  } finally {
    await connection.close();
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
