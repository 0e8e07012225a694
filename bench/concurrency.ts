// Concurrency: N ReAct runs at once on a real dev server with one in-process worker, each a
// scripted 3-turn conversation (tool call, tool call, final text) against the fake provider; sizes
// default to 100 and 1,000 runs. Records per size the share completed, throughput, run latency and
// the time from a run's start request to its first model answer (from history); then what the
// worker holds per cached run: the heap added by runs parked on an approval (see memoryPerCachedRun).
// The baseline of the first answer, for sizes up to 100: as many runs that end at their first
// answer, so that nothing but other runs' first turns competes with it. A size up to 100 runs its
// batch three times (`batchesOf`), one after another, and its first-answer percentiles pool every batch's runs:
// one batch's p95 rests on its five slowest runs and moved by 0.4 s between runs of the bench.
// Run: node -r ./scripts/register-ts.js bench/concurrency.ts [runs…] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { reply, startFakeProvider, type RecordedRequest } from '../src/testing/fake-provider';
import { ToolRegistry, defineTool } from '../src/tools';
import {
  agentWorker,
  batchesOf,
  benchArgs,
  concurrentSizes,
  cpuOf,
  eventMs,
  figure,
  percentile,
  round,
  runBench,
  startBenchServer,
  startInWaves,
  writeBenchResult,
  type Figure,
} from './kit';
import { memoryPerCachedRun } from './cached-run-memory';
import { firstTokenAtWatchers, type FirstTokenFigures } from './first-token';

const args = benchArgs();
const SIZES = concurrentSizes(args);
const PARKED = args.smoke ? 5 : 200;

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
  return eventMs(done);
}

async function concurrentRuns(agents: AgentClient, client: Client, runs: number, turns: 1 | 3 = 3) {
  const wallStart = Date.now();
  const { started: ids, requestedAt: startedAt } = await startInWaves(runs, (i) =>
    agents.start({
      task: turns === 1 ? `${ONE_TURN} (run ${i}).` : `Look up two things (run ${i}).`,
      model: 'anthropic/claude-sonnet-4-6',
    }),
  );
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
        const oneTurn =
          runs <= 100 ? await cpuOf(server.pid, () => concurrentRuns(agents, client, runs, 1)) : undefined;
        const floor = oneTurn?.result;
        const batches = [];
        for (let b = 0; b < batchesOf(runs, args); b++) batches.push(await concurrentRuns(agents, client, runs));
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
        /** The first token from the worker's own process and from a client process, each with its figure keys. */
        const watchers = [
          { from: 'worker process', key: '', where: "in the worker's process" },
          { from: 'client process', key: 'Client', where: 'in a client process' },
        ] as const;
        const firstTokens: Record<string, FirstTokenFigures> = {};
        if (runs <= 100)
          for (const { from, key, where } of watchers) {
            const task = `${STREAMED} (${runs} runs from the ${from}, run {i}).`;
            const order = { address: server.address, taskQueue, storeDir: parts.storeDir, runs, task };
            const firstToken = await firstTokenAtWatchers(client, order, fake, from);
            firstTokens[`firstToken${key}AtWatcherMs`] = firstToken;
            const { watcherMs, afterProviderMs } = firstToken;
            const label = `${runs} concurrent streaming runs: first token at a watcher ${where}`;
            figures[`firstToken${key}AtWatcherP50Ms${runs}`] = figure(
              percentile(watcherMs, 50),
              'ms',
              `${label} from the start request, p50`,
            );
            figures[`firstToken${key}AtWatcherP95Ms${runs}`] = figure(
              percentile(watcherMs, 95),
              'ms',
              `${label} from the start request, p95`,
              { target: '<= 1000' },
            );
            figures[`firstToken${key}InOrder${runs}`] = figure(
              firstToken.inOrder,
              'share',
              `${label}: share given after the turn's start event`,
              { target: '>= 1' },
            );
            figures[`firstToken${key}AfterProviderP95Ms${runs}`] = figure(
              percentile(afterProviderMs, 95),
              'ms',
              `${label} after the provider sent it, p95`,
              { target: '<= 300' },
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
          ...Object.fromEntries(
            Object.entries(firstTokens).map(([name, firstToken]) => [
              name,
              {
                watched: firstToken.watcherMs.length,
                p50: round(percentile(firstToken.watcherMs, 50)),
                p95: round(percentile(firstToken.watcherMs, 95)),
                afterProvider: {
                  p50: round(percentile(firstToken.afterProviderMs, 50)),
                  p95: round(percentile(firstToken.afterProviderMs, 95)),
                },
                hops: firstToken.hops,
              },
            ]),
          ),
          ...(floor && {
            oneTurnRuns: {
              completed: floor.outcomes.filter((o) => o.ok).length,
              cpuPerRunMs: oneTurn && {
                server: round(oneTurn.serverMs / runs),
                workerAndClient: round(oneTurn.selfMs / runs),
              },
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
    const memory = await memoryPerCachedRun({ connection, plugin: parts.plugin() }, client, PARKED);
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
