/**
 * The workers of a worker's limited providers and models (docs/fleet.md): one activity worker per
 * limit, polling that limit's own task queue with the limit's concurrency, and the queue's
 * server-side rate limit set from the config, so every worker of the fleet shares one rate.
 */
import { Runtime, Worker, type NativeConnection, type WorkerPlugin } from '@temporalio/worker';
import type { CallLimits, LlmConfig } from '../llm';
import { llmQueueOf } from '../policy/llm-queues';
import { QueuePauses, parsePause, pauseReason, queueRate, setQueueRate, writeQueueRate } from './queue-pause';

type WorkflowService = NativeConnection['workflowService'];

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

/**
 * Sets a limited queue's rate so that it starts as empty as the server allows: its limiter takes a
 * new rate with a full burst, and passing through zero first keeps most of that burst back. A queue
 * a 429 has paused stays paused; the new rate is the one it gets back when the pause is over.
 */
export async function startQueueRate(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  requestsPerMinute: number,
): Promise<{ pausedUntil?: number }> {
  const pause = parsePause((await queueRate(service, namespace, taskQueue)).reason);
  if (pause && pause.until > Date.now()) {
    await writeQueueRate(service, namespace, taskQueue, 0, pauseReason({ until: pause.until, requestsPerMinute }));
    return { pausedUntil: pause.until };
  }
  await setQueueRate(service, namespace, taskQueue, 0);
  await setQueueRate(service, namespace, taskQueue, requestsPerMinute);
  return {};
}

export interface LimitWorkersOptions {
  connection: NativeConnection;
  namespace: string;
  /** The worker's own task queue; limited queues are derived from it. */
  taskQueue: string;
  llm: LlmConfig;
  /** What the limits' workers register: the activities and their interceptors (see `worker/plugin.ts`). */
  plugin: WorkerPlugin;
}

/**
 * Sets each limited queue's rate on the server and creates its activity worker. A call refused with
 * a retry-after pauses its queue for every worker (`queue-pause.ts`).
 */
export async function createLimitWorkers(options: LimitWorkersOptions): Promise<Worker[]> {
  const queues = limitQueues(options.taskQueue, options.llm);
  if (queues.length === 0) return [];
  const workers: Worker[] = [];
  const pauses = new QueuePauses(
    options.connection.workflowService,
    options.namespace,
    queues.map((q) => q.taskQueue),
    (message) => Runtime.instance().logger.warn(message),
    () => workers.every((w) => w.getState() === 'STOPPED' || w.getState() === 'FAILED'),
  );
  for (const queue of queues) {
    await startQueueRate(
      options.connection.workflowService,
      options.namespace,
      queue.taskQueue,
      queue.limits.requestsPerMinute,
    );
    workers.push(
      await Worker.create({
        connection: options.connection,
        namespace: options.namespace,
        taskQueue: queue.taskQueue,
        ...(queue.limits.concurrency ? { maxConcurrentActivityTaskExecutions: queue.limits.concurrency } : {}),
        // The plugin puts its activity interceptors (redaction first) around the queue's pause.
        interceptors: { activity: [pauses.interceptor(queue.taskQueue, queue.limits.requestsPerMinute)] },
        plugins: [options.plugin],
      }),
    );
  }
  return workers;
}

/** A worker and how to run it (a plugin's `runWorker` runs its own worker through the next plugin). */
export interface RunningWorker {
  worker: Worker;
  run(): Promise<void>;
}

/** Runs `workers` together; when one stops or fails, the others are shut down, and the first failure is thrown. */
export async function runTogether(workers: RunningWorker[]): Promise<void> {
  const stopAll = () => {
    for (const { worker } of workers) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
  };
  const runs = workers.map(({ run }) => run().finally(stopAll));
  const results = await Promise.allSettled(runs);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
