/**
 * Losing a worker mid-run, on the worker processes of a describe block (`useWorkerHosts`): a task
 * queue with its first worker, a client of it, and the step a test is about: start a second
 * worker and SIGKILL the first while it holds the run's call.
 */
import type { Client } from '@temporalio/client';
import { AgentClient, type AgentClientOptions } from '../../src/client';
import { testConnection } from './temporal';
import type { WorkerHosts } from './worker-process';

/** One task queue with its first worker process and a client of it. */
export interface LossScene {
  client: Client;
  agents: AgentClient;
  taskQueue: string;
  /** Starts a second worker on the queue, then SIGKILLs the first; resolves with the time of the kill. */
  replaceWorker(): Promise<number>;
}

/**
 * A fresh task queue (named after `name`) with one of `hosts`' worker processes polling it; `env`
 * is added to every worker's (another store), `options` are its client's.
 */
export async function lossScene(
  hosts: WorkerHosts,
  name: string,
  env: NodeJS.ProcessEnv = {},
  options: AgentClientOptions = {},
): Promise<LossScene> {
  const taskQueue = `${name}-${process.pid}-${Date.now()}`;
  const first = await hosts.start(taskQueue, env);
  const { client } = await testConnection();
  return {
    client,
    agents: new AgentClient(client, taskQueue, options),
    taskQueue,
    async replaceWorker() {
      await hosts.start(taskQueue, env);
      const killedAt = Date.now();
      await first.kill();
      return killedAt;
    },
  };
}
