/**
 * The real tier's Temporal server (docs/testing.md#the-real-tier): `temporal-server` as
 * scripts/real-temporal.sh built it, all four services in one process, with persistence and
 * visibility on the run's PostgreSQL server and the project's dynamic config
 * (docker/dynamicconfig/durable-agents.yaml, the one docker-compose.yml mounts). Its schemas are set
 * up by docker/temporal/setup-postgres.sh, the script compose runs. The server runs detached, its pid
 * in a file of its state folder, so a test can SIGKILL it and start it again, and whoever stops it
 * stops whichever process runs it then.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { ensureSearchAttributes } from '../../src/connection/search-attribute-registration';
import { freePort } from '../../src/server/ports';
import { serves } from '../../src/server/dev-server';
import { REPO_ROOT } from './env';
import { queryDatabase } from './postgres';

/** The folder scripts/real-temporal.sh built the server into (bin/, schema/). */
export const REAL_TEMPORAL_DIR_ENV = 'DURABLE_AGENTS_REAL_TEMPORAL_DIR';

/** Shards and connections of the tier's server; docker-compose.yml gives its server the same. */
export const REAL_SERVER_SETTINGS = { historyShards: 4, maxConns: 20, visibilityMaxConns: 10 } as const;

const ROLE = 'temporal';
const PASSWORD = 'temporal';
const DYNAMIC_CONFIG = path.join(REPO_ROOT, 'docker', 'dynamicconfig', 'durable-agents.yaml');
const SETUP_SCRIPT = path.join(REPO_ROOT, 'docker', 'temporal', 'setup-postgres.sh');

/** A server of the tier: where it answers and where its state is kept. */
export interface RealServer {
  address: string;
  stateDir: string;
}

declare global {
  // The real tier's server, set by its global setup (./real-global-setup.ts), stopped by the teardown.
  var __durableAgentsRealServer: RealServer | undefined;
}

/** The built binaries and schemas; one clear line when scripts/real-temporal.sh has not built them. */
function built(): { server: string; sqlTool: string; schema: string } {
  const dir = process.env[REAL_TEMPORAL_DIR_ENV];
  const server = dir && path.join(dir, 'bin', 'temporal-server');
  if (!dir || !server || !fs.existsSync(server))
    throw new Error(
      `The real tier runs on the server scripts/real-temporal.sh builds: run the tier with that script (${REAL_TEMPORAL_DIR_ENV}=${dir ?? ''} holds no bin/temporal-server).`,
    );
  return { server, sqlTool: path.join(dir, 'bin', 'temporal-sql-tool'), schema: path.join(dir, 'schema') };
}

/** The server's config: its ports, its two databases on `pg`, the project's dynamic config. */
function serverConfig(pg: URL, database: string, ports: number[]): string {
  const [frontend, http, history, matching, worker, metrics, ...membership] = ports;
  const store = (database: string, maxConns: number) =>
    `      sql: { pluginName: postgres12, databaseName: ${database}, connectAddr: "${pg.host}", connectProtocol: tcp, ` +
    `user: ${ROLE}, password: ${PASSWORD}, maxConns: ${maxConns}, maxIdleConns: ${maxConns}, maxConnLifetime: 1h }`;
  const service = (name: string, grpc: number, member: number, extra = '') =>
    `  ${name}: { rpc: { grpcPort: ${grpc}, membershipPort: ${member},${extra} bindOnLocalHost: true } }`;
  return [
    'log: { stdout: true, level: warn }',
    'persistence:',
    '  defaultStore: pg-default',
    '  visibilityStore: pg-visibility',
    `  numHistoryShards: ${REAL_SERVER_SETTINGS.historyShards}`,
    '  datastores:',
    '    pg-default:',
    store(database, REAL_SERVER_SETTINGS.maxConns),
    '    pg-visibility:',
    store(`${database}_visibility`, REAL_SERVER_SETTINGS.visibilityMaxConns),
    'global:',
    '  membership: { maxJoinDuration: 30s, broadcastAddress: "127.0.0.1" }',
    `  metrics: { prometheus: { framework: tally, timerType: histogram, listenAddress: "127.0.0.1:${metrics}" } }`,
    'services:',
    service('frontend', frontend, membership[0], ` httpPort: ${http},`),
    service('history', history, membership[1]),
    service('matching', matching, membership[2]),
    service('worker', worker, membership[3]),
    'clusterMetadata:',
    '  enableGlobalNamespace: false',
    '  failoverVersionIncrement: 10',
    '  masterClusterName: active',
    '  currentClusterName: active',
    '  clusterInformation:',
    `    active: { enabled: true, initialFailoverVersion: 1, rpcName: frontend, rpcAddress: "127.0.0.1:${frontend}" }`,
    'dcRedirectionPolicy: { policy: noop }',
    `dynamicConfigClient: { filepath: ${JSON.stringify(DYNAMIC_CONFIG)}, pollInterval: 10s }`,
    '',
  ].join('\n');
}

async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

const pidFile = (stateDir: string) => path.join(stateDir, 'server.pid');
const logFile = (stateDir: string) => path.join(stateDir, 'server.log');
const addressOf = (stateDir: string) => fs.readFileSync(path.join(stateDir, 'address'), 'utf8').trim();

/** A running process, a zombie not counted (a parent that has not reaped it yet). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  return !fs.existsSync(stat) || !/^\d+ \(.*\) Z/.test(fs.readFileSync(stat, 'utf8'));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The last lines of the server's log, for an error. */
const logTail = (stateDir: string) =>
  fs.existsSync(logFile(stateDir))
    ? fs.readFileSync(logFile(stateDir), 'utf8').trim().split('\n').slice(-3).join(' | ').slice(0, 600)
    : 'no log';

/**
 * Starts the server of `stateDir` (detached, so that it outlives the process that starts it) and
 * resolves once its front end answers; returns its pid.
 */
export async function startServer(stateDir: string, timeoutMs = 60_000): Promise<number> {
  const log = fs.openSync(logFile(stateDir), 'a');
  const child = spawn(
    built().server,
    ['--config-file', path.join(stateDir, 'server.yaml'), '--allow-no-auth', 'start'],
    { detached: true, stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  child.unref();
  const pid = child.pid!;
  fs.writeFileSync(pidFile(stateDir), String(pid));
  const address = addressOf(stateDir);
  const deadline = Date.now() + timeoutMs;
  while (!(await serves(address))) {
    if (!alive(pid)) throw new Error(`temporal-server exited while starting: ${logTail(stateDir)}`);
    if (Date.now() > deadline)
      throw new Error(`temporal-server did not answer on ${address} within ${timeoutMs} ms: ${logTail(stateDir)}`);
    await sleep(100);
  }
  return pid;
}

/** Sends `signal` to the server of `stateDir` and resolves when its process is gone (SIGKILL after 20 s). */
export async function stopServer(stateDir: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const pid = fs.existsSync(pidFile(stateDir)) ? Number(fs.readFileSync(pidFile(stateDir), 'utf8')) : NaN;
  if (!Number.isInteger(pid) || !alive(pid)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + 20_000;
  while (alive(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await sleep(50);
  }
}

/**
 * Sets a server up on the PostgreSQL server whose superuser URL is `pgAdminUrl`: the `temporal` role,
 * the databases `database` and `<database>_visibility` with their schemas
 * (docker/temporal/setup-postgres.sh, the compose stack's script), a config on free ports; starts it
 * and creates the `default` namespace. The tier's server is `temporal`; a test that kills a server
 * starts one of its own beside it, on databases of its own.
 */
export async function startRealServer(pgAdminUrl: string, database = 'temporal'): Promise<RealServer> {
  const { sqlTool, schema } = built();
  const roles = await queryDatabase(pgAdminUrl, 'SELECT 1 FROM pg_roles WHERE rolname = $1', [ROLE]);
  if (roles.length === 0) await queryDatabase(pgAdminUrl, `CREATE ROLE ${ROLE} LOGIN CREATEDB PASSWORD '${PASSWORD}'`);
  const pg = new URL(pgAdminUrl);
  try {
    execFileSync('/bin/sh', [SETUP_SCRIPT], {
      stdio: 'pipe',
      env: {
        ...process.env,
        SQL_TOOL: sqlTool,
        SCHEMA_DIR: schema,
        POSTGRES_SEEDS: pg.hostname,
        DB_PORT: pg.port,
        POSTGRES_USER: ROLE,
        POSTGRES_PWD: PASSWORD,
        DBNAME: database,
        VISIBILITY_DBNAME: `${database}_visibility`,
      },
    });
  } catch (err) {
    const output = `${(err as { stdout?: Buffer }).stdout ?? ''}${(err as { stderr?: Buffer }).stderr ?? ''}`;
    throw new Error(`Temporal's schema setup failed: ${output.trim().split('\n').slice(-2).join(' | ')}`, {
      cause: err,
    });
  }
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-agents-real-temporal-'));
  const ports = await distinctFreePorts(10);
  const address = `127.0.0.1:${ports[0]}`;
  fs.writeFileSync(path.join(stateDir, 'server.yaml'), serverConfig(pg, database, ports));
  fs.writeFileSync(path.join(stateDir, 'address'), address);
  await startServer(stateDir);
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({
      namespace: 'default',
      workflowExecutionRetentionPeriod: msToTs('24h'),
    });
    const info = await connection.workflowService.getClusterInfo({});
    if (!/postgres/.test(info.visibilityStore ?? ''))
      throw new Error(`The real tier's server reports visibility on "${info.visibilityStore}", not PostgreSQL.`);
    await ensureSearchAttributes(new Client({ connection, namespace: 'default' }), 'default');
  } finally {
    await connection.close();
  }
  return { address, stateDir };
}

/** Stops the server and removes its state folder. */
export async function stopRealServer(server: RealServer): Promise<void> {
  await stopServer(server.stateDir);
  fs.rmSync(server.stateDir, { recursive: true, force: true });
}
