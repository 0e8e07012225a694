/**
 * The project's worker plugin: every worker (the `worker` command, the demo, the test kits, the
 * benches) is `Worker.create({ connection, taskQueue, plugins: [new DurableAgentsPlugin(…)] })`,
 * so each runs what users run. It registers the activities and their interceptors (redaction
 * outermost, then tracing), the workflow code with its preloaded modules and tracing interceptors,
 * the worker tuning, deployment versioning and the workflows' span sink; and, while the worker runs,
 * the activity workers of the fleet's provider limits (configured, set or learned: `limit-routes.ts`),
 * the pace of their queues (`queue-pacer.ts`) and the approvals gauge.
 */
import { SimplePlugin } from '@temporalio/plugin';
import {
  Runtime,
  type BundleOptions,
  type ReplayWorkerOptions,
  type Worker,
  type WorkerInterceptors,
  type WorkerOptions,
} from '@temporalio/worker';
import { createActivities, type WorkerActivities } from '../activities';
import { createEvalActivities } from '../evals/grade-activity';
import { tuningFor } from './worker-tuning';
import { SetupError } from '../connection/setup-error';
import { markVersionedWorkerConnection } from '../connection/versioned-workers';
import type { ContentStore } from '../store';
import { eventsAheadSink } from './events-ahead';
import {
  FLUSH_AT_STOP_MS,
  currentTracing,
  runMetricsSink,
  startTracing,
  tracingActivityInterceptors,
  tracingClientInterceptors,
  workflowSpanSink,
  type Tracing,
} from '../telemetry';
import type { ToolRegistry } from '../tools';
import { watchApprovalsWaiting } from './approvals-gauge';
import { LimitRoutes } from './limit-routes';
import { LimitWorkers } from './limit-workers';
import { QueuePacer } from './queue-pacer';
import { redactionInterceptor } from './redaction';
import { workerConfig, type WorkerConfig } from './worker-config';
import { workerDeploymentOptions } from './worker-deployment';
import { projectWorkflowCode, withProjectModules, type WorkflowCode } from './workflow-code';

export interface DurableAgentsPluginOptions {
  /**
   * The worker's config ({@link workerConfig}): the LLM layer, the secrets redacted from everything
   * that leaves the worker, telemetry, deployment version and prebuilt bundle. Default: read from
   * the environment and config file when the worker is created.
   */
  config?: WorkerConfig;
  /** Where conversations are kept. Default: the file store (`DURABLE_AGENTS_STORE_DIR`). */
  store?: ContentStore;
  /** The worker's tools. Default: the built-in tools, MCP servers per run. */
  tools?: ToolRegistry;
  /**
   * Activities registered beside the project's: the activities a run's hooks name, an embedding's
   * own, a test's stand-in for one of the project's (a name of the project's replaces it).
   */
  activities?: object;
  /**
   * Workflow code other than the project's (a worker with kinds of its own). Default: the config's
   * prebuilt bundle, else src/workflows bundled at start. Workflow code given to `Worker.create` wins.
   */
  workflows?: WorkflowCode;
  /** Called once the worker runs with its limits' activity workers (their queues' rates set). */
  onPolling?: () => void;
}

/** The parts a plugin builds once, when its first worker is created, and closes when that worker stops. */
class WorkerParts {
  private built?: {
    config: WorkerConfig;
    tracing?: Tracing;
    activities: WorkerActivities;
    routes: LimitRoutes;
    pacer: QueuePacer;
  };

  constructor(private readonly options: DurableAgentsPluginOptions) {}

  /**
   * The store the model calls of a worker with `activities` write their tokens to: the plugin's
   * (secrets redacted), unless the model call is another one (an embedding's or a test's).
   */
  tokenStore(activities: object | undefined): ContentStore | undefined {
    const own = this.parts().activities;
    const callModel = (activities as { callModel?: unknown } | undefined)?.callModel;
    return callModel !== undefined && callModel === own.activities.callModel ? own.store : undefined;
  }

  /** What it builds: the config, tracing, activities, where model calls go and the pace of their queues. */
  parts(): NonNullable<WorkerParts['built']> {
    if (this.built) return this.built;
    const { options } = this;
    const config = options.config ?? workerConfig();
    const { traces } = config.telemetry;
    const tracing = traces ? startTracing(traces, config.secrets) : undefined;
    const routes = new LimitRoutes(config.llm);
    const activities = createActivities({
      config,
      captureContent: traces?.captureContent === true,
      routes,
      ...(options.store ? { store: options.store } : {}),
      ...(options.tools ? { tools: options.tools } : {}),
    });
    this.built = { config, ...(tracing ? { tracing } : {}), activities, routes, pacer: new QueuePacer(routes) };
    return this.built;
  }

  /** The project's activities, the plugin's own over them, what `Worker.create` was given over both. */
  activities(existing: object | undefined): object {
    const { activities, store } = this.parts().activities;
    return { ...activities, ...createEvalActivities(store), ...this.options.activities, ...existing };
  }

  /**
   * Redaction outermost, so it sees what every other interceptor returns or throws; then tracing;
   * then the pace of model calls' queues (`queue-pacer.ts`).
   */
  interceptors(existing: WorkerInterceptors | undefined): WorkerInterceptors {
    const { config, tracing, pacer } = this.parts();
    const clients = existing?.client?.workflow ?? [];
    if (!Array.isArray(clients))
      throw new TypeError('the worker plugin takes workflow client interceptors as an array, not the old object form');
    return {
      ...existing,
      activity: [
        redactionInterceptor(config.secrets),
        ...(tracing ? tracingActivityInterceptors() : []),
        pacer.interceptor,
        ...(existing?.activity ?? []),
      ],
      ...(tracing
        ? {
            client: {
              ...existing?.client,
              workflow: [...tracingClientInterceptors(), ...clients],
            },
          }
        : {}),
    };
  }

  /** Closes the MCP connections of the tools the plugin made itself. */
  async close(): Promise<void> {
    if (!this.options.tools) await this.built?.activities.close();
  }
}

/**
 * The worker plugin of durable-agents:
 *
 * ```ts
 * const worker = await Worker.create({
 *   connection,
 *   taskQueue: 'durable-agents',
 *   plugins: [new DurableAgentsPlugin({ config: workerConfig(), store })],
 * });
 * await worker.run();
 * ```
 *
 * A plugin serves one worker: what it opened (the default tools' MCP connections) closes when that
 * worker stops.
 */
export class DurableAgentsPlugin extends SimplePlugin {
  // Private fields, which the SDK's log of a new worker's options does not print: the config holds
  // the environment MCP configs read and the store holds its connection.
  readonly #given: DurableAgentsPluginOptions;
  readonly #parts: WorkerParts;
  /** The plugin of the limits' activity workers: the same activities and interceptors, no workflows. */
  private readonly limited: SimplePlugin;

  constructor(options: DurableAgentsPluginOptions = {}) {
    const parts = new WorkerParts(options);
    const activities = (existing: object | undefined) => parts.activities(existing);
    const workerInterceptors = (existing: WorkerInterceptors | undefined) => parts.interceptors(existing);
    super({ name: 'durable-agents', activities, workerInterceptors });
    this.#given = options;
    this.#parts = parts;
    this.limited = new SimplePlugin({ name: 'durable-agents-limited', activities, workerInterceptors });
  }

  /** The plugin's workflow code, unless the worker's options name theirs. */
  private workflowCode(options: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'>, bundle?: string) {
    if (options.workflowBundle !== undefined || options.workflowsPath !== undefined) return {};
    return this.#given.workflows ?? projectWorkflowCode(bundle);
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const { config, tracing } = this.#parts.parts();
    const { deployment, telemetry } = config;
    if (telemetry.metrics && !Runtime.instance().options.runtimeOptions.metricsExporter)
      throw new SetupError(
        `metrics on ${telemetry.metrics.bindAddress} need the SDK runtime installed with them: call ` +
          'configureWorkerRuntime(level, config) before the first connection.',
      );
    if (deployment && options.connection) markVersionedWorkerConnection(options.connection);
    const configured = super.configureWorker(options);
    return {
      ...tuningFor(configured),
      ...configured,
      ...this.workflowCode(configured, config.workflowBundle),
      ...(deployment && !configured.workerDeploymentOptions
        ? { workerDeploymentOptions: workerDeploymentOptions(deployment) }
        : {}),
      sinks: {
        ...configured.sinks,
        ...workflowSpanSink(tracing),
        ...runMetricsSink(),
        ...eventsAheadSink(this.#parts.tokenStore(configured.activities)),
      },
    };
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return {
      ...options,
      ...this.workflowCode(options, this.#given.config?.workflowBundle),
      sinks: { ...options.sinks, ...workflowSpanSink(undefined), ...runMetricsSink(), ...eventsAheadSink(undefined) },
    };
  }

  override configureBundler(options: BundleOptions): BundleOptions {
    return withProjectModules(options);
  }

  /**
   * Runs the worker with the activity workers of its provider limits beside it (the config's from the
   * start, others as they appear; when one stops or fails, the others stop), the pace of their queues
   * and, with metrics on, the approvals gauge; then sends the spans still batched and closes what the
   * plugin opened (spans for at most {@link FLUSH_AT_STOP_MS}: spans never hold a worker's stop).
   */
  override async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    const { config, routes, pacer } = this.#parts.parts();
    const { connection, namespace, taskQueue } = worker.options;
    const running = next(worker);
    // Its failure is taken below (by the limits' run); until then it must not count as unhandled.
    running.catch(() => undefined);
    try {
      const onError = (message: string) => Runtime.instance().logger.warn(message);
      const limits = connection
        ? new LimitWorkers(worker, { connection, namespace, taskQueue, llm: config.llm, plugin: this.limited, onError })
        : undefined;
      if (connection && limits) {
        const service = connection.workflowService;
        routes.bind({ service, namespace, taskQueue, poll: (key) => limits.poll(key), onError });
        pacer.bind({ service, namespace, onError });
        try {
          await limits.start();
        } catch (error) {
          // The worker runs already: it stops (and lets go of its connection) before the failure is told.
          await limits.abandon();
          await running.catch(() => undefined);
          throw error;
        }
      }
      this.#given.onPolling?.();
      const stopGauge =
        connection && config.telemetry.metrics
          ? watchApprovalsWaiting({ connection, namespace, taskQueue })
          : undefined;
      try {
        await (limits ? limits.run(running) : running);
      } finally {
        stopGauge?.();
      }
    } finally {
      pacer.close();
      await currentTracing()?.flush(FLUSH_AT_STOP_MS);
      await this.#parts.close();
    }
  }
}
