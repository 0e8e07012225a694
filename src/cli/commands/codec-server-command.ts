import { InvalidArgumentError, type Command } from 'commander';
import {
  bindProblem,
  CODEC_TOKEN_ENV,
  DEFAULT_CODEC_PORT,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_UI_ORIGINS,
  normalizeOrigin,
  startCodecServer,
  type CodecSource,
} from '../../codec';
import { workerConfig, type WorkerConfig } from '../../worker/worker-config';
import { decimalArg, parsePort } from '../option-parsers';
import { waitForStopSignal } from '../stop-signal';
import { UsageError } from '../exit-codes';

interface CodecServerCommandOptions {
  port: number;
  bind: string;
  origin?: string[];
  token?: string;
  maxBodyBytes: number;
}

/** What a codec server reads as this worker config's workers do: their store, and their secrets to redact. */
export const workerCodecSource = (config: WorkerConfig): CodecSource => ({
  store: config.store,
  secrets: config.secrets.list(),
});

/**
 * `durable-agents codec-server`: Temporal's remote codec protocol, showing message bodies where
 * history holds references.
 */
export function registerCodecServerCommand(program: Command, _globals: unknown, env: NodeJS.ProcessEnv): void {
  program
    .command('codec-server')
    .description(
      "Serve Temporal's remote codec protocol so the Web UI and `temporal workflow show --codec-endpoint` " +
        'show message bodies, not hashes.',
    )
    .option('--port <port>', 'port to listen on', parsePort, DEFAULT_CODEC_PORT)
    .option('--bind <host>', 'address to bind; beyond loopback a token is required', '127.0.0.1')
    .option(
      '--origin <url>',
      `Web UI origin allowed to call it (repeatable; default ${DEFAULT_UI_ORIGINS.join(' and ')})`,
      collectOrigin,
    )
    .option('--token <token>', `bearer token every request must carry (default: $${CODEC_TOKEN_ENV})`)
    .option('--max-body-bytes <bytes>', 'largest request body accepted', parseBytes, DEFAULT_MAX_BODY_BYTES)
    .option('--json', 'print one JSON line once it listens (url, origins, token required, store)')
    .action(async (options: CodecServerCommandOptions & { json?: boolean }) => {
      const token = options.token ?? (env[CODEC_TOKEN_ENV] || undefined);
      const refused = bindProblem(options.bind, token);
      if (refused) throw new UsageError(refused);
      const server = await startCodecServer({
        ...workerCodecSource(workerConfig()),
        port: options.port,
        host: options.bind,
        origins: options.origin,
        token,
        maxBodyBytes: options.maxBodyBytes,
      });
      const { url, origins, store } = server;
      if (options.json)
        process.stdout.write(`${JSON.stringify({ url, origins, tokenRequired: Boolean(token), store })}\n`);
      else
        process.stdout.write(
          `Codec server at ${url} (origins ${origins.join(', ')}; ` +
            `${token ? 'bearer token required' : 'no token'}), reading ${store}\n` +
            `Use: temporal workflow show --codec-endpoint ${url} --detailed -w <id>, ` +
            `or temporal server start-dev --ui-codec-endpoint ${url}\n` +
            'Press Ctrl-C to stop.\n',
        );
      await waitForStopSignal();
      await server.close();
    });
}

function collectOrigin(value: string, previous: string[] = []): string[] {
  try {
    return [...previous, normalizeOrigin(value)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

const parseBytes = decimalArg({ what: 'a number of bytes', min: 1, integer: true });
