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
import { createActivities } from '../activities';
import {
  connectionSettingsFromEnv,
  shortCause,
  unreachableMessage,
  type ConnectionSettings,
} from '../connection/connection-settings';
import { SetupError } from '../connection/setup-error';
import { openStore } from '../store';

/** Where the build writes the ahead-of-time workflow bundle (next to the compiled worker). */
export const BUNDLE_FILE_NAME = 'workflow-bundle.js';

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
 * Sets the SDK's log level (`DURABLE_AGENTS_LOG_LEVEL`, else `fallback`). Call before the first
 * worker connection; later calls do nothing because the SDK runtime is created once per process.
 */
export function configureWorkerLogging(fallback: LogLevel, env: NodeJS.ProcessEnv = process.env): void {
  if (Runtime._instance) return;
  const requested = env.DURABLE_AGENTS_LOG_LEVEL?.toUpperCase();
  const levels: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
  const level = levels.find((candidate) => candidate === requested) ?? fallback;
  Runtime.install({ logger: new DefaultLogger(level) });
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
  /** The activity map; see {@link createActivities} for the project's full one. */
  activities: object;
  /** Defaults to {@link prebuiltBundlePath}, falling back to bundling src/workflows at start. */
  bundlePath?: string;
  workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities'>>;
}

/** The project's worker: every workflow in src/workflows, every activity in src/activities. */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const bundlePath = options.bundlePath ?? prebuiltBundlePath();
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : { workflowsPath: require.resolve('../workflows') }),
    ...options.workerOptions,
  });
}

/**
 * Runs the project's worker until SIGINT/SIGTERM (the SDK runtime turns them into a graceful
 * shutdown: polling stops, running tasks finish), then closes the connection.
 */
export async function runWorker(
  settings: ConnectionSettings = connectionSettingsFromEnv(),
  onReady?: (worker: Worker, info: { store: string }) => void,
): Promise<void> {
  const store = await openStore();
  let connection: NativeConnection;
  try {
    connection = await connectWorker(settings);
  } catch (error) {
    await store.close();
    throw error;
  }
  const { activities, close } = createActivities({ store });
  try {
    const worker = await createWorker({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      activities,
    });
    onReady?.(worker, { store: store.description });
    await worker.run();
  } finally {
    await close();
    await store.close();
    await connection.close();
  }
}
