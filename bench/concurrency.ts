// Concurrency: N ReAct runs at once on a real dev server with one in-process worker, each a
// scripted 3-turn conversation (tool call, tool call, final text) against the fake provider; sizes
// default to 100 and 1,000 runs. Records per size the share completed, throughput, run latency and
// the time from a run's start request to its first model answer (from history).
// Run: node -r ./scripts/register-ts.js bench/concurrency.ts [runs…] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createAgentActivities } from '../src/activities/agent';
import { createToolActivities } from '../src/activities/tool-activities';
import { AgentClient } from '../src/client';
import { llmClient, loadLlmConfig } from '../src/llm';
import { buildWorkflowBundle } from '../src/server/workflow-bundle';
import { FileContentStore } from '../src/store';
import { fakeProviderEnv, reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../src/tools';
import { benchArgs, figure, percentile, round, runBench, startBenchServer, writeBenchResult, type Figure } from './kit';

const args = benchArgs();
const SIZES = args.sizes.length > 0 ? args.sizes : args.smoke ? [5] : [100, 1000];

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

const eventMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : Number.NaN;

/** When the run's first model call completed, from its history (wall clock, this machine). */
async function firstAnswerAt(client: Client, id: string): Promise<number> {
  const history = await client.workflow.getHandle(id).fetchHistory();
  const events = history.events ?? [];
  const scheduled = new Set(
    events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [String(e.eventId)] : [],
    ),
  );
  const done = events.find((e) =>
    scheduled.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '')),
  );
  return eventMs(done?.eventTime);
}

async function concurrentRuns(agents: AgentClient, client: Client, runs: number) {
  const startedAt: number[] = [];
  const wallStart = Date.now();
  // Start requests go out 50 at a time, as a client would send them; the runs then all run at once.
  const ids: (string | undefined)[] = [];
  for (let from = 0; from < runs; from += 50) {
    const batch = Array.from({ length: Math.min(50, runs - from) }, (_, k) => from + k);
    await Promise.all(
      batch.map(async (i) => {
        startedAt[i] = Date.now();
        ids[i] = await agents
          .start({ task: `Look up two things (run ${i}).`, model: 'anthropic/claude-sonnet-4-6' })
          .catch(() => undefined);
      }),
    );
  }
  const outcomes = await Promise.all(
    ids.map((id, i) =>
      (id === undefined ? Promise.reject(new Error('not started')) : agents.result(id)).then(
        (res) => ({ ok: res.stopReason === 'completed' && res.turns === 3, ms: Date.now() - startedAt[i] }),
        () => ({ ok: false, ms: Date.now() - startedAt[i] }),
      ),
    ),
  );
  const wallMs = Date.now() - wallStart;
  const firstAnswerMs: number[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    const batch = await Promise.all(
      ids.slice(i, i + 50).map((id) => (id === undefined ? Number.NaN : firstAnswerAt(client, id))),
    );
    batch.forEach((at, k) => Number.isFinite(at) && firstAnswerMs.push(at - startedAt[i + k]));
  }
  return { wallMs, outcomes, firstAnswerMs };
}

async function main(): Promise<boolean> {
  const server = await startBenchServer(args);
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-concurrency-'));
  const registry = new ToolRegistry();
  const fake = await startFakeProvider();
  const connection = await NativeConnection.connect({ address: server.address });
  try {
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
    const client = new Client({ connection });
    const taskQueue = 'bench-concurrency';
    const largest = Math.max(...SIZES);
    const worker = await Worker.create({
      connection,
      taskQueue,
      activities,
      workflowBundle: { codePath: bundlePath },
      // Every run stays cached; activities are I/O-bound (HTTP to the fake, the file store).
      maxCachedWorkflows: Math.max(largest, 200),
      maxConcurrentActivityTaskExecutions: 200,
    });
    const agents = new AgentClient(client, taskQueue);
    const figures: Record<string, Figure> = {};
    const details: Record<string, unknown> = {};
    await worker.runUntil(async () => {
      // One run first, so the bundle is loaded and the fake warm.
      await concurrentRuns(agents, client, 1);
      for (const runs of SIZES) {
        const { wallMs, outcomes, firstAnswerMs } = await concurrentRuns(agents, client, runs);
        const completed = outcomes.filter((o) => o.ok).length;
        const latency = outcomes.map((o) => o.ms);
        figures[`completed${runs}`] = figure(completed / runs, 'share', `${runs} concurrent runs: share completed`, {
          target: '>= 1',
        });
        figures[`firstAnswerP50Ms${runs}`] = figure(
          percentile(firstAnswerMs, 50),
          'ms',
          `${runs} concurrent runs: first model answer, p50`,
          runs <= 100 ? { target: '< 2000' } : {},
        );
        details[`runs${runs}`] = {
          wallSeconds: round(wallMs / 1000, 2),
          runsPerSecond: round(runs / (wallMs / 1000), 2),
          runLatencyMs: { p50: percentile(latency, 50), p95: percentile(latency, 95), max: Math.max(...latency) },
          firstAnswerMs: {
            p50: round(percentile(firstAnswerMs, 50)),
            p95: round(percentile(firstAnswerMs, 95)),
            max: round(Math.max(...firstAnswerMs)),
          },
        };
      }
    });
    writeBenchResult('concurrency', figures, {
      args,
      description: `${SIZES.join(' and ')} concurrent 3-turn runs (two tool calls, then text), one worker, server and fake on this machine`,
      details,
    });
    return Object.values(figures).every((f) => f.met !== false);
  } finally {
    await connection.close();
    await registry.close();
    await fake.close();
    await server.stop();
    fs.rmSync(storeDir, { recursive: true, force: true });
  }
}

runBench(main);
