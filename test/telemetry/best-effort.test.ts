/**
 * Sending spans is best effort: with `OTEL_EXPORTER_OTLP_ENDPOINT` naming a port nothing listens on,
 * or a listener that accepts connections and never answers, the CLI's commands exit as they would
 * without it (code 0, nothing on stderr but their own lines) within a second of their last output,
 * and a worker stops on SIGTERM as promptly.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { trace } from '@opentelemetry/api';
import { AgentClient } from '../../src/client';
import { FLUSH_AT_STOP_MS, startTracing, stopTracing, tracesConfigOf } from '../../src/telemetry';
import { freePort } from '../../src/server/ports';
import { fakeProviderEnv, reply, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { workerConfig } from '../../src/worker/worker-config';
import { PRIMARY, waitFor } from '../agent/agent-kit';
import { spawnCli, stopProcess } from '../kit/cli';
import { testConnection, useWorker } from '../kit/temporal';
import { startWorkerProcess } from '../kit/worker-process';

/** A collector that takes every connection and never answers. */
async function startSilentCollector(): Promise<{ url: string; open(): number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => sockets.size,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface TimedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** From its last line on stdout to its exit. */
  exitAfterOutputMs: number;
}

/** Runs the CLI to its end, timing its exit from its last output on stdout. */
function timedCli(args: string[], env: NodeJS.ProcessEnv): Promise<TimedRun> {
  const child = spawnCli(args, { env });
  let stdout = '';
  let stderr = '';
  let lastOutput = Date.now();
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    lastOutput = Date.now();
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, exitAfterOutputMs: Date.now() - lastOutput }));
  });
}

describe('an OTLP endpoint that does not work', () => {
  let fake: FakeProvider;
  let silent: Awaited<ReturnType<typeof startSilentCollector>>;
  let closedPort: string;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeProvider();
    silent = await startSilentCollector();
    closedPort = `http://127.0.0.1:${await freePort()}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'best-effort-'));
  });
  afterAll(async () => {
    await silent?.close();
    await fake?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // Started after the fake provider it calls (the block's hooks run in order).
  const worker = useWorker(() => ({ config: workerConfig({ file: null, env: fakeProviderEnv(fake) }) }));

  const cliEnv = async (endpoint: string): Promise<NodeJS.ProcessEnv> => {
    const { address, namespace } = await testConnection();
    return { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  };

  /** `run`, `run --detach` and `list`, each run to its end with `env`. */
  async function commands(env: NodeJS.ProcessEnv): Promise<Record<string, TimedRun>> {
    const queue = ['--task-queue', worker.taskQueue];
    fake.respond(() => reply.text('Done.'));
    return {
      run: await timedCli([...queue, 'run', 'Say done.', '--model', PRIMARY], env),
      detached: await timedCli([...queue, 'run', '--detach', 'Say done.', '--model', PRIMARY], env),
      list: await timedCli([...queue, 'list', '--limit', '1'], env),
    };
  }

  it.each([
    ['a closed port', () => closedPort],
    ['a collector that never answers', () => silent.url],
  ])(
    'leaves `run`, `run --detach` and `list` their exit code 0 and their exit within a second, with %s',
    async (_which, endpoint) => {
      // The same commands without an endpoint: how long each takes from its last output to its exit here.
      const { OTEL_EXPORTER_OTLP_ENDPOINT: _none, ...untraced } = await cliEnv(endpoint());
      const baseline = await commands(untraced);
      const runs = await commands(await cliEnv(endpoint()));
      for (const [command, run] of Object.entries(runs)) {
        expect({
          command,
          code: run.code,
          errors: run.stderr.split('\n').filter((l) => /^durable-agents:/.test(l)),
        }).toEqual({ command, code: 0, errors: [] });
        const later = run.exitAfterOutputMs - baseline[command].exitAfterOutputMs;
        expect({ command, late: later > 1_000 }).toEqual({ command, late: false });
      }
      expect(runs.run.stdout).toContain('Done.');
    },
    120_000,
  );

  it('stops a worker on SIGTERM as promptly, with its traced runs’ spans unsent', async () => {
    const taskQueue = `best-effort-${process.pid}-${Date.now()}`;
    const host = await startWorkerProcess({
      taskQueue,
      cwd: dir,
      env: { ...fakeProviderEnv(fake), DURABLE_AGENTS_STORE_DIR: 'store', OTEL_EXPORTER_OTLP_ENDPOINT: silent.url },
    });
    fake.respond(() => reply.text('Done.'));
    // A traced run: its spans wait in the worker for the collector that never answers.
    const started = await timedCli(
      ['--task-queue', taskQueue, 'run', '--detach', 'Say done.', '--model', PRIMARY],
      await cliEnv(silent.url),
    );
    const { client } = await testConnection();
    expect(await new AgentClient(client, taskQueue).result(started.stdout.trim())).toMatchObject({
      status: 'completed',
    });
    const stopping = Date.now();
    expect(await stopProcess(host.child, 'SIGTERM')).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(5_000);
    expect(host.output()).toContain('Worker stopped.');
  }, 90_000);

  it('stops a process’s tracing within its bound, with no request to the collector left open', async () => {
    startTracing(tracesConfigOf({ OTEL_EXPORTER_OTLP_ENDPOINT: silent.url })!);
    trace.getTracer('test').startSpan('unsent').end();
    const stopping = Date.now();
    await stopTracing();
    expect(Date.now() - stopping).toBeLessThan(FLUSH_AT_STOP_MS + 500);
    expect(Date.now() - stopping).toBeGreaterThanOrEqual(FLUSH_AT_STOP_MS - 50);
    await waitFor(() => silent.open() === 0, 'the collector to see its connection closed', 2_000);
  });
});
