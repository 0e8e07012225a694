/**
 * Which limit a model's calls fall under, as this worker knows it now (docs/fleet.md): the limits of
 * its config, and every limited queue the server holds for its task queue: a limit `limits set` gave
 * while the worker ran, or a rate any worker of the fleet learned from a provider's 429. The runs it
 * serves are told (a model's `limitKey`) and send that model's calls to the limit's queue; a call
 * that reaches the worker on a queue less specific than its limit's is moved there unmade.
 */
import type { CallRoutes } from '../activities/agent/deps';
import type { ModelRef } from '../contracts/model-ref';
import type { LlmConfig } from '../llm';
import { LLM_QUEUE_SEGMENT, limitKeyFor, llmQueueOf } from '../policy/llm-queues';
import { queueRate, type WorkflowService } from './queue-rate';

/** What the routes need of the running worker. */
export interface RoutesBinding {
  service: WorkflowService;
  namespace: string;
  /** The worker's own task queue: limited queues are derived from it. */
  taskQueue: string;
  /** Polls a limit's queue from now on (the worker's activity worker for it). */
  poll(key: string): Promise<void>;
  onError(message: string): void;
}

export class LimitRoutes implements CallRoutes {
  private readonly limited: Set<string>;
  /** Keys asked of the server at least once; the sweep asks again (`QueuePacer`). */
  private readonly asked = new Set<string>();
  private bound?: RoutesBinding;

  constructor(private readonly config: LlmConfig) {
    this.limited = new Set(Object.keys(config.limits));
  }

  /** Starts routing for the running worker. */
  bind(binding: RoutesBinding): void {
    this.bound = binding;
  }

  keyOf(ref: ModelRef): string | undefined {
    return limitKeyFor(ref, [...this.limited]);
  }

  /** The task queue of `key`'s calls; undefined before the worker runs. */
  queueOf(key: string): string | undefined {
    return this.bound && llmQueueOf(this.bound.taskQueue, key);
  }

  /** The limit a call of `ref` on `taskQueue` counts under: its queue's, else the model's, else its provider. */
  keyOfCall(taskQueue: string, ref: ModelRef): string | undefined {
    if (!this.bound) return undefined;
    const prefix = `${this.bound.taskQueue}${LLM_QUEUE_SEGMENT}`;
    if (taskQueue.startsWith(prefix)) return taskQueue.slice(prefix.length);
    return taskQueue === this.bound.taskQueue ? (this.keyOf(ref) ?? ref.provider) : undefined;
  }

  moveFrom(taskQueue: string, ref: ModelRef): string | undefined {
    const key = this.keyOf(ref);
    if (!this.bound || key === undefined) return undefined;
    const base = this.bound.taskQueue;
    if (taskQueue === base) return key;
    // From the provider's queue to the model's own, never back: a call moves at most twice.
    return taskQueue === llmQueueOf(base, ref.provider) && key !== ref.provider ? key : undefined;
  }

  /** What the sweep looks at: every provider of the config, every limit known and every model seen. */
  candidates(): string[] {
    return [...new Set([...Object.keys(this.config.providers), ...this.limited, ...this.asked])];
  }

  /** `key`'s queue has a rate on the server: its calls go there, and the worker polls it. */
  async markLimited(key: string): Promise<void> {
    this.limited.add(key);
    await this.bound?.poll(key);
  }

  async refresh(ref: ModelRef): Promise<void> {
    const bound = this.bound;
    if (!bound) return;
    const keys = [`${ref.provider}/${ref.model}`, ref.provider].filter(
      (k) => !this.limited.has(k) && !this.asked.has(k),
    );
    await Promise.all(
      keys.map(async (key) => {
        this.asked.add(key);
        try {
          const rate = await queueRate(bound.service, bound.namespace, llmQueueOf(bound.taskQueue, key));
          if (rate.requestsPerMinute !== undefined) await this.markLimited(key);
        } catch (err) {
          this.asked.delete(key);
          bound.onError(`reading the limit of ${key}: ${(err as Error).message}`);
        }
      }),
    );
  }
}
