/** The project's worker as a separate process (`durable-agents worker` from source), as a second host would run it. */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { spawnCli, stopProcess, waitForOutput } from './cli';
import { useOnce } from './lifecycle';
import { testConnection, workflowBundle } from './temporal';

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it printed (stdout and stderr). */
  output(): string;
  /** SIGKILL: the host is gone, nothing is drained. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a worker on `taskQueue` in `cwd` with `env` added; resolves once it polls. */
export async function startWorkerProcess(options: {
  taskQueue: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** More arguments of `worker` (`--metrics-port 9464`). */
  args?: string[];
}): Promise<WorkerProcess> {
  const { address, namespace } = await testConnection();
  const child = spawnCli(['worker', '--task-queue', options.taskQueue, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      DURABLE_AGENTS_WORKFLOW_BUNDLE: workflowBundle().codePath,
      DURABLE_AGENTS_LOG_LEVEL: 'WARN',
      ...options.env,
    },
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  await waitForOutput(child, /Worker polling/);
  return {
    child,
    output: () => output,
    kill: async () => void (await stopProcess(child, 'SIGKILL')),
    stop: async () => void (await stopProcess(child, 'SIGTERM')),
  };
}

/** What a describe block's worker processes share: the fake provider they call and a directory. */
export interface WorkerHosts {
  fake: FakeProvider;
  dir: string;
  /**
   * Starts a worker process on `taskQueue` in the directory, calling the fake for every provider,
   * with its file store in the directory (shared by the block's workers, as on one machine) and `env`.
   */
  start(taskQueue: string, env?: NodeJS.ProcessEnv): Promise<WorkerProcess>;
}

/** The fake provider and a temporary directory for a describe block; its worker processes are killed after it. */
export function useWorkerHosts(name: string): WorkerHosts {
  return useOnce(
    async () => {
      const fake = await startFakeProvider();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
      const workers: WorkerProcess[] = [];
      return {
        fake,
        dir,
        workers,
        async start(taskQueue: string, env: NodeJS.ProcessEnv = {}) {
          const worker = await startWorkerProcess({
            taskQueue,
            cwd: dir,
            env: { ...fakeProviderEnv(fake), DURABLE_AGENTS_STORE_DIR: 'store', ...env },
          });
          workers.push(worker);
          return worker;
        },
      };
    },
    async ({ fake, dir, workers }) => {
      for (const worker of workers.splice(0)) await worker.kill();
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  );
}
