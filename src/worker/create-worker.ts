import fs from 'node:fs';
import path from 'node:path';
import {
  DefaultLogger,
  NativeConnection,
  Runtime,
  Worker,
  type LogLevel,
  type WorkerOptions,
} from '@temporalio/worker';
import type { SecretSet } from '../common/secrets';
import { createActivities } from '../activities';
import {
  connectionSettingsFromEnv,
  shortCause,
  unreachableMessage,
  type ConnectionSettings,
} from '../connection/connection-settings';
import { SetupError } from '../connection/setup-error';
import { markVersionedWorkerConnection } from '../connection/versioned-workers';
import { ExpectedFailureLogger } from './failure-log';
import { RedactingLogger, redactionInterceptor } from './redaction';
import { workerConfig, type WorkerConfig } from './worker-config';
import { workerDeploymentOptions } from './worker-deployment';
import { createLimitWorkers, runTogether } from './limit-workers';
import { openStore } from '../store';
import type { ToolRegistry } from '../tools';
import { PRELOADED_WORKFLOW_MODULES } from '../common/preloaded-modules';

/** Where the build writes the ahead-of-time workflow bundle (next to the compiled worker). */
const BUNDLE_FILE_NAME = 'workflow-bundle.js';

/**
 * The prebuilt workflow bundle: `DURABLE_AGENTS_WORKFLOW_BUNDLE`, else `workflow-bundle.js` next
 * to the compiled worker (dist/). Undefined when there is none, e.g. when running from source:
 * the worker then bundles at start, which is slower but never stale.
 */
export function prebuiltBundlePath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env.DURABLE_AGENTS_WORKFLOW_BUNDLE;
  if (explicit) {
    if (!fs.existsSync(explicit))
      throw new SetupError(
        `DURABLE_AGENTS_WORKFLOW_BUNDLE=${explicit} does not exist: run \`npm run build\` or unset it.`,
      );
    return explicit;
  }
  const beside = path.join(__dirname, '..', BUNDLE_FILE_NAME);
  return fs.existsSync(beside) ? beside : undefined;
}

/**
 * Sets the SDK's log level (`DURABLE_AGENTS_LOG_LEVEL`, else `fallback`), redacts the worker's
 * `secrets` from every line, and writes expected activity failures as one line each
 * ({@link ExpectedFailureLogger}). Call before the first worker connection; later calls do nothing
 * because the SDK runtime is created once per process (one that installs its own should wrap its
 * logger in {@link RedactingLogger}).
 */
export function configureWorkerLogging(
  fallback: LogLevel,
  secrets?: SecretSet,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (Runtime._instance) return;
  const requested = env.DURABLE_AGENTS_LOG_LEVEL?.toUpperCase();
  const levels: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  const level = levels.find((candidate) => candidate === requested) ?? fallback;
  const logger = new DefaultLogger(level);
  Runtime.install({
    logger: new ExpectedFailureLogger(secrets ? new RedactingLogger(logger, secrets) : logger),
  });
}

/** A worker connection; refuses with a one-line {@link SetupError}. */
export async function connectWorker(
  settings: ConnectionSettings = connectionSettingsFromEnv(),
): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect({ address: settings.address, tls: settings.tls, apiKey: settings.apiKey });
  } catch (error) {
    throw new SetupError(unreachableMessage(settings, shortCause(error)));
  }
}

export interface CreateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /**
   * The worker's config ({@link workerConfig}); its secrets are redacted from every activity's result
   * and failure, and a config with a `deployment` makes a versioned worker whose runs are pinned.
   */
  config: WorkerConfig;
  /** The activity map; see {@link createActivities} for the project's full one. */
  activities: object;
  /** Defaults to {@link prebuiltBundlePath}, falling back to bundling src/workflows at start. */
  bundlePath?: string;
  workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities'>>;
}

/**
 * What the project's worker sets over the SDK's defaults (docs/performance.md, What a run costs at
 * once and in memory): as many workflow-task pollers on the task queue as on the worker's sticky
 * queue, so a new run's first workflow task does not wait behind the running runs' next ones (the
 * SDK's default gives the task queue one poller in five). Options the caller passes win.
 */
export const WORKER_TUNING = { nonStickyToStickyPollRatio: 1 } as const satisfies Partial<WorkerOptions>;

/** The project's worker: every workflow in src/workflows, every activity in src/activities. */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const bundlePath = options.bundlePath ?? prebuiltBundlePath();
  const { interceptors, ...workerOptions } = options.workerOptions ?? {};
  const { deployment } = options.config;
  if (deployment) markVersionedWorkerConnection(options.connection);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(bundlePath
      ? { workflowBundle: { codePath: bundlePath } }
      : {
          workflowsPath: require.resolve('../workflows'),
          bundlerOptions: { preloadModules: [...PRELOADED_WORKFLOW_MODULES] },
        }),
    ...WORKER_TUNING,
    ...(deployment ? { workerDeploymentOptions: workerDeploymentOptions(deployment) } : {}),
    ...workerOptions,
    interceptors: {
      ...interceptors,
      // Outermost, so it sees what every other interceptor returns or throws.
      activity: [redactionInterceptor(options.config.secrets), ...(interceptors?.activity ?? [])],
    },
  });
}

/**
 * Runs the project's worker until SIGINT/SIGTERM (the SDK runtime turns them into a graceful
 * shutdown: polling stops, running tasks finish), then closes the connection. `tools` replaces
 * the default registry (the built-in tools and MCP servers) when an embedding adds its own.
 */
export async function runWorker(
  settings: ConnectionSettings = connectionSettingsFromEnv(),
  onReady?: (worker: Worker, info: { store: string }) => void,
  config: WorkerConfig = workerConfig(),
  tools?: ToolRegistry,
): Promise<void> {
  const store = await openStore();
  let connection: NativeConnection;
  try {
    connection = await connectWorker(settings);
  } catch (error) {
    await store.close();
    throw error;
  }
  const { activities, close } = createActivities({ config, store, ...(tools ? { tools } : {}) });
  try {
    const worker = await createWorker({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      config,
      activities,
    });
    const limited = await createLimitWorkers({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      config,
      activities,
    });
    onReady?.(worker, { store: store.description });
    await runTogether([worker, ...limited]);
  } finally {
    await close();
    await store.close();
    await connection.close();
  }
}
