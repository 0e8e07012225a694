import { definedFields } from '../../common/type-helpers';
import type { Command } from 'commander';
import { settingsOf, type GlobalOptions } from '../cli-context';
import { runWorkerProcess } from '../../worker';

interface WorkerCommandOptions {
  json?: boolean;
  deployment?: string;
  buildId?: string;
  metricsPort?: string;
  metricsBind?: string;
}

/** `durable-agents worker`: the project's worker on its task queue, until Ctrl-C. */
export function registerWorkerCommand(program: Command, globals: () => GlobalOptions, env: NodeJS.ProcessEnv): void {
  program
    .command('worker')
    .description(
      'Run the worker (all workflows and activities) against TEMPORAL_ADDRESS (default localhost:7233) on the ' +
        'task queue --task-queue, DURABLE_AGENTS_TASK_QUEUE or durable-agents. With --deployment and --build-id ' +
        'it is one version of a worker deployment, and each run stays on the version it began on ' +
        '(docs/upgrades.md).',
    )
    .option(
      '--json',
      'print one JSON line once it polls (address, namespace, task queue, store, deployment, metrics, traces)',
    )
    .option('--deployment <name>', 'the worker deployment it is a version of (default: $DURABLE_AGENTS_DEPLOYMENT)')
    .option('--build-id <id>', 'its build id in that deployment (default: $DURABLE_AGENTS_BUILD_ID)')
    .option(
      '--metrics-port <port>',
      "serve the SDK's and the agents' metrics for Prometheus on this port, at /metrics " +
        '(default: $DURABLE_AGENTS_METRICS_PORT, else none; docs/observability.md)',
    )
    .option(
      '--metrics-bind <address>',
      'the IP address the metrics endpoint listens on; 0.0.0.0 for every interface ' +
        '(default: $DURABLE_AGENTS_METRICS_BIND, else 127.0.0.1, this machine only)',
    )
    .action((options: WorkerCommandOptions) =>
      runWorkerProcess({
        settings: settingsOf(globals(), env),
        deployment: { deployment: options.deployment, buildId: options.buildId },
        ...definedFields({ metricsPort: options.metricsPort, metricsBind: options.metricsBind }),
        json: options.json,
      }),
    );
}
