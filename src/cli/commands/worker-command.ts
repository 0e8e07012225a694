import type { Command } from 'commander';
import {
  connectClient,
  connectionSettingsFromEnv,
  type ConnectionSettings,
} from '../../connection/connection-settings';
import { SetupError } from '../../connection/setup-error';
import { ensureSearchAttributes } from '../../server/search-attribute-registration';
import { configureWorkerLogging, runWorker } from '../../worker/create-worker';
import { workerConfig } from '../../worker/worker-config';

/** `durable-agents worker`: the project's worker on its task queue, until Ctrl-C. */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Run the worker (all workflows and activities) against TEMPORAL_ADDRESS (default localhost:7233).')
    .option('--task-queue <name>', 'task queue to poll (default: DURABLE_AGENTS_TASK_QUEUE or durable-agents)')
    .action(async (options: { taskQueue?: string }) => {
      const config = workerConfig();
      configureWorkerLogging('INFO', config.secrets);
      const settings = connectionSettingsFromEnv();
      if (options.taskQueue) settings.taskQueue = options.taskQueue;
      await checkSearchAttributes(settings);
      await runWorker(
        settings,
        (_worker, { store }) =>
          process.stdout.write(
            `Worker polling task queue "${settings.taskQueue}" on ${settings.address} (namespace ` +
              `${settings.namespace}), conversations in ${store}. Ctrl-C stops it.\n`,
          ),
        config,
      );
      process.stdout.write('Worker stopped.\n');
    });
}

/** Registers missing search attributes; a server that refuses only gets a warning, the worker still runs. */
async function checkSearchAttributes(settings: ConnectionSettings): Promise<void> {
  const client = await connectClient(settings);
  try {
    const registered = await ensureSearchAttributes(client, settings.namespace);
    if (registered.length)
      process.stdout.write(
        `Registered the search attributes ${registered.join(', ')} in namespace ${settings.namespace}.\n`,
      );
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    process.stderr.write(`durable-agents: warning: ${error.message}\n`);
  } finally {
    await client.connection.close();
  }
}
