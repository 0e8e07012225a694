/**
 * The shared content store: bodies and conversation logs in PostgreSQL, so any worker on any
 * host continues any run. Foreign keys make "a body is stored before anything references it" a
 * rule the database enforces, and keep retention from deleting a body someone still uses. Runs'
 * token streams are in their own table (see {@link PostgresTokenStreams}).
 */
import type pg from 'pg';
import { CheckedContentStore } from './checked-store';
import {
  StoreError,
  type ConversationLog,
  type DeletedCounts,
  type LogEntry,
  type StoredConversation,
  type SummaryRecord,
  type WriteOrder,
} from './content-store';
import { connectionFailure, createPool, migrate, redactUrl, type PoolOptions } from './postgres-schema';
import { PostgresTokenStreams } from './postgres-token-streams';

/** SQLSTATE of a foreign key violation. */
const FOREIGN_KEY_VIOLATION = '23503';

/**
 * A write at a position keeps the newest write order (see `WriteOrder`): the update applies only
 * when the stored row is not newer, so a superseded attempt that finishes late changes nothing.
 */
const WRITE_ENTRIES = `
  INSERT INTO durable_agents_entries AS e (conversation_id, seq, kind, hash, scheduled_at, attempt)
  SELECT $1, w.seq, w.kind, w.hash, $5, $6 FROM unnest($2::int[], $3::text[], $4::text[]) AS w (seq, kind, hash)
  ON CONFLICT (conversation_id, seq) DO UPDATE
    SET kind = excluded.kind, hash = excluded.hash, scheduled_at = excluded.scheduled_at,
        attempt = excluded.attempt, written_at = now()
    WHERE (e.scheduled_at, e.attempt) <= (excluded.scheduled_at, excluded.attempt)`;

export class PostgresContentStore extends CheckedContentStore {
  protected readonly streams: PostgresTokenStreams;

  constructor(
    private readonly pool: pg.Pool,
    readonly description: string,
    options: { cacheBytes?: number } = {},
  ) {
    super(options.cacheBytes);
    this.streams = new PostgresTokenStreams(pool);
  }

  /** Connects, creates or migrates the schema, and returns the store; one clear error when it cannot. */
  static async open(url: string, options: PoolOptions & { cacheBytes?: number } = {}): Promise<PostgresContentStore> {
    const pool = createPool(url, options);
    try {
      await migrate(pool);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw connectionFailure(url, err);
    }
    return new PostgresContentStore(pool, `the PostgreSQL store at ${redactUrl(url)}`, options);
  }

  protected async storeBody(hash: string, text: string, conversationId?: string): Promise<void> {
    if (conversationId === undefined) {
      if (!this.bodies.has(hash))
        await this.pool.query('INSERT INTO durable_agents_bodies (hash, body) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
          hash,
          text,
        ]);
      return;
    }
    // One statement: the body (if new), then the conversation's use of it, checked by its foreign key.
    await this.pool.query(
      `WITH body AS (INSERT INTO durable_agents_bodies (hash, body) VALUES ($1, $2) ON CONFLICT DO NOTHING)
       INSERT INTO durable_agents_refs (conversation_id, hash) VALUES ($3, $1) ON CONFLICT DO NOTHING`,
      [hash, text, conversationId],
    );
  }

  protected async readBodies(hashes: readonly string[]): Promise<Map<string, string>> {
    const { rows } = await this.pool.query<{ hash: string; body: string }>(
      'SELECT hash, body FROM durable_agents_bodies WHERE hash = ANY($1::char(64)[])',
      [hashes],
    );
    return new Map(rows.map((row) => [row.hash, row.body]));
  }

  protected async appendEntries(
    conversationId: string,
    entries: readonly LogEntry[],
    order: WriteOrder,
  ): Promise<void> {
    try {
      await this.pool.query(WRITE_ENTRIES, [
        conversationId,
        entries.map((e) => e.seq),
        entries.map((e) => e.kind),
        entries.map((e) => e.hash),
        order.scheduledAt,
        order.attempt,
      ]);
    } catch (err) {
      if ((err as { code?: string }).code === FOREIGN_KEY_VIOLATION)
        throw new StoreError('not_found', `a log entry names a body that is not stored in ${this.description}`);
      throw err;
    }
  }

  protected async entriesBetween(conversationId: string, fromSeq: number, toSeq: number): Promise<LogEntry[]> {
    const { rows } = await this.pool.query<LogEntry>(
      `SELECT seq, kind, hash FROM durable_agents_entries
       WHERE conversation_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`,
      [conversationId, fromSeq, toSeq],
    );
    for (let i = 0; i < toSeq - fromSeq; i++) {
      if (rows[i]?.seq !== fromSeq + i)
        throw new StoreError(
          'gap',
          `conversation ${conversationId} has no entry at position ${fromSeq + i} in ${this.description}`,
        );
    }
    return rows;
  }

  protected async appendSummary(conversationId: string, summary: SummaryRecord, order: WriteOrder): Promise<void> {
    await this.pool.query(
      `INSERT INTO durable_agents_summaries AS s (conversation_id, to_seq, from_seq, hash, scheduled_at, attempt)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (conversation_id, to_seq) DO UPDATE
         SET from_seq = excluded.from_seq, hash = excluded.hash, scheduled_at = excluded.scheduled_at,
             attempt = excluded.attempt, written_at = now()
         WHERE (s.scheduled_at, s.attempt) <= (excluded.scheduled_at, excluded.attempt)`,
      [conversationId, summary.toSeq, summary.fromSeq, summary.hash, order.scheduledAt, order.attempt],
    );
  }

  protected async logOf(conversationId: string): Promise<ConversationLog> {
    const [entries, summaries] = await Promise.all([
      this.pool.query<LogEntry>(
        'SELECT seq, kind, hash FROM durable_agents_entries WHERE conversation_id = $1 ORDER BY seq',
        [conversationId],
      ),
      this.pool.query<SummaryRecord>(
        `SELECT from_seq AS "fromSeq", to_seq AS "toSeq", hash FROM durable_agents_summaries
         WHERE conversation_id = $1 ORDER BY to_seq`,
        [conversationId],
      ),
    ]);
    return { entries: entries.rows, summaries: summaries.rows };
  }

  protected async conversationsKept(): Promise<StoredConversation[]> {
    const { rows } = await this.pool.query<{ id: string; last: Date }>(
      `SELECT conversation_id AS id, max(written_at) AS last FROM (
         SELECT conversation_id, written_at FROM durable_agents_entries
         UNION ALL SELECT conversation_id, written_at FROM durable_agents_refs
         UNION ALL SELECT conversation_id, written_at FROM durable_agents_summaries
       ) AS w GROUP BY conversation_id ORDER BY conversation_id`,
    );
    return rows.map((r) => ({ id: r.id, lastWriteAt: r.last.getTime() }));
  }

  protected async removeConversations(ids: readonly string[]): Promise<Omit<DeletedCounts, 'streams'>> {
    // A run that records a shared body at the same moment makes the body delete fail on its
    // foreign key; the next try sees that use and keeps the body.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deleteOnce(ids);
      } catch (err) {
        if ((err as { code?: string }).code !== FOREIGN_KEY_VIOLATION || attempt >= 5) throw err;
      }
    }
  }

  private async deleteOnce(ids: readonly string[]): Promise<Omit<DeletedCounts, 'streams'>> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const used = `SELECT hash FROM durable_agents_entries WHERE conversation_id = ANY($1)
        UNION SELECT hash FROM durable_agents_refs WHERE conversation_id = ANY($1)
        UNION SELECT hash FROM durable_agents_summaries WHERE conversation_id = ANY($1)`;
      const candidates = (await client.query<{ hash: string }>(used, [ids])).rows.map((r) => r.hash);
      const conversations = await client.query<{ id: string }>(
        `SELECT DISTINCT conversation_id AS id FROM (
           SELECT conversation_id FROM durable_agents_entries WHERE conversation_id = ANY($1)
           UNION ALL SELECT conversation_id FROM durable_agents_refs WHERE conversation_id = ANY($1)
           UNION ALL SELECT conversation_id FROM durable_agents_summaries WHERE conversation_id = ANY($1)) AS c`,
        [ids],
      );
      const entries = await client.query('DELETE FROM durable_agents_entries WHERE conversation_id = ANY($1)', [ids]);
      await client.query('DELETE FROM durable_agents_refs WHERE conversation_id = ANY($1)', [ids]);
      await client.query('DELETE FROM durable_agents_summaries WHERE conversation_id = ANY($1)', [ids]);
      const bodies = await client.query<{ hash: string }>(
        `DELETE FROM durable_agents_bodies b WHERE b.hash = ANY($1::char(64)[])
           AND NOT EXISTS (SELECT 1 FROM durable_agents_entries e WHERE e.hash = b.hash)
           AND NOT EXISTS (SELECT 1 FROM durable_agents_refs r WHERE r.hash = b.hash)
           AND NOT EXISTS (SELECT 1 FROM durable_agents_summaries s WHERE s.hash = b.hash)
         RETURNING b.hash`,
        [candidates],
      );
      await client.query('COMMIT');
      for (const row of bodies.rows) this.bodies.delete(row.hash);
      return {
        conversations: conversations.rowCount ?? 0,
        entries: entries.rowCount ?? 0,
        bodies: bodies.rowCount ?? 0,
      };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  protected async closeStorage(): Promise<void> {
    await this.pool.end();
  }
}
