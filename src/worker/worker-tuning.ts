/**
 * What the project's worker sets over the SDK's defaults (docs/performance.md, What a run costs at
 * once and in memory). Options given to `Worker.create` win over them.
 */
import type { WorkerOptions } from '@temporalio/worker';
import { HEARTBEAT_THROTTLE_MS } from '../contracts/heartbeats';

/**
 * As many workflow-task pollers on the task queue as on the worker's sticky queue, so a new run's
 * first workflow task does not wait behind the running runs' next ones (the SDK's default gives the
 * task queue one poller in five), and activity heartbeats passed on to the server at least every
 * {@link HEARTBEAT_THROTTLE_MS}, well inside the heartbeat timeout the workflows give
 * (`contracts/heartbeats.ts`).
 */
export const WORKER_TUNING = {
  nonStickyToStickyPollRatio: 1,
  maxHeartbeatThrottleInterval: HEARTBEAT_THROTTLE_MS,
} as const satisfies Partial<WorkerOptions>;

/**
 * The fewest cached runs with which the poller split of {@link WORKER_TUNING} is kept. A worker that
 * caches only a few runs and polls its task queue as often as its sticky queue leaves the sticky
 * queue unpolled: each next workflow task of a cached run waits there for the sticky queue's 10 s
 * timeout (measured with a cache of 10 and three runs). Such a worker keeps the SDK's split.
 */
const SPLIT_MIN_CACHED_WORKFLOWS = 100;

/** The tuning for a worker with these options: the poller split only with room in the cache. */
export function tuningFor({ maxCachedWorkflows }: WorkerOptions): Partial<WorkerOptions> {
  if (maxCachedWorkflows === undefined || maxCachedWorkflows >= SPLIT_MIN_CACHED_WORKFLOWS) return WORKER_TUNING;
  const { nonStickyToStickyPollRatio: _split, ...rest } = WORKER_TUNING;
  return rest;
}
