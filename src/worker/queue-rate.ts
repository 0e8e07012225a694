/**
 * A limited queue's rate on the server and the pace its reason records (`queue-pace.ts`): read,
 * written, set from a configured limit, cut by a refusal and kept (a pause ended, a learned rate
 * raised). Every worker of the fleet reads the same config, so any of them can keep any queue's pace.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import type { NativeConnection } from '@temporalio/worker';
import { perSecond } from '../policy/llm-queues';
import { afterRefusal, paceAt, paceReason, parsePace, rateAt, type QueuePace, type Refusal } from './queue-pace';

export type WorkflowService = NativeConnection['workflowService'];

const ACTIVITY = temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;

/** A limited queue's rate as the server holds it. */
export interface ServerRate {
  /** The rate the server enforces (model calls a minute); absent when the queue has none. */
  requestsPerMinute?: number;
  /** The reason it was set with. */
  reason?: string;
}

/** The queue's rate on the server (a minute) and the reason it was set with. */
export async function queueRate(service: WorkflowService, namespace: string, taskQueue: string): Promise<ServerRate> {
  const described = await service.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: ACTIVITY,
    reportConfig: true,
  });
  const limit = described.config?.queueRateLimit;
  const rps = limit?.rateLimit?.requestsPerSecond;
  return {
    ...(typeof rps === 'number' ? { requestsPerMinute: Math.round(rps * 60 * 1000) / 1000 } : {}),
    ...(limit?.metadata?.reason ? { reason: limit.metadata.reason } : {}),
  };
}

/**
 * The pace a server rate records: its reason's, else (a rate set by other means, such as Temporal's
 * CLI) the rate itself; undefined for a queue without a rate.
 */
export function paceOf(rate: ServerRate): QueuePace | undefined {
  return (
    parsePace(rate.reason) ??
    (rate.requestsPerMinute === undefined ? undefined : { requestsPerMinute: rate.requestsPerMinute })
  );
}

/** How long a write waits to read itself back (the server's read of a queue's config can lag its write). */
const READ_BACK_MS = 2_000;

/**
 * Writes `pace` as a limited queue's rate (the rate it gives at `at`, a minute) with its reason,
 * which the server keeps beside it; every worker on the queue shares it. Returns once the server
 * reads it back, so that what this process does next starts from it (after {@link READ_BACK_MS}, it
 * returns anyway: another worker's write may have replaced it).
 */
async function writePace(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  pace: QueuePace,
  at: number = Date.now(),
): Promise<void> {
  const reason = paceReason(pace);
  await service.updateTaskQueueConfig({
    namespace,
    identity: 'durable-agents',
    taskQueue,
    taskQueueType: ACTIVITY,
    updateQueueRateLimit: { rateLimit: { requestsPerSecond: perSecond(rateAt(pace, at)) }, reason },
  });
  for (const until = Date.now() + READ_BACK_MS; Date.now() < until;) {
    if ((await queueRate(service, namespace, taskQueue)).reason === reason) return;
    await sleep(25);
  }
}

/**
 * Sets a configured limit's rate so that the queue starts as empty as the server allows: its limiter
 * takes a new rate with a full burst, and passing through zero first keeps most of that burst back.
 * A queue a 429 has paused stays paused, with the new rate to come back after. With `keepLearned`
 * (a worker starting), a rate learned from refusals stays, with the configured one as what it rises
 * back to; without (`limits set`), the configured rate replaces it.
 */
export async function startQueueRate(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  requestsPerMinute: number,
  { keepLearned = false }: { keepLearned?: boolean } = {},
): Promise<{ pausedUntil?: number; learned?: QueuePace }> {
  const now = Date.now();
  const pace = paceOf(await queueRate(service, namespace, taskQueue));
  const learned =
    keepLearned && pace?.learnedSince !== undefined
      ? { ...pace, requestsPerMinute: Math.min(pace.requestsPerMinute, requestsPerMinute), upTo: requestsPerMinute }
      : undefined;
  const paused = pace?.pausedUntil !== undefined && pace.pausedUntil > now ? pace.pausedUntil : undefined;
  if (learned || paused !== undefined) {
    await writePace(service, namespace, taskQueue, learned ?? { requestsPerMinute, pausedUntil: paused }, now);
    return { ...(paused === undefined ? {} : { pausedUntil: paused }), ...(learned ? { learned } : {}) };
  }
  await writePace(service, namespace, taskQueue, { requestsPerMinute: 0 });
  await writePace(service, namespace, taskQueue, { requestsPerMinute });
  return {};
}

/**
 * Records a provider's refusal of a call of the queue (`afterRefusal`): pauses it for the
 * retry-after, and cuts its rate when the refused call was handed out at the rate in force. Returns
 * the new pace, or undefined when the refusal changed nothing.
 */
export async function refuseQueue(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  refusal: Refusal,
): Promise<QueuePace | undefined> {
  const next = afterRefusal(paceOf(await queueRate(service, namespace, taskQueue)), refusal);
  if (next) await writePace(service, namespace, taskQueue, next, refusal.at);
  return next;
}

/**
 * Keeps the queue's pace at `at`: gives a paused queue its rate back once the pause is over, raises
 * a learned rate, and returns a learned rate that has risen to its configured limit to that limit.
 * Writes only what changed; returns the pace, or undefined for a queue without a rate.
 */
export async function keepPace(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  at: number = Date.now(),
): Promise<QueuePace | undefined> {
  const rate = await queueRate(service, namespace, taskQueue);
  const pace = parsePace(rate.reason);
  // A rate set by other means (Temporal's CLI) is the operator's: it stays as it is.
  if (!pace) return paceOf(rate);
  const next = paceAt(pace, at);
  const target = rateAt(next, at);
  const drift = Math.abs((rate.requestsPerMinute ?? 0) - target);
  if (paceReason(next) !== rate.reason || drift > Math.max(0.01, target * 0.005))
    await writePace(service, namespace, taskQueue, next, at);
  return next;
}
