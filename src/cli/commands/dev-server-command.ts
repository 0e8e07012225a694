import path from 'node:path';
import type { Command } from 'commander';
import { defaultDbFilename, startLocalServer } from '../../server/launcher';
import { parsePort } from '../option-parsers';
import { waitForStopSignal } from '../stop-signal';
import { workerConfig } from '../../worker/worker-config';
import { workerCodecSource } from './codec-server-command';

interface DevServerCommandOptions {
  port: number;
  uiPort?: number;
  ip: string;
  dbFilename?: string;
  codec: boolean;
  codecPort?: number;
}

/** The printed line naming a started codec server and how to use it from the CLI. */
export function codecLine(codecUrl: string, workflowId = '<id>'): string {
  return (
    `Codec server: ${codecUrl} (message bodies in the Web UI; ` +
    `temporal workflow show --codec-endpoint ${codecUrl} --detailed -w ${workflowId})`
  );
}

/** `durable-agents dev-server`: a local Temporal dev server with its Web UI and a persistent database. */
export function registerDevServerCommand(program: Command, _globals: unknown, env: NodeJS.ProcessEnv): void {
  program
    .command('dev-server')
    .description(
      'Start a local Temporal dev server (Web UI, runs kept in .temporal/dev.db, project search attributes).',
    )
    .option('--port <port>', 'front-end gRPC port', parsePort, 7233)
    .option('--ui-port <port>', 'Web UI port (default: port + 1000)', parsePort)
    .option('--ip <ip>', 'address to bind', '127.0.0.1')
    .option('--db-filename <file>', 'database file (default: .temporal/dev.db in the current directory)')
    .option(
      '--codec-port <port>',
      'port of the codec server the Web UI reads message bodies from (default 8081, else a free one)',
      parsePort,
    )
    .option('--no-codec', 'start no codec server: the Web UI shows content hashes instead of message bodies')
    .option('--json', 'print one JSON line once it serves (address, Web UI, codec server, database)')
    .action(async (options: DevServerCommandOptions & { json?: boolean }) => {
      const dbFilename = path.resolve(options.dbFilename ?? defaultDbFilename(process.cwd()));
      const server = await startLocalServer({
        env,
        ip: options.ip,
        port: options.port,
        uiPort: options.uiPort,
        dbFilename,
        onLog: (line) => process.stderr.write(`${line}\n`),
        ...(options.codec ? { codec: workerCodecSource(workerConfig()) } : {}),
        codecPort: options.codecPort,
      });
      const from = server.cli ? `CLI ${server.cli.path}` : "the SDK's downloaded CLI";
      const { address, uiUrl, codecUrl } = server;
      if (options.json) process.stdout.write(`${JSON.stringify({ address, uiUrl, codecUrl, dbFilename })}\n`);
      else
        process.stdout.write(
          `Temporal dev server at ${server.address} (${from}, database ${dbFilename})\nWeb UI: ${server.uiUrl}\n` +
            (server.codecUrl ? `${codecLine(server.codecUrl)}\n` : '') +
            'Press Ctrl-C to stop.\n',
        );
      await waitForStopSignal();
      await server.stop();
    });
}
