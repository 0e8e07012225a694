import path from 'node:path';
import type { Command } from 'commander';
import { defaultDbFilename, startLocalServer } from '../../server/launcher';
import { parsePort } from '../option-parsers';

/** `durable-agents dev-server`: a local Temporal dev server with its Web UI and a persistent database. */
export function registerDevServerCommand(program: Command): void {
  program
    .command('dev-server')
    .description(
      'Start a local Temporal dev server (Web UI, runs kept in .temporal/dev.db, project search attributes).',
    )
    .option('--port <port>', 'front-end gRPC port', parsePort, 7233)
    .option('--ui-port <port>', 'Web UI port (default: port + 1000)', parsePort)
    .option('--ip <ip>', 'address to bind', '127.0.0.1')
    .option('--db-filename <file>', 'database file (default: .temporal/dev.db in the current directory)')
    .action(async (options: { port: number; uiPort?: number; ip: string; dbFilename?: string }) => {
      const dbFilename = path.resolve(options.dbFilename ?? defaultDbFilename(process.cwd()));
      const server = await startLocalServer({
        ip: options.ip,
        port: options.port,
        uiPort: options.uiPort,
        dbFilename,
        onLog: (line) => process.stderr.write(`${line}\n`),
      });
      const from = server.cli ? `CLI ${server.cli.path}` : "the SDK's downloaded CLI";
      process.stdout.write(
        `Temporal dev server at ${server.address} (${from}, database ${dbFilename})\nWeb UI: ` +
          `${server.uiUrl}\nPress Ctrl-C to stop.\n`,
      );
      await waitForStopSignal();
      await server.stop();
    });
}

function waitForStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}
