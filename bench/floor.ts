// Temporal's own floor on this machine: N workflows of one activity each (an activity that answers at
// once), started at once as bench/concurrency.ts starts its runs (50 requests at a time, eagerly
// when the client shares the worker's connection), on the same dev server and with the project's
// worker tuning and cache. Records the time from a run's start request to its activity's
// completion, p50 and p95 (for 100 runs pooled over three batches, as bench/concurrency.ts pools
// its first answers), and each hop of it from history: start to first workflow task, first
// workflow task to the activity's start. What an agent run's first answer cannot beat here. Then one
// workflow calling its activity 200 times in a row: what a turn of a tool loop cannot beat here.
// Run: node -r ./scripts/register-ts.js bench/floor.ts [runs…] [--smoke]
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { WORKER_TUNING } from '../src/worker/worker-tuning';
import {
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

const args = benchArgs();
const SIZES = concurrentSizes(args);
const TASK_QUEUE = 'bench-floor';

interface Timeline {
  /** Start request to the first workflow task's start. */
  firstTaskMs: number;
  /** First workflow task's start to the activity's start. */
  toActivityMs: number;
  /** Start request to the activity's completion. */
  answerMs: number;
}

async function timeline(client: Client, id: string, requestedAt: number): Promise<Timeline> {
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const at = (attr: string) => eventMs(events.find((e) => (e as Record<string, unknown>)[attr] != null));
  return {
    firstTaskMs: at('workflowTaskStartedEventAttributes') - requestedAt,
    toActivityMs: at('activityTaskStartedEventAttributes') - at('workflowTaskStartedEventAttributes'),
    answerMs: at('activityTaskCompletedEventAttributes') - requestedAt,
  };
}

async function batch(client: Client, runs: number, tag: string): Promise<{ completed: number; timelines: Timeline[] }> {
  const { started: ids, requestedAt } = await startInWaves(runs, async (i) => {
    const id = `floor-${tag}-${i}`;
    await client.workflow.start('oneActivity', { taskQueue: TASK_QUEUE, workflowId: id, requestEagerStart: true });
    return id;
  });
  const results = await Promise.all(
    ids.map((id) =>
      id === undefined
        ? Promise.resolve(false)
        : client.workflow
            .getHandle(id)
            .result()
            .then(
              (r) => r === 'done',
              () => false,
            ),
    ),
  );
  const timelines: Timeline[] = [];
  for (let i = 0; i < ids.length; i += 50)
    timelines.push(
      ...(await Promise.all(
        ids.slice(i, i + 50).flatMap((id, k) => (id === undefined ? [] : [timeline(client, id, requestedAt[i + k])])),
      )),
    );
  return { completed: results.filter(Boolean).length, timelines };
}

/** Ms per turn of a workflow that calls its activity `turns` times in a row, median of turns 10 to the end. */
async function loopTurnMs(client: Client, turns: number): Promise<number> {
  const handle = await client.workflow.start('activityLoop', {
    taskQueue: TASK_QUEUE,
    workflowId: `floor-loop-${turns}`,
    args: [turns],
  });
  await handle.result();
  const events = (await handle.fetchHistory()).events ?? [];
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => eventMs(e));
  const gaps = scheduled.slice(10).map((at, i) => at - scheduled[9 + i]);
  return percentile(gaps, 50);
}

async function main(): Promise<void> {
  const server = await startBenchServer(args);
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const client = new Client({ connection });
    const largest = Math.max(...SIZES);
    const worker = await Worker.create({
      connection,
      taskQueue: TASK_QUEUE,
      workflowsPath: path.join(__dirname, 'workflows', 'floor.ts'),
      activities: { answer: async () => 'done' },
      ...WORKER_TUNING,
      maxCachedWorkflows: Math.max(largest, 200),
      maxConcurrentActivityTaskExecutions: 200,
    });
    const figures: Record<string, Figure> = {};
    const details: Record<string, unknown> = {};
    await worker.runUntil(async () => {
      await batch(client, 1, 'warm');
      const turns = args.smoke ? 20 : 200;
      figures.loopTurnMs = figure(
        await loopTurnMs(client, turns),
        'ms',
        `one workflow calling its activity ${turns} times in a row: ms per turn (median, turns 10–${turns})`,
      );
      for (const runs of SIZES) {
        const batches = [];
        const cpu = { serverMs: 0, selfMs: 0 };
        for (let b = 0; b < batchesOf(runs, args); b++) {
          const { result, serverMs, selfMs } = await cpuOf(server.pid, () => batch(client, runs, `${runs}-${b}`));
          batches.push(result);
          cpu.serverMs += serverMs;
          cpu.selfMs += selfMs;
        }
        const timelines = batches.flatMap((b) => b.timelines);
        const of = (key: keyof Timeline) => timelines.map((t) => t[key]).filter(Number.isFinite);
        const pooled = batches.length > 1 ? ` over ${batches.length} batches` : '';
        const completed = batches.reduce((n, b) => n + b.completed, 0) / (runs * batches.length);
        figures[`completed${runs}`] = figure(completed, 'share', `${runs} one-activity workflows: share completed`, {
          target: '>= 1',
        });
        for (const p of [50, 95] as const)
          figures[`answerP${p}Ms${runs}`] = figure(
            percentile(of('answerMs'), p),
            'ms',
            `${runs} one-activity workflows at once: start request to the activity's completion, p${p}${pooled}`,
          );
        const hops = (['firstTaskMs', 'toActivityMs', 'answerMs'] as const).map((key) => [
          key,
          {
            p50: round(percentile(of(key), 50)),
            p95: round(percentile(of(key), 95)),
            max: round(Math.max(...of(key))),
          },
        ]);
        details[`runs${runs}`] = {
          ...Object.fromEntries(hops),
          cpuPerRunMs: {
            server: round(cpu.serverMs / timelines.length),
            workerAndClient: round(cpu.selfMs / timelines.length),
          },
        };
      }
    });
    writeBenchResult('floor', figures, {
      args,
      description: `${SIZES.join(' and ')} one-activity workflows at once, one worker with the project's tuning, dev server on this machine`,
      details,
    });
  } finally {
    await connection.close();
    await server.stop();
  }
}

runBench(main);
