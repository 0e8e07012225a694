// Concurrency: N ReAct runs at once on a real dev server with one in-process worker, each a
// scripted 3-turn conversation (tool call, tool call, final text) against the fake provider; sizes
// default to 100 and 1,000 runs. Records per size the share completed, throughput, run latency and
// the time from a run's start request to its first model answer (from history); then what the
// worker holds per cached run: the heap added by runs parked on an approval (see memoryPerCachedRun).
// The baseline of the first answer, for sizes up to 100: as many runs that end at their first
// answer, so that nothing but other runs' first turns competes with it. A size up to 100 runs its
// batch BATCHES times, one after another, and its first-answer percentiles pool every batch's runs:
// one batch's p95 rests on its five slowest runs and moved by 0.4 s between runs of the bench.
// Run: node -r ./scripts/register-ts.js bench/concurrency.ts [runs…] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { TOKENS_TOPIC } from '../src/contracts/watch-topics';
import { reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../src/tools';
import type { DurableAgentsPlugin } from '../src/worker/plugin';
import {
  agentWorker,
  benchArgs,
  figure,
  percentile,
  round,
  runBench,
  startBenchServer,
  writeBenchResult,
  type Figure,
} from './kit';

const args = benchArgs();
const SIZES = args.sizes.length > 0 ? args.sizes : args.smoke ? [5] : [100, 1000];
const PARKED = args.smoke ? 5 : 200;
/** How many batches a size up to 100 runs, pooled in its first-answer figures. */
const BATCHES = args.smoke ? 1 : 3;

type Block = { type?: string };

/** A one-turn run's task starts with this; the fake answers it with text at once. */
const ONE_TURN = 'Answer at once';

/** A streamed run's task starts with this; the fake streams its answer a piece at a time. */
const STREAMED = 'Answer while watched';

/** Decides from the request alone (the task, tool results so far), so concurrent runs share no counter. */
function responder(request: RecordedRequest) {
  const messages = (request.body.messages ?? []) as { content: string | Block[] }[];
  const task = JSON.stringify(messages[0]?.content ?? '');
  if (task.includes(STREAMED)) return reply.text('Streaming this answer a piece at a time.', { eventDelayMs: 100 });
  if (task.includes(ONE_TURN)) return reply.text('done');
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

async function concurrentRuns(agents: AgentClient, client: Client, runs: number, turns: 1 | 3 = 3) {
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
          .start({
            task: turns === 1 ? `${ONE_TURN} (run ${i}).` : `Look up two things (run ${i}).`,
            model: 'anthropic/claude-sonnet-4-6',
          })
          .catch(() => undefined);
      }),
    );
  }
  const outcomes = await Promise.all(
    ids.map((id, i) =>
      (id === undefined ? Promise.reject(new Error('not started')) : agents.result(id)).then(
        (res) => ({ ok: res.stopReason === 'completed' && res.turns === turns, ms: Date.now() - startedAt[i] }),
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

/**
 * Time to first token at a watcher: `runs` streaming one-turn runs at once (the fake streams each
 * answer over about a second), each followed by its own `watch` from the moment its start returns;
 * per run, the time from the start request to the first token the watcher yields.
 */
async function firstTokenAtWatchers(agents: AgentClient, runs: number): Promise<number[]> {
  const firstTokenMs = await Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      const startedAt = Date.now();
      const id = await agents.start({
        task: `${STREAMED} (run ${i}).`,
        model: 'anthropic/claude-sonnet-4-6',
        stream: true,
      });
      for await (const item of agents.watch(id)) if (item.topic === TOKENS_TOPIC) return Date.now() - startedAt;
      return Number.NaN;
    }),
  );
  return firstTokenMs.filter(Number.isFinite);
}

/** The process's heap and resident memory after full garbage collections. */
function memoryAfterGc(): { heap: number; rss: number } {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i++) gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

/**
 * What a worker holds per cached run: `PARKED` runs wait on an approval, so each stays in the
 * worker's cache with its workflow state, measured against the same worker with none. Workflow
 * code normally runs on a worker thread, whose heap this process cannot read; this worker runs it
 * on the main thread (`debugMode`, the same reusable V8 context), so the heap figure covers the
 * workflow state (its own module instances, promises, the run's state) and the activities' caches.
 * The resident-memory delta also counts the SDK core's native state per run, but the allocator
 * keeps freed pages, so it is a rough figure.
 */
async function memoryPerCachedRun(
  options: { connection: NativeConnection; plugin: DurableAgentsPlugin },
  client: Client,
): Promise<{ heapBytes: number; rssBytes: number }> {
  const taskQueue = 'bench-concurrency-parked';
  const worker = await Worker.create({
    connection: options.connection,
    taskQueue,
    plugins: [options.plugin],
    debugMode: true,
    maxCachedWorkflows: PARKED + 10,
  });
  const agents = new AgentClient(client, taskQueue);
  const park = (i: number) =>
    agents.start({ tools: { approve: ['lookup'] }, task: `Park (run ${i}).`, model: 'anthropic/claude-sonnet-4-6' });
  const parked = async (ids: string[]) => {
    const deadline = Date.now() + 300_000;
    for (const id of ids) {
      while ((await agents.state(id)).pendingApprovals.length === 0) {
        if (Date.now() > deadline) throw new Error(`run ${id} never asked for approval`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  return worker.runUntil(async () => {
    // One parked run first, so the bundle's shared modules and the worker's own state are counted in `before`.
    const warm = await park(-1);
    await parked([warm]);
    const before = memoryAfterGc();
    const ids: string[] = [];
    for (let from = 0; from < PARKED; from += 50)
      ids.push(...(await Promise.all(Array.from({ length: Math.min(50, PARKED - from) }, (_, k) => park(from + k)))));
    await parked(ids);
    const after = memoryAfterGc();
    await Promise.all([warm, ...ids].map((id) => agents.terminate(id, 'bench done')));
    return { heapBytes: (after.heap - before.heap) / PARKED, rssBytes: (after.rss - before.rss) / PARKED };
  });
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
    const parts = await agentWorker(fake, registry, storeDir);
    const client = new Client({ connection });
    const taskQueue = 'bench-concurrency';
    const largest = Math.max(...SIZES);
    const worker = await Worker.create({
      connection,
      taskQueue,
      // The project's worker; every run stays cached; activities are I/O-bound (HTTP to the fake,
      // the file store).
      plugins: [parts.plugin()],
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
        const floor = runs <= 100 ? await concurrentRuns(agents, client, runs, 1) : undefined;
        const batches = [];
        for (let b = 0; b < (runs <= 100 ? BATCHES : 1); b++) batches.push(await concurrentRuns(agents, client, runs));
        const { wallMs } = batches[0];
        const outcomes = batches.flatMap((b) => b.outcomes);
        const firstAnswerMs = batches.flatMap((b) => b.firstAnswerMs);
        const completed = outcomes.filter((o) => o.ok).length / outcomes.length;
        const latency = outcomes.map((o) => o.ms);
        figures[`completed${runs}`] = figure(completed, 'share', `${runs} concurrent runs: share completed`, {
          target: '>= 1',
        });
        figures[`firstAnswerP50Ms${runs}`] = figure(
          percentile(firstAnswerMs, 50),
          'ms',
          `${runs} concurrent runs: first model answer, p50` +
            (batches.length > 1 ? ` over ${batches.length} batches` : '') +
            (floor ? ` (baseline: ${runs} runs that end at their first answer)` : ''),
          floor ? { target: '< 2000', baseline: percentile(floor.firstAnswerMs, 50) } : {},
        );
        figures[`firstAnswerP95Ms${runs}`] = figure(
          percentile(firstAnswerMs, 95),
          'ms',
          `${runs} concurrent runs: first model answer, p95` +
            (batches.length > 1 ? ` over ${batches.length} batches` : ''),
          runs <= 100 ? { target: '< 2000' } : {},
        );
        const firstTokenMs = runs <= 100 ? await firstTokenAtWatchers(agents, runs) : [];
        if (firstTokenMs.length > 0) {
          figures[`firstTokenAtWatcherP50Ms${runs}`] = figure(
            percentile(firstTokenMs, 50),
            'ms',
            `${runs} concurrent streaming runs: first token at a watcher, p50`,
          );
          figures[`firstTokenAtWatcherP95Ms${runs}`] = figure(
            percentile(firstTokenMs, 95),
            'ms',
            `${runs} concurrent streaming runs: first token at a watcher, p95`,
          );
        }
        details[`runs${runs}`] = {
          wallSeconds: round(wallMs / 1000, 2),
          runsPerSecond: round(runs / (wallMs / 1000), 2),
          runLatencyMs: { p50: percentile(latency, 50), p95: percentile(latency, 95), max: Math.max(...latency) },
          firstAnswerMs: {
            p50: round(percentile(firstAnswerMs, 50)),
            p95: round(percentile(firstAnswerMs, 95)),
            max: round(Math.max(...firstAnswerMs)),
            ...(batches.length > 1 && { p95ByBatch: batches.map((b) => round(percentile(b.firstAnswerMs, 95))) }),
          },
          ...(firstTokenMs.length > 0 && {
            firstTokenAtWatcherMs: {
              watched: firstTokenMs.length,
              p50: round(percentile(firstTokenMs, 50)),
              p95: round(percentile(firstTokenMs, 95)),
            },
          }),
          ...(floor && {
            oneTurnRuns: {
              completed: floor.outcomes.filter((o) => o.ok).length,
              wallSeconds: round(floor.wallMs / 1000, 2),
              firstAnswerMs: {
                p50: round(percentile(floor.firstAnswerMs, 50)),
                p95: round(percentile(floor.firstAnswerMs, 95)),
              },
            },
          }),
        };
      }
    });
    const memory = await memoryPerCachedRun({ connection, plugin: parts.plugin() }, client);
    figures.heapPerCachedRunKiB = figure(
      memory.heapBytes / 1024,
      'KiB',
      `worker heap per cached run (${PARKED} runs parked on an approval)`,
    );
    details.memoryPerCachedRun = {
      parkedRuns: PARKED,
      heapKiB: round(memory.heapBytes / 1024),
      residentKiB: round(memory.rssBytes / 1024),
    };
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
