/**
 * The worker process's pieces: its SDK runtime (logging, metrics), its connection, and the worker
 * run until a signal.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import {
  connectionSettingsFromEnv,
  shortCause,
  unreachableMessage,
  type ConnectionSettings,
} from '../connection/connection-settings';
import { SetupError } from '../connection/setup-error';
import { runtimeTelemetryOptions } from '../telemetry';
import { ExpectedFailureLogger } from './failure-log';
import { RedactingLogger } from './redaction';
import { workerConfig, workerLogLevel, type WorkerConfig } from './worker-config';
import { DurableAgentsPlugin } from './plugin';
import { openStore } from '../store';
import type { ToolRegistry } from '../tools';

/**
 * Installs the process's SDK runtime: the log level (`DURABLE_AGENTS_LOG_LEVEL`, else `fallback`),
 * the worker's secrets redacted from every line, expected activity failures as one line each
 * ({@link ExpectedFailureLogger}), and the Prometheus endpoint of `config.telemetry.metrics`. Call
 * before the first worker connection: the runtime is created once per process, so later calls do
 * nothing, and metrics asked of a process whose runtime is already installed are refused in one line.
 */
export function configureWorkerRuntime(
  fallback: LogLevel,
  config?: Pick<WorkerConfig, 'secrets' | 'telemetry'>,
  env?: NodeJS.ProcessEnv,
): void {
  const metrics = config?.telemetry.metrics;
  if (Runtime._instance) {
    if (metrics)
      throw new SetupError(
        `metrics on ${metrics.bindAddress} need the SDK runtime installed with them, and this process installed it ` +
          'before: configure the worker runtime before the first connection.',
      );
    return;
  }
  const logger = new DefaultLogger(workerLogLevel(env) ?? fallback);
  Runtime.install({
    logger: new ExpectedFailureLogger(config ? new RedactingLogger(logger, config.secrets) : logger),
    ...(metrics ? { telemetryOptions: runtimeTelemetryOptions(metrics) } : {}),
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

/**
 * Runs the project's worker until SIGINT/SIGTERM (the SDK runtime turns them into a graceful
 * shutdown: polling stops, running tasks finish), then closes the connection; `onReady` is called
 * once it polls. `tools` replaces the default registry (the built-in tools and MCP servers) when an
 * embedding adds its own.
 */
export async function runWorker(
  settings: ConnectionSettings = connectionSettingsFromEnv(),
  onReady?: (worker: Worker, info: { store: string }) => void,
  config: WorkerConfig = workerConfig(),
  tools?: ToolRegistry,
): Promise<void> {
  const store = await openStore(config.store);
  let connection: NativeConnection;
  try {
    connection = await connectWorker(settings);
  } catch (error) {
    await store.close();
    throw error;
  }
  try {
    const worker: Worker = await Worker.create({
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      plugins: [
        new DurableAgentsPlugin({
          config,
          store,
          ...(tools ? { tools } : {}),
          onPolling: () => onReady?.(worker, { store: store.description }),
        }),
      ],
    });
    await worker.run();
  } finally {
    await store.close();
    await connection.close();
  }
}
