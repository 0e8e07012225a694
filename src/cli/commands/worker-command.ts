import type { Command } from 'commander';
import { connectClient, type ConnectionSettings } from '../../connection/connection-settings';
import { settingsOf, type GlobalOptions } from '../cli-context';
import { SetupError } from '../../connection/setup-error';
import { ensureSearchAttributes } from '../../server/search-attribute-registration';
import { configureWorkerLogging, runWorker } from '../../worker/create-worker';
import { workerConfig } from '../../worker/worker-config';

/** `durable-agents worker`: the project's worker on its task queue, until Ctrl-C. */
export function registerWorkerCommand(program: Command, globals: () => GlobalOptions = () => ({})): void {
  program
    .command('worker')
    .description(
      'Run the worker (all workflows and activities) against TEMPORAL_ADDRESS (default localhost:7233) on the ' +
        'task queue --task-queue, DURABLE_AGENTS_TASK_QUEUE or durable-agents.',
    )
    .option('--json', 'print one JSON line once it polls (address, namespace, task queue, store)')
    .action(async (options: { json?: boolean }) => {
      const config = workerConfig();
      configureWorkerLogging('INFO', config.secrets);
      const settings = settingsOf(globals(), process.env);
      await checkSearchAttributes(settings);
      const { address, namespace, taskQueue } = settings;
      await runWorker(
        settings,
        (_worker, { store }) =>
          process.stdout.write(
            options.json
              ? `${JSON.stringify({ polling: true, address, namespace, taskQueue, store })}\n`
              : `Worker polling task queue "${taskQueue}" on ${address} (namespace ${namespace}), ` +
                  `conversations in ${store}. Ctrl-C stops it.\n`,
          ),
        config,
      );
      if (!options.json) process.stdout.write('Worker stopped.\n');
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
