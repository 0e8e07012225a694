// Fleet: N one-call runs (default 500) started at once against a provider limited to 600 requests a
// minute in the worker's config, on a real dev server with the project's worker, built through its
// plugin, which runs the limited queue's worker beside it. Records the rate the provider saw against
// the limit (within 10 %), the requests over the limit (any window of 1 to 60 s holding more than the
// limit allows in it plus the one second's worth the server's limiter lets an idle queue start with),
// the busiest second, and the queue wait of the model calls (schedule to start, from history) at p50
// and p95. Then the storm: 20 one-call runs (5 with --smoke) at once with no limit configured,
// against a provider that accepts one request a second and refuses the rest with 429 and retry-after
// 1: the refused requests per accepted one (target at most one), the storm's length, and the rate the
// fleet learned.
// Run: node -r ./scripts/register-ts.js bench/fleet.ts [runs] [--smoke]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client';
import { LLM_QUEUE_SEGMENT } from '../src/policy/llm-queues';
import { FileContentStore } from '../src/store';
import {
  fakeProviderEnv,
  rateLimited,
  reply,
  startFakeProvider,
  type FakeProvider,
} from '../src/testing/fake-provider';
import { parsePace } from '../src/worker/queue-pace';
import { queueRate } from '../src/worker/queue-rate';
import { DurableAgentsPlugin } from '../src/worker/plugin';
import { workerConfig } from '../src/worker/worker-config';
import {
  benchArgs,
  benchBundle,
  figure,
  percentile,
  round,
  runBench,
  startBenchServer,
  writeBenchResult,
  type Figure,
} from './kit';

const args = benchArgs();
const RUNS = args.smoke ? 30 : (args.sizes[0] ?? 500);
const STORM_RUNS = args.smoke ? 5 : 20;
const LIMIT_RPM = 600;
const PER_SECOND = LIMIT_RPM / 60;

const eventMs = (t: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : Number.NaN;

/**
 * When the server handed the run's model call on the limited queue to a worker, and how long it
 * waited there before. (The run's first model call, which pins its tools on the run's own queue,
 * sees the limit and asks the provider nothing.)
 */
async function dispatch(client: Client, id: string): Promise<{ startedAt: number; waitMs: number }> {
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  const scheduled = events.find((e) => {
    const attrs = e.activityTaskScheduledEventAttributes;
    return attrs?.activityType?.name === 'callModel' && (attrs.taskQueue?.name ?? '').includes(LLM_QUEUE_SEGMENT);
  });
  const started = events.find(
    (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId ?? '') === String(scheduled?.eventId),
  );
  const startedAt = eventMs(started?.eventTime);
  return { startedAt, waitMs: startedAt - eventMs(scheduled?.eventTime) };
}

/** The most requests any window of `ms` holds. */
function busiest(times: readonly number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * Requests over the limit: the most by which a window of 1, 5, 10 or 60 seconds holds more than the
 * limit allows in it, plus the one second's worth the server's limiter lets a queue that was idle
 * start with, plus one for timestamps at a window's edges.
 */
function overLimit(times: readonly number[]): number {
  const excess = [1, 5, 10, 60].map((s) => busiest(times, s * 1_000) - (PER_SECOND * (s + 1) + 1));
  return Math.max(0, ...excess);
}

/** Starts `count` one-call runs at once and waits for them all to complete (else throws). */
async function oneCallRuns(
  agents: AgentClient,
  count: number,
  name: string,
): Promise<{ ids: string[]; wallMs: number }> {
  const started = Date.now();
  const ids = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      agents.start({ task: `${name} ${i}.`, model: 'anthropic/claude-sonnet-4-6', tools: { allow: [] } }),
    ),
  );
  const results = await Promise.all(ids.map((id) => agents.result(id)));
  const failed = results.filter((r) => r.stopReason !== 'completed').length;
  if (failed > 0) throw new Error(`${failed} of ${count} runs (${name}) did not complete`);
  return { ids, wallMs: Date.now() - started };
}

/** The limited scenario's figures, and whether it kept to the limit without a refusal. */
async function limitedFleet(
  connection: NativeConnection,
  fake: FakeProvider,
  dir: string,
): Promise<{ figures: Record<string, Figure>; details: Record<string, unknown>; passed: boolean }> {
  const times: number[] = [];
  fake.respond(() => {
    times.push(Date.now());
    return reply.text('Done.');
  });
  const config = workerConfig({
    env: fakeProviderEnv(fake, 'bench'),
    file: null,
    inline: { providers: { anthropic: { limits: { requestsPerMinute: LIMIT_RPM, concurrency: 20 } } } },
  });
  const store = new FileContentStore(path.join(dir, 'store'));
  const taskQueue = 'bench-fleet';
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    maxCachedWorkflows: RUNS,
    plugins: [
      new DurableAgentsPlugin({ config, store, workflows: { workflowBundle: { codePath: await benchBundle() } } }),
    ],
  });
  const client = new Client({ connection });
  const agents = new AgentClient(client, taskQueue);
  const { ids, wallMs } = await worker.runUntil(oneCallRuns(agents, RUNS, 'Job'));
  const dispatched: { startedAt: number; waitMs: number }[] = [];
  for (let i = 0; i < ids.length; i += 50)
    dispatched.push(...(await Promise.all(ids.slice(i, i + 50).map((id) => dispatch(client, id)))));
  const waits = dispatched.map((d) => d.waitMs);
  // The same count on the server's dispatch times: what the limit let through, before the workers' own delays.
  const starts = dispatched.map((d) => d.startedAt).sort((a, b) => a - b);

  const spanMs = Math.max(...times) - Math.min(...times);
  const rpm = ((times.length - 1) / spanMs) * 60_000;
  const over = overLimit(times);
  const refused = fake.requests.filter((r) => r.status !== 200).length;
  return {
    figures: {
      rateOffBy: figure(Math.abs(rpm / LIMIT_RPM - 1), 'share', `${RUNS} runs: requests a minute off the limit`, {
        target: '<= 0.1',
      }),
      overLimit: figure(over, 'requests', `${RUNS} runs: requests over the limit (with a second's burst)`, {
        target: '== 0',
      }),
      busiestSecond: figure(busiest(times, 1_000), 'requests', `${RUNS} runs: busiest second (limit ${PER_SECOND})`),
      queueWaitP50: figure(percentile(waits, 50), 'ms', `${RUNS} runs: model call's queue wait, p50`),
      queueWaitP95: figure(percentile(waits, 95), 'ms', `${RUNS} runs: model call's queue wait, p95`),
    },
    details: {
      runs: RUNS,
      limitRpm: LIMIT_RPM,
      requests: times.length,
      refused,
      measuredRpm: round(rpm, 1),
      spanSeconds: round(spanMs / 1000, 2),
      wallSeconds: round(wallMs / 1000, 2),
      queueWaitMs: { p50: percentile(waits, 50), p95: percentile(waits, 95), max: Math.max(...waits) },
      overLimitAtDispatch: overLimit(starts),
      busiestSecondAtDispatch: busiest(starts, 1_000),
    },
    passed: Math.abs(rpm / LIMIT_RPM - 1) <= 0.1 && over === 0 && refused === 0,
  };
}

/**
 * The storm: runs at once with no limit configured, against a provider that accepts
 * one request a second; the fleet learns its limit from the first refusals.
 */
async function storm(
  connection: NativeConnection,
  fake: FakeProvider,
  dir: string,
): Promise<{ figures: Record<string, Figure>; details: Record<string, unknown>; passed: boolean }> {
  fake.reset();
  const times: number[] = [];
  const provider = rateLimited({ perSecond: 1 }, () => reply.text('Done.'));
  fake.respond((request) => {
    times.push(Date.now());
    return provider(request);
  });
  const config = workerConfig({ env: fakeProviderEnv(fake, 'bench'), file: null });
  const store = new FileContentStore(path.join(dir, 'storm-store'));
  const taskQueue = 'bench-fleet-storm';
  const workflows = { workflowBundle: { codePath: await benchBundle() } };
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    plugins: [new DurableAgentsPlugin({ config, store, workflows })],
  });
  const client = new Client({ connection });
  const agents = new AgentClient(client, taskQueue);
  const { wallMs } = await worker.runUntil(oneCallRuns(agents, STORM_RUNS, 'Storm'));
  const accepted = fake.requests.filter((r) => r.status === 200).length;
  const refused = fake.requests.filter((r) => r.status === 429).length;
  const pace = parsePace((await queueRate(client.workflowService, 'default', `${taskQueue}/llm/anthropic`)).reason);
  const label = `storm of ${STORM_RUNS} runs, no limit configured, provider taking 1 a second`;
  return {
    figures: {
      stormRefusedPerAccepted: figure(refused / accepted, 'requests', `${label}: refused per accepted`, {
        target: '<= 1',
      }),
      stormSeconds: figure((Math.max(...times) - Math.min(...times)) / 1000, 's', `${label}: first to last request`),
      stormLearnedRpm: figure(pace?.requestsPerMinute ?? 0, 'requests a minute', `${label}: rate learned`),
    },
    details: { runs: STORM_RUNS, accepted, refused, wallSeconds: round(wallMs / 1000, 2), learned: pace ?? null },
    passed: accepted === STORM_RUNS && refused <= accepted,
  };
}

async function main(): Promise<boolean> {
  const server = await startBenchServer(args);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fleet-'));
  const fake = await startFakeProvider();
  const connection = await NativeConnection.connect({ address: server.address });
  try {
    const limited = await limitedFleet(connection, fake, dir);
    const stormed = await storm(connection, fake, dir);
    writeBenchResult(
      'fleet',
      { ...limited.figures, ...stormed.figures },
      {
        description:
          `${RUNS} one-call runs against a provider limited to ${LIMIT_RPM} requests a minute; ` +
          `${STORM_RUNS} at once against one taking 1 a second, no limit configured`,
        details: { ...limited.details, storm: stormed.details },
        args,
      },
    );
    return limited.passed && stormed.passed;
  } finally {
    await connection.close();
    await fake.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
