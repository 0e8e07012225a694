/**
 * Opening the PostgreSQL store: the URL, the connection pool, and the schema, created or migrated
 * when a worker starts. Migrations are numbered and run under an advisory lock, so several workers
 * starting at once apply each exactly once; a database already at the newest version is left alone.
 */
import { errorText, oneLine } from '../common/error-text';
import pg from 'pg';
import { StoreError } from './content-store';

/** Environment variable selecting the PostgreSQL store. */
export const STORE_URL_ENV = 'DURABLE_AGENTS_STORE_URL';

/** Key of the advisory lock held while migrating (any constant; it names this project's schema). */
const MIGRATION_LOCK = 7_346_201_115;

/** The channel a token stream's appends notify, with the run's id as the payload. */
export const STREAM_CHANNEL = 'durable_agents_stream';
/** First key of the advisory locks that order appends to one run's token stream (the second is the run's hash). */
const STREAM_LOCK_SPACE = 7346;

/**
 * Columns of step 1's tables whose rows are ordered writes of a position (see `WriteOrder`): the
 * body, the write's order, and when it landed. Part of step 1 only; a later step spells out its own.
 */
const V1_ORDERED_WRITE = `
        hash char(64) NOT NULL REFERENCES durable_agents_bodies (hash),
        scheduled_at bigint NOT NULL,
        attempt integer NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now(),`;

/** Each step brings the schema from `version - 1` to `version`; never edit a shipped step, add one. */
const MIGRATIONS: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE durable_agents_bodies (
        hash char(64) PRIMARY KEY,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE durable_agents_entries (
        conversation_id text NOT NULL,
        seq integer NOT NULL,
        kind text NOT NULL,${V1_ORDERED_WRITE}
        PRIMARY KEY (conversation_id, seq)
      );
      CREATE INDEX durable_agents_entries_hash ON durable_agents_entries (hash);
      CREATE TABLE durable_agents_refs (
        conversation_id text NOT NULL,
        hash char(64) NOT NULL REFERENCES durable_agents_bodies (hash),
        written_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (conversation_id, hash)
      );
      CREATE INDEX durable_agents_refs_hash ON durable_agents_refs (hash);
      CREATE TABLE durable_agents_summaries (
        conversation_id text NOT NULL,
        to_seq integer NOT NULL,
        from_seq integer NOT NULL,${V1_ORDERED_WRITE}
        PRIMARY KEY (conversation_id, to_seq)
      );
      CREATE INDEX durable_agents_summaries_hash ON durable_agents_summaries (hash);
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE durable_agents_stream (
        id bigserial PRIMARY KEY,
        run_id text NOT NULL,
        record text NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX durable_agents_stream_run ON durable_agents_stream (run_id, id);
      CREATE FUNCTION durable_agents_append_stream(run text, records text[]) RETURNS void
      LANGUAGE plpgsql AS $$
      BEGIN
        -- Appends to one run wait for each other until they commit, so a reader that reads on from
        -- the last id it saw never misses a row of the run committed after a later one.
        PERFORM pg_advisory_xact_lock(${STREAM_LOCK_SPACE}, hashtext(run));
        INSERT INTO durable_agents_stream (run_id, record)
          SELECT run, r.record FROM unnest(records) WITH ORDINALITY AS r (record, n) ORDER BY r.n;
        PERFORM pg_notify('${STREAM_CHANNEL}', run);
      END
      $$;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Checks the URL's shape; a malformed one gets a one-line error naming the expected form. */
export function parseStoreUrl(url: string): URL {
  const bad = (what: string): StoreError =>
    new StoreError('bad_input', `${STORE_URL_ENV} ${what}; expected postgres://USER:PASSWORD@HOST:5432/DATABASE`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad('is not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw bad(`must start with postgres:// or postgresql:// (got ${parsed.protocol}//…)`);
  if (!parsed.hostname && !parsed.searchParams.get('host')) throw bad('names no host');
  return parsed;
}

export interface PoolOptions {
  /** Most connections at once (default 10). */
  max?: number;
}

/** A pool that survives the database going away: idle connections that break are dropped, not thrown. */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  parseStoreUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // A query that gets no answer (a cut network) fails instead of hanging the activity.
    query_timeout: 60_000,
    application_name: 'durable-agents',
  });
  pool.on('error', () => {
    // An idle connection broke (the server restarted); the next query opens a new one.
  });
  return pool;
}

/** One line for a connection that failed: what, where (no password), why. */
export function connectionFailure(url: string, err: unknown): Error {
  return new Error(
    `Cannot open the PostgreSQL store at ${redactUrl(url)}: ${oneLine(errorText(err))}. ` +
      `Check ${STORE_URL_ENV} and that the database accepts connections.`,
  );
}

/** Creates or migrates the schema to {@link SCHEMA_VERSION}; safe with several workers at once. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS durable_agents_schema ' +
          '(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ version: number }>(
        'SELECT coalesce(max(version), 0)::int AS version FROM durable_agents_schema',
      );
      const current = rows[0].version;
      if (current > SCHEMA_VERSION)
        throw new Error(
          `The store's database schema is version ${current}, newer than this worker knows ` +
            `(${SCHEMA_VERSION}): upgrade the worker.`,
        );
      for (const step of MIGRATIONS.filter((m) => m.version > current)) {
        await client.query('BEGIN');
        try {
          await client.query(step.sql);
          await client.query('INSERT INTO durable_agents_schema (version) VALUES ($1)', [step.version]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
