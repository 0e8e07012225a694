/**
 * The pace one worker process keeps for the fleet (docs/fleet.md, A 429 holds the queue; The fleet
 * learns a provider's limit). A model call the provider refuses for its rate limit pauses the
 * call's limited queue on the server for the retry-after and cuts its rate (`queue-pace.ts`): the
 * queue of its limit, or for a model without one, its provider's, which then becomes a limit every
 * worker routes to (`limit-routes.ts`). Every few seconds the worker looks at the queues it knows
 * of: it gives a paused queue its rate back once the pause is over (whoever paused it: a worker may
 * have died), raises learned rates, and starts polling a queue that has gained a rate.
 */
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import type { AgentActivities } from '../contracts/agent-activities';
import { LLM_FAILURE } from '../contracts/failure-types';
import type { ModelName, ModelRef } from '../contracts/model-ref';
import { retryAfterInDetails } from '../policy/llm-failure-policy';
import { modelRefOf } from '../policy/model-ref';
import type { LimitRoutes, RoutesBinding } from './limit-routes';
import { DEFAULT_RETRY_AFTER_MS } from './queue-pace';
import { keepPace, refuseQueue } from './queue-rate';

/** How often each worker looks at the queues it knows of. */
export const PAUSE_SWEEP_MS = 5_000;

/** How long the worker remembers when it saw calls accepted (for a first refusal's rate). */
const ACCEPTED_MEMORY_MS = 60_000;

/** The activities that call a provider, and so teach the pace. */
const MODEL_ACTIVITIES: readonly string[] = [
  'callModel',
  'summariseConversation',
] satisfies readonly (keyof AgentActivities)[];

/** The model a provider-calling activity's input names, if it is one. */
function modelOfCall(activityType: string, args: readonly unknown[]): ModelRef | undefined {
  if (!MODEL_ACTIVITIES.includes(activityType)) return undefined;
  const input: unknown = args[0];
  if (typeof input !== 'object' || input === null || !('model' in input)) return undefined;
  try {
    return modelRefOf(input.model as ModelName);
  } catch {
    return undefined;
  }
}

/** A result that is an answer (not a call moved elsewhere or only a pin). */
const answered = (result: unknown): boolean => typeof result !== 'object' || result === null || !('answered' in result);

type PacerBinding = Pick<RoutesBinding, 'service' | 'namespace' | 'onError'>;

export class QueuePacer {
  private readonly accepted = new Map<string, number[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** The last refusal recorded of each limited queue the worker knows, which the next one waits for. */
  private readonly refusing = new Map<string, Promise<unknown>>();
  private sweep?: NodeJS.Timeout;
  private sweeping = false;
  private bound?: PacerBinding;

  constructor(private readonly routes: LimitRoutes) {}

  /** Starts pacing for the running worker: refusals are recorded, and the queues are looked at every few seconds. */
  bind(binding: PacerBinding): void {
    this.bound = binding;
    this.sweep = setInterval(() => void this.look(binding), PAUSE_SWEEP_MS);
    this.sweep.unref();
  }

  private async look(bound: PacerBinding): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      await Promise.all(
        this.routes.candidates().map(async (key) => {
          const queue = this.routes.queueOf(key);
          if (queue === undefined) return;
          try {
            if (await keepPace(bound.service, bound.namespace, queue)) await this.routes.markLimited(key);
          } catch (err) {
            bound.onError(`keeping the pace of ${queue}: ${(err as Error).message}`);
          }
        }),
      );
    } finally {
      this.sweeping = false;
    }
  }

  private later(ms: number, fn: () => Promise<unknown>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn().catch((err: unknown) => this.bound?.onError(`a limited queue's pause: ${(err as Error).message}`));
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private accept(key: string, at: number): void {
    const times = (this.accepted.get(key) ?? []).filter((t) => t > at - ACCEPTED_MEMORY_MS);
    times.push(at);
    this.accepted.set(key, times);
  }

  private acceptedWithin(key: string, ms: number, at: number): number {
    return (this.accepted.get(key) ?? []).filter((t) => t > at - ms).length;
  }

  /**
   * Records a refusal of a call of `key`: the key's calls go to its queue from now on (this worker
   * moves its next ones there at once), and the queue is paused, its rate cut, and given back when
   * the pause is over.
   */
  private async refused(bound: PacerBinding, key: string, retryAfterMs: number, callStartedAt: number): Promise<void> {
    const queue = this.routes.queueOf(key);
    if (queue === undefined) return;
    const at = Date.now();
    // Not awaited: the failure goes back while the worker starts polling the queue.
    void this.routes.markLimited(key);
    const refusal = {
      at,
      retryAfterMs,
      callStartedAt,
      acceptedRecently: this.acceptedWithin(key, Math.max(retryAfterMs, 1_000), at),
    };
    // A worker's refusals of one queue are recorded one after another: each starts from the pace the
    // one before wrote (a storm's second refusal only lengthens the pause, as another worker's would).
    const recorded = (this.refusing.get(queue) ?? Promise.resolve()).then(() =>
      refuseQueue(bound.service, bound.namespace, queue, refusal),
    );
    this.refusing.set(
      queue,
      recorded.catch(() => undefined),
    );
    const pace = await recorded;
    if (pace?.pausedUntil !== undefined)
      this.later(Math.max(0, pace.pausedUntil - Date.now()), () => keepPace(bound.service, bound.namespace, queue));
  }

  /**
   * The interceptor of every worker of the plugin: a model call that the provider answered counts
   * as accepted, one it refused for its rate limit paces the call's queue before the failure goes
   * back (a failure to pace is logged; the call's own failure is what counts).
   */
  readonly interceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      execute: async (input, next) => {
        const bound = this.bound;
        const ref = bound && modelOfCall(ctx.info.activityType, input.args);
        const key = ref && this.routes.keyOfCall(ctx.info.taskQueue, ref);
        if (!bound || key === undefined) return next(input);
        const startedAt = Date.now();
        try {
          const result = await next(input);
          if (answered(result)) this.accept(key, Date.now());
          return result;
        } catch (err) {
          if (err instanceof ApplicationFailure && err.type === LLM_FAILURE.rateLimited) {
            const retryAfterMs = retryAfterInDetails(err.details) || DEFAULT_RETRY_AFTER_MS;
            await this.refused(bound, key, retryAfterMs, startedAt).catch((failure: unknown) =>
              bound.onError(`pacing ${key}'s queue: ${(failure as Error).message}`),
            );
          }
          throw err;
        }
      },
    },
  });

  close(): void {
    if (this.sweep) clearInterval(this.sweep);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
