/**
 * A provider's 429 with a retry-after holds its limited queue for the whole fleet (docs/fleet.md,
 * A 429 holds the queue): the worker that sees it sets the queue's server-side rate to 0 for that
 * period, and the queue's config itself says until when and which rate comes back after. Every
 * worker on the queue reads the same config, so any of them restores the rate once the period is
 * over: the one that paused it (at the end of the period) or any other (on its next look), which
 * covers a worker that died mid-period. A pause only ever lengthens another.
 */
import { temporal } from '@temporalio/proto';
import type { ActivityInterceptorsFactory, NativeConnection } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { LLM_FAILURE } from '../contracts/failure-types';
import { retryAfterInDetails } from '../policy/llm-failure-policy';
import { perSecond } from '../policy/llm-queues';

type WorkflowService = NativeConnection['workflowService'];

/** How often each worker looks for a pause that is over, whoever set it. */
export const PAUSE_SWEEP_MS = 5_000;

/** A paused queue: until when (ms since the epoch), and the rate it gets back then. */
export interface QueuePause {
  until: number;
  requestsPerMinute: number;
}

const PAUSE_REASON = /^durable-agents: paused until (\S+) after a 429, then (\d+(?:\.\d+)?) model calls a minute$/;

export const pauseReason = (pause: QueuePause): string =>
  `durable-agents: paused until ${new Date(pause.until).toISOString()} after a 429, ` +
  `then ${pause.requestsPerMinute} model calls a minute`;

/** The pause a queue's rate-limit reason records, if it records one. */
export function parsePause(reason: string | null | undefined): QueuePause | undefined {
  const match = PAUSE_REASON.exec(reason ?? '');
  if (!match) return undefined;
  const until = Date.parse(match[1]);
  return Number.isNaN(until) ? undefined : { until, requestsPerMinute: Number(match[2]) };
}

const ACTIVITY = temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY;

/** The queue's rate on the server (a minute) and the reason it was set with. */
export async function queueRate(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
): Promise<{ requestsPerMinute?: number; reason?: string }> {
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

/** Writes a limited queue's rate (a minute) with the reason the server keeps beside it. */
export async function writeQueueRate(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  requestsPerMinute: number,
  reason: string,
): Promise<void> {
  await service.updateTaskQueueConfig({
    namespace,
    identity: 'durable-agents',
    taskQueue,
    taskQueueType: ACTIVITY,
    updateQueueRateLimit: { rateLimit: { requestsPerSecond: perSecond(requestsPerMinute) }, reason },
  });
}

/** Sets a limited queue's rate: every worker on it shares it. */
export const setQueueRate = (
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  requestsPerMinute: number,
): Promise<void> =>
  writeQueueRate(
    service,
    namespace,
    taskQueue,
    requestsPerMinute,
    `durable-agents: ${requestsPerMinute} model calls a minute`,
  );

/**
 * Pauses the queue until `until`, unless a pause already runs as long. The rate that comes back is
 * the one a running pause would restore, else the queue's rate now, else `fallbackRpm`.
 */
export async function pauseQueue(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  until: number,
  fallbackRpm: number,
): Promise<QueuePause | undefined> {
  const now = await queueRate(service, namespace, taskQueue);
  const running = parsePause(now.reason);
  if (running && running.until >= until) return undefined;
  const pause = { until, requestsPerMinute: running?.requestsPerMinute ?? now.requestsPerMinute ?? fallbackRpm };
  await writeQueueRate(service, namespace, taskQueue, 0, pauseReason(pause));
  return pause;
}

/** Gives a paused queue its rate back once its pause is over; returns whether it did. */
export async function resumeIfOver(
  service: WorkflowService,
  namespace: string,
  taskQueue: string,
  at: number = Date.now(),
): Promise<boolean> {
  const pause = parsePause((await queueRate(service, namespace, taskQueue)).reason);
  if (!pause || pause.until > at) return false;
  await setQueueRate(service, namespace, taskQueue, pause.requestsPerMinute);
  return true;
}

/** The pauses one worker process sets and looks after, for its limited queues. */
export class QueuePauses {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sweep: NodeJS.Timeout;

  /** `done` says when the workers it looks after have stopped: then it stops looking. */
  constructor(
    private readonly service: WorkflowService,
    private readonly namespace: string,
    private readonly queues: readonly string[],
    private readonly onError: (message: string) => void,
    private readonly done: () => boolean,
  ) {
    this.sweep = setInterval(() => {
      if (this.done()) this.close();
      else void this.resumeAll();
    }, PAUSE_SWEEP_MS);
    this.sweep.unref();
  }

  private later(ms: number, fn: () => Promise<unknown>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn().catch((err: unknown) => this.onError(`a limited queue's pause: ${(err as Error).message}`));
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private async resumeAll(): Promise<void> {
    for (const queue of this.queues)
      await resumeIfOver(this.service, this.namespace, queue).catch((err: unknown) =>
        this.onError(`resuming ${queue}: ${(err as Error).message}`),
      );
  }

  /** Pauses `taskQueue` for `ms` from now, and gives it its rate back when that is over. */
  async pause(taskQueue: string, ms: number, fallbackRpm: number): Promise<void> {
    const until = Date.now() + ms;
    await pauseQueue(this.service, this.namespace, taskQueue, until, fallbackRpm);
    this.later(Math.max(0, until - Date.now()), () => resumeIfOver(this.service, this.namespace, taskQueue));
  }

  /**
   * The interceptor of a limited queue's worker: a call refused with a retry-after pauses the queue
   * before the failure goes back (a failed pause is logged; the call's own failure is what counts).
   */
  interceptor(taskQueue: string, fallbackRpm: number): ActivityInterceptorsFactory {
    return () => ({
      inbound: {
        execute: async (input, next) => {
          try {
            return await next(input);
          } catch (err) {
            const ms =
              err instanceof ApplicationFailure && err.type === LLM_FAILURE.rateLimited
                ? retryAfterInDetails(err.details)
                : undefined;
            if (ms !== undefined && ms > 0)
              await this.pause(taskQueue, ms, fallbackRpm).catch((failure: unknown) =>
                this.onError(`pausing ${taskQueue}: ${(failure as Error).message}`),
              );
            throw err;
          }
        },
      },
    });
  }

  close(): void {
    clearInterval(this.sweep);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
