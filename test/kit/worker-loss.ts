/**
 * Losing a worker mid-run: the fake provider, worker processes of the project's worker on one task
 * queue sharing a file store (one machine), and the step a test is about: start a second worker
 * and SIGKILL the first while it holds the run's call.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { fakeProviderEnv, startFakeProvider, type FakeProvider } from '../../src/testing/fake-provider';
import { useOnce } from './lifecycle';
import { testConnection } from './temporal';
import { startWorkerProcess, type WorkerProcess } from './worker-process';

/** One task queue with its first worker process and a client of it. */
export interface LossScene {
  client: Client;
  agents: AgentClient;
  taskQueue: string;
  /** Starts a second worker on the queue, then SIGKILLs the first; resolves with the time of the kill. */
  replaceWorker(): Promise<number>;
}

export interface WorkerLoss {
  fake: FakeProvider;
  /** A fresh task queue (named after `name`) with one worker process polling it. */
  scene(name: string): Promise<LossScene>;
}

async function openWorkerLoss(): Promise<WorkerLoss & { close(): Promise<void> }> {
  const fake = await startFakeProvider();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'worker-loss-'));
  const workers: WorkerProcess[] = [];
  return {
    fake,
    async scene(name) {
      const taskQueue = `${name}-${process.pid}-${Date.now()}`;
      // Both workers on one machine share the file store.
      const host = { taskQueue, cwd: dir, env: { ...fakeProviderEnv(fake), DURABLE_AGENTS_STORE_DIR: 'store' } };
      const first = await startWorkerProcess(host);
      workers.push(first);
      const { client } = await testConnection();
      return {
        client,
        agents: new AgentClient(client, taskQueue),
        taskQueue,
        async replaceWorker() {
          workers.push(await startWorkerProcess(host));
          const killedAt = Date.now();
          await first.kill();
          return killedAt;
        },
      };
    },
    async close() {
      for (const worker of workers) await worker.kill();
      await fake.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Worker loss for the enclosing describe block: the fake is reset before each test, everything closed after. */
export const useWorkerLoss = (): WorkerLoss =>
  useOnce(
    openWorkerLoss,
    (loss) => loss.close(),
    (loss) => loss.fake.reset(),
  );
