/**
 * The workers of a test file's `withWorker` calls, shared between its tests. Starting a worker costs
 * about half a second of CPU (its workflow thread loads the SDK and evaluates the bundle), and most
 * files start one per test with the same parts. A worker whose test left nothing behind on its
 * task queue (no run still open, none in its cache, no activation or activity in flight) waits here
 * for the file's next `withWorker` with the same parts, which then runs on it and its queue. A test
 * that leaves a run open, fails, or stops the worker gets its worker stopped, so a later test never
 * sees another's runs. Workers still waiting are stopped after the file's tests
 * (./after-env.ts), with any a timed-out test left running.
 */
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';

/** What a worker is built from; two `withWorker` calls share a worker only when every part is the same (object or value). */
export interface WorkerParts {
  activities: object | undefined;
  config: object | undefined;
  store: object | undefined;
  tools: object | undefined;
  maxCachedWorkflows: number | undefined;
}

/** A running worker and its task queue. */
export interface SharedWorker {
  worker: Worker;
  /** The worker's `run()`: settles when it stops. */
  running: Promise<void>;
  taskQueue: string;
  parts: WorkerParts;
}

const idle: SharedWorker[] = [];

const sameParts = (a: WorkerParts, b: WorkerParts): boolean =>
  (Object.keys(a) as (keyof WorkerParts)[]).every((k) => a[k] === b[k]);

/** Takes a waiting worker built from `parts`, if there is one. */
export function takeIdleWorker(parts: WorkerParts): SharedWorker | undefined {
  const at = idle.findIndex((w) => sameParts(w.parts, parts) && w.worker.getState() === 'RUNNING');
  return at === -1 ? undefined : idle.splice(at, 1)[0];
}

/** Whether the worker's test left nothing on its queue that a later test could meet. */
async function leftNothing(shared: SharedWorker, client: Client): Promise<boolean> {
  const { worker, taskQueue } = shared;
  if (worker.getState() !== 'RUNNING') return false;
  const status = worker.getStatus();
  if (status.numCachedWorkflows + status.numInFlightWorkflowActivations + status.numInFlightActivities > 0)
    return false;
  const open = await client.workflow.count(`TaskQueue = "${taskQueue}" AND ExecutionStatus = "Running"`);
  return open.count === 0;
}

/**
 * Runs `body` on the shared worker as `Worker.runUntil` would (a worker that fails fails it), then
 * puts the worker back to wait for the next test, or stops it when its test left something behind.
 */
export async function runOnShared<T>(shared: SharedWorker, client: Client, body: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    const pending = body();
    result = await Promise.race([pending, shared.running.then(() => pending)]);
  } catch (err) {
    await stop(shared);
    throw err;
  }
  if (await leftNothing(shared, client).catch(() => false)) idle.push(shared);
  else await stop(shared);
  return result;
}

async function stop(shared: SharedWorker): Promise<void> {
  if (shared.worker.getState() === 'RUNNING') shared.worker.shutdown();
  await shared.running.catch(() => undefined);
}
