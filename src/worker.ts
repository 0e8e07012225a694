/**
 * `durable-agents/worker` and the worker process. Imported, it exports what a worker process needs
 * (./worker/index) and {@link runWorkerProcess}; run directly (`node dist/worker.js`), it runs the
 * worker from its environment and config file, as `durable-agents worker` does.
 */
import { oneLine } from './common/error-text';
import { connectClient, connectionSettingsFromEnv, type ConnectionSettings } from './connection/connection-settings';
import { SetupError, UnreachableServerError } from './connection/setup-error';
import { ensureSearchAttributes } from './connection/search-attribute-registration';
import { stopTracing } from './telemetry';
import { configureWorkerRuntime, runWorker } from './worker/run-worker';
import { workerConfig } from './worker/worker-config';
import { versionLabel, type DeploymentFlags, type WorkerDeploymentVersion } from './worker/worker-deployment';

export * from './worker/index';

export interface WorkerProcessOptions {
  /** Server, namespace and task queue. Default: from the environment. */
  settings?: ConnectionSettings;
  /** `--deployment` and `--build-id`, over `DURABLE_AGENTS_DEPLOYMENT` and `DURABLE_AGENTS_BUILD_ID`. */
  deployment?: DeploymentFlags;
  /** `--metrics-port`: the Prometheus endpoint's port, over `DURABLE_AGENTS_METRICS_PORT`. */
  metricsPort?: string;
  /** `--metrics-bind`: the address it listens on, over `DURABLE_AGENTS_METRICS_BIND` (default 127.0.0.1). */
  metricsBind?: string;
  /** Print one JSON line once it polls instead of a sentence. */
  json?: boolean;
  /** Default: this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** Where the ready and stop lines go. Default: stdout. */
  out?: (text: string) => void;
  /** Where warnings go. Default: stderr. */
  warn?: (text: string) => void;
}

/**
 * The worker process: reads its config (environment and config file) and checks it before it
 * connects, registers missing search attributes, then runs the worker until SIGINT/SIGTERM.
 * Throws a one-line {@link SetupError} for a setup it cannot run with.
 */
export async function runWorkerProcess(options: WorkerProcessOptions = {}): Promise<void> {
  const out = options.out ?? ((text: string) => process.stdout.write(text));
  const warn = options.warn ?? ((text: string) => process.stderr.write(text));
  const config = workerConfig({
    env: options.env,
    deployment: options.deployment,
    metricsPort: options.metricsPort,
    metricsBind: options.metricsBind,
  });
  configureWorkerRuntime('INFO', config, options.env);
  const settings = options.settings ?? connectionSettingsFromEnv(options.env);
  await checkSearchAttributes(settings, out, warn);
  const { address, namespace, taskQueue } = settings;
  const { deployment, telemetry } = config;
  const metrics = telemetry.metrics && `http://${telemetry.metrics.bindAddress}/metrics`;
  const traces = telemetry.traces?.url;
  const ready = (store: string): string =>
    options.json
      ? `${JSON.stringify({ polling: true, address, namespace, taskQueue, store, deployment, metrics, traces })}\n`
      : `Worker polling task queue "${taskQueue}" on ${address} (namespace ${namespace})` +
        (deployment ? ` as version ${versionLabel(deployment)}` : '') +
        `, conversations in ${store}. Ctrl-C stops it.\n` +
        (metrics ? `Metrics on ${metrics}.\n` : '') +
        (traces ? `Spans to ${traces}.\n` : '') +
        (deployment ? currentVersionHint(deployment) : '');
  try {
    await runWorker(settings, (_worker, { store }) => out(ready(store)), config);
  } finally {
    // The process ends with its worker: what it could not send by now is dropped.
    await stopTracing();
  }
  if (!options.json) out('Worker stopped.\n');
}

/** A versioned worker takes no new run until its version is current; the line says how to make it so. */
function currentVersionHint(version: WorkerDeploymentVersion): string {
  return (
    `New runs start on it once it is the current version of its deployment: temporal worker deployment ` +
    `set-current-version --deployment-name ${version.deploymentName} --build-id ${version.buildId}\n`
  );
}

/** Registers missing search attributes; a server that refuses only gets a warning, the worker still runs. */
async function checkSearchAttributes(
  settings: ConnectionSettings,
  out: (text: string) => void,
  warn: (text: string) => void,
): Promise<void> {
  const client = await connectClient(settings);
  try {
    const registered = await ensureSearchAttributes(client, settings.namespace);
    if (registered.length)
      out(`Registered the search attributes ${registered.join(', ')} in namespace ${settings.namespace}.\n`);
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    warn(`warning: ${error.message}\n`);
  } finally {
    await client.connection.close();
  }
}

if (require.main === module) {
  runWorkerProcess().catch((error: unknown) => {
    // The CLI's exit codes: 4 when the server cannot be reached, else 1.
    process.exitCode = error instanceof UnreachableServerError ? 4 : 1;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`durable-agents: ${oneLine(message) || 'unknown error'}\n`);
  });
}
