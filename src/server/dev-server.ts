import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../contracts/search-attributes';
import { isListening } from './ports';
import { uiBaseUrl } from './web-ui';
import { SetupError } from '../connection/setup-error';

/** How to start `temporal server start-dev`. */
export interface DevServerOptions {
  /** Path of the Temporal CLI executable. */
  cliPath: string;
  /** Front-end gRPC port. */
  port: number;
  /** Web UI port; omit to run headless. */
  uiPort?: number;
  /** Bind address of the front end and the UI. Default `127.0.0.1`. */
  ip?: string;
  /** SQLite file that keeps runs across restarts; omit for an in-memory store. */
  dbFilename?: string;
  /** Server log level. Default `warn`. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  /** Receives each line the server writes (stdout and stderr). */
  onLog?: (line: string) => void;
  /** Codec server the Web UI decodes payloads with (`--ui-codec-endpoint`). */
  uiCodecEndpoint?: string;
  /** Start with {@link DEV_SERVER_TUNING}. Default true. */
  tuned?: boolean;
}

/** `start-dev` arguments that set these dynamic config values. */
const dynamicConfig = (...values: string[]): readonly string[] =>
  values.flatMap((value) => ['--dynamic-config-value', value]);

/**
 * What the project's dev servers run with, for latency (docs/performance.md, Where a turn's time goes):
 * SQLite in WAL mode without fsync for a database file (a dev server's runs are not worth an fsync
 * per write), and history task processing without its 20-per-second read limits, so a tool loop's
 * workflow tasks and activities are dispatched as soon as they are written.
 */
const DEV_SERVER_TUNING = dynamicConfig(
  'history.transferProcessorMaxPollRPS=10000',
  'history.timerProcessorMaxPollRPS=10000',
  'history.visibilityProcessorMaxPollRPS=10000',
);

/**
 * What Worker Deployment Versioning needs of a dev server (docs/upgrades.md). The CLI 1.9 dev server
 * (server 1.32) has deployment versions on already; they are set so an older CLI runs versioned workers
 * too. A version's drainage is checked every second instead of every few minutes, so
 * `temporal worker deployment describe-version` shows a drained version as soon as its last pinned
 * run closes.
 */
export const DEV_SERVER_VERSIONING = dynamicConfig(
  'system.enableDeploymentVersions=true',
  'matching.wv.VersionDrainageStatusRefreshInterval=1',
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod=1',
);

/**
 * What the fleet features need of the matcher (docs/fleet.md): fairness keys and their weights
 * are honoured only with `matching.enableFairness` (priorities use the new matcher, on by
 * default), and a queue's rate limit is split among its partitions, each releasing its share in
 * bursts of its own: one partition per queue keeps a provider limit's calls evenly spaced.
 */
const DEV_SERVER_FLEET = dynamicConfig(
  'matching.enableFairness=true',
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
);

/** SQLite pragmas for a dev server's database file (an in-memory database has no journal to tune). */
const DEV_SERVER_FILE_PRAGMAS: readonly string[] = [
  '--sqlite-pragma',
  'journal_mode=wal',
  '--sqlite-pragma',
  'synchronous=off',
];

/** A dev server this process started. */
export interface RunningDevServer {
  address: string;
  /** Web UI base URL, when the UI runs. */
  uiUrl?: string;
  pid: number;
  /** Stops the server gracefully (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** The `start-dev` arguments for these options, search attributes included. */
function devServerArgs(options: DevServerOptions): string[] {
  const args = ['server', 'start-dev', '--ip', options.ip ?? '127.0.0.1', '--port', String(options.port)];
  args.push('--log-level', options.logLevel ?? 'warn');
  if (options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-disable-news-fetch');
  if (options.uiPort !== undefined && options.uiCodecEndpoint)
    args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.dbFilename) args.push('--db-filename', options.dbFilename);
  if (options.tuned !== false) args.push(...DEV_SERVER_TUNING, ...(options.dbFilename ? DEV_SERVER_FILE_PRAGMAS : []));
  args.push(...DEV_SERVER_VERSIONING, ...DEV_SERVER_FLEET, ...searchAttributeArgs());
  return args;
}

/** `--search-attribute Name=Type` for every project search attribute. */
export function searchAttributeArgs(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}

/**
 * Starts `temporal server start-dev` and resolves once it serves requests.
 * Refuses with a {@link SetupError} when a port is already taken or the server exits early; a
 * server already listening on the port gets 10 s to answer, so a busy one is named as a server.
 */
export async function startDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const ip = options.ip ?? '127.0.0.1';
  for (const [port, what] of [
    [options.port, 'gRPC'],
    [options.uiPort, 'Web UI'],
  ] as const) {
    if (port !== undefined && (await isListening(ip, port))) {
      if (what === 'gRPC' && (await serves(`${ip}:${port}`, 10_000))) {
        throw new SetupError(
          `A Temporal server already runs at ${ip}:${port}: use it (TEMPORAL_ADDRESS=${ip}:${port}), or stop ` +
            `it before starting another on this port.`,
        );
      }
      throw new SetupError(
        `Port ${port} (Temporal ${what}) is already in use on ${ip}: stop whatever listens there, choose ` +
          `another port with --port, ` +
          `or, if it is a Temporal server, use it with TEMPORAL_ADDRESS=${ip}:${options.port}.`,
      );
    }
  }
  if (options.dbFilename) fs.mkdirSync(path.dirname(path.resolve(options.dbFilename)), { recursive: true });

  const child = spawn(options.cliPath, devServerArgs(options), { stdio: ['ignore', 'pipe', 'pipe'] });
  const recent: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      recent.push(line);
      if (recent.length > 20) recent.shift();
      options.onLog?.(line);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(-1));
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));

  const address = `${ip.includes(':') ? `[${ip}]` : ip}:${options.port}`;
  const running: RunningDevServer = {
    address,
    uiUrl: options.uiPort === undefined ? undefined : uiBaseUrl(ip, options.uiPort),
    pid: child.pid ?? -1,
    stop: (graceMs = 10_000) => stopChild(child, exited, graceMs),
  };

  const deadline = Date.now() + 60_000;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      const cause = child.pid === undefined ? (await spawnError).message : lastMeaningfulLine(recent);
      throw new SetupError(`The Temporal dev server exited at start (code ${exitCode}): ${cause}`);
    }
    if (await serves(address)) return running;
    await sleep(200);
  }
  await running.stop(2000);
  throw new SetupError(
    `The Temporal dev server did not answer on ${address} within 60000 ms: ${lastMeaningfulLine(recent)}`,
  );
}

/** True when a Temporal front end answers on `address` (a cheap `GetSystemInfo` call). */
export async function serves(address: string, timeoutMs = 2000): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: timeoutMs, tls: false });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function lastMeaningfulLine(lines: string[]): string {
  const errorLine = [...lines].reverse().find((line) => /error|fatal|panic|failed/i.test(line));
  return (errorLine ?? lines.at(-1) ?? 'no output').trim().slice(0, 500);
}
