import type { Command } from 'commander';
import { connectionSettingsFromEnv } from '../../client/connection';
import { configureWorkerLogging, runWorker } from '../../worker';

/** `durable-agents worker`: the project's worker on its task queue, until Ctrl-C. */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Run the worker (all workflows and activities) against TEMPORAL_ADDRESS (default localhost:7233).')
    .option('--task-queue <name>', 'task queue to poll (default: DURABLE_AGENTS_TASK_QUEUE or durable-agents)')
    .action(async (options: { taskQueue?: string }) => {
      configureWorkerLogging('INFO');
      const settings = connectionSettingsFromEnv();
      if (options.taskQueue) settings.taskQueue = options.taskQueue;
      await runWorker(settings, () =>
        process.stdout.write(`Worker polling task queue "${settings.taskQueue}" on ${settings.address} (namespace ${settings.namespace}). Ctrl-C stops it.\n`),
      );
      process.stdout.write('Worker stopped.\n');
    });
}
