/**
 * The workers of a worker's limited providers and models (docs/fleet.md): one activity worker per
 * limit, polling that limit's own task queue, whose server-side rate holds every worker of the fleet
 * to one rate. The config's limits are polled from the start, with their concurrency and their rate
 * set on the server; a limit that appears on the server while the worker runs (`limits set`, or a
 * rate learned from a 429) is polled from when the worker learns of it (`limit-routes.ts`).
 */
import { Worker, type NativeConnection, type WorkerPlugin } from '@temporalio/worker';
import type { CallLimits, LlmConfig } from '../llm';
import { llmQueueOf } from '../policy/llm-queues';
import { startQueueRate } from './queue-rate';

/** One limit of the config and the task queue its calls go to. */
export interface LimitQueue {
  /** `provider` or `provider/model`. */
  key: string;
  taskQueue: string;
  limits: CallLimits;
}

/** The limited queues of a worker on `baseQueue` with this config. */
export const limitQueues = (baseQueue: string, llm: LlmConfig): LimitQueue[] =>
  Object.entries(llm.limits).map(([key, limits]) => ({ key, taskQueue: llmQueueOf(baseQueue, key), limits }));

export interface LimitWorkersOptions {
  connection: NativeConnection;
  namespace: string;
  /** The worker's own task queue; limited queues are derived from it. */
  taskQueue: string;
  llm: LlmConfig;
  /** What the limits' workers register: the activities and their interceptors (see `worker/plugin.ts`). */
  plugin: WorkerPlugin;
  onError(message: string): void;
}

/**
 * The activity workers of one worker's limits, run beside it: when one of them or the worker stops
 * or fails, the others are shut down, and the first failure is what the run throws.
 */
export class LimitWorkers {
  private readonly polling = new Map<string, Promise<void>>();
  private readonly workers: Worker[] = [];
  private readonly runs: Promise<void>[] = [];
  private stopped = false;
  private failure?: { error: unknown };

  constructor(
    private readonly base: Worker,
    private readonly options: LimitWorkersOptions,
  ) {}

  /** Sets each configured limit's rate on the server (a rate learned from refusals stays) and polls its queue. */
  async start(): Promise<void> {
    const { connection, namespace, taskQueue, llm } = this.options;
    for (const queue of limitQueues(taskQueue, llm)) {
      await startQueueRate(connection.workflowService, namespace, queue.taskQueue, queue.limits.requestsPerMinute, {
        keepLearned: true,
      });
      await this.poll(queue.key, { failLoudly: true });
    }
  }

  /** Polls `key`'s queue from now on (once); resolves when its worker runs. A failure to create it is logged. */
  poll(key: string, { failLoudly = false }: { failLoudly?: boolean } = {}): Promise<void> {
    let created = this.polling.get(key);
    if (!created) {
      created = this.create(key);
      this.polling.set(key, created);
    }
    return failLoudly
      ? created
      : created.catch((err: unknown) => {
          this.polling.delete(key);
          this.options.onError(`polling the limited queue of ${key}: ${(err as Error).message}`);
        });
  }

  private async create(key: string): Promise<void> {
    if (this.stopped) return;
    const { connection, namespace, taskQueue, llm, plugin } = this.options;
    const concurrency = llm.limits[key]?.concurrency;
    const worker = await Worker.create({
      connection,
      namespace,
      taskQueue: llmQueueOf(taskQueue, key),
      ...(concurrency ? { maxConcurrentActivityTaskExecutions: concurrency } : {}),
      plugins: [plugin],
    });
    this.workers.push(worker);
    this.runs.push(this.watch(worker.run()));
    // A worker created as the others stop runs only to stop with them.
    if (this.stopped) this.stop();
  }

  /** A run whose end stops the others, its failure kept. */
  private watch(run: Promise<void>): Promise<void> {
    return run
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.stop());
  }

  private stop(): void {
    this.stopped = true;
    for (const worker of [this.base, ...this.workers]) if (worker.getState() === 'RUNNING') worker.shutdown();
  }

  /** Runs the limits' workers with the worker (`running`, its own run) until all have stopped. */
  async run(running: Promise<void>): Promise<void> {
    await this.watch(running);
    await Promise.allSettled(this.polling.values());
    // A limit's worker may still be created while the others stop: wait for it too.
    let settled = 0;
    while (settled < this.runs.length) {
      settled = this.runs.length;
      await Promise.allSettled(this.runs);
    }
    if (this.failure) throw this.failure.error;
  }

  /** Stops every worker (when the worker failed before its limits ran). */
  async abandon(): Promise<void> {
    this.stop();
    await Promise.allSettled([...this.polling.values(), ...this.runs]);
  }
}
