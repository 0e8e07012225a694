/**
 * The PostgreSQL store's token streams: one append-only table, every run's records in it by id.
 * An append takes the run's advisory lock until it commits and notifies the channel with the run's
 * id (`durable_agents_append_stream`, schema step 2), so ids of one run become visible in order
 * and a reader reads on from the last id it saw. Readers of this process share one connection
 * that listens on the channel; while it is down (and slowly beside it) they poll.
 */
import type pg from 'pg';
import type { TokenRead, TokenRecord } from '../contracts/token-stream';
import type { StoredConversation } from './content-store';
import { STREAM_CHANNEL } from './postgres-schema';
import { parseTokenRecord, type TokenStreamStore } from './token-streams';

/** How often a subscriber is woken without a notification: always, and while the listener is down. */
const SAFETY_POLL_MS = 2_000;
const UNLISTENED_POLL_MS = 200;
/** Wait before connecting the listener again after it broke. */
const RELISTEN_MS = 1_000;
/** Records one read takes at most; the reader reads on at once for the rest. */
const MAX_READ_ROWS = 2_000;

export class PostgresTokenStreams implements TokenStreamStore {
  private readonly subscribers = new Map<string, Set<() => void>>();
  private listener?: pg.PoolClient;
  private connecting?: Promise<void>;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {}

  async append(runId: string, records: readonly TokenRecord[]): Promise<void> {
    await this.pool.query('SELECT durable_agents_append_stream($1, $2::text[])', [
      runId,
      records.map((r) => JSON.stringify(r)),
    ]);
  }

  async read(runId: string, cursor: number): Promise<TokenRead> {
    const { rows } = await this.pool.query<{ id: string; record: string }>(
      'SELECT id, record FROM durable_agents_stream WHERE run_id = $1 AND id > $2 ORDER BY id LIMIT $3',
      [runId, cursor, MAX_READ_ROWS],
    );
    const records = rows.flatMap((row) => {
      const record = parseTokenRecord(row.record);
      return record ? [{ ...record, cursor: Number(row.id) }] : [];
    });
    return { records, cursor: rows.length > 0 ? Number(rows[rows.length - 1].id) : cursor };
  }

  subscribe(runId: string, onChange: () => void): () => void {
    const set = this.subscribers.get(runId) ?? new Set();
    set.add(onChange);
    this.subscribers.set(runId, set);
    void this.listen();
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      onChange();
      timer = setTimeout(tick, this.listener ? SAFETY_POLL_MS : UNLISTENED_POLL_MS).unref();
    };
    timer = setTimeout(tick, this.listener ? SAFETY_POLL_MS : UNLISTENED_POLL_MS).unref();
    return () => {
      clearTimeout(timer);
      set.delete(onChange);
      if (set.size === 0) this.subscribers.delete(runId);
      if (this.subscribers.size === 0) this.unlisten();
    };
  }

  /** Connects the listening connection unless it is up or coming up; failures leave subscribers polling. */
  private listen(): Promise<void> {
    if (this.listener || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      let client: pg.PoolClient | undefined;
      try {
        client = await this.pool.connect();
        client.on('notification', (msg) => {
          if (msg.channel !== STREAM_CHANNEL || msg.payload === undefined) return;
          for (const wake of this.subscribers.get(msg.payload) ?? []) wake();
        });
        client.on('error', () => this.lost());
        await client.query(`LISTEN ${STREAM_CHANNEL}`);
        this.listener = client;
        // What was appended while nobody listened.
        for (const set of this.subscribers.values()) for (const wake of set) wake();
        if (this.subscribers.size === 0 || this.closed) this.unlisten();
      } catch {
        client?.release(true);
        this.retry();
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  private lost(): void {
    const client = this.listener;
    this.listener = undefined;
    client?.release(true);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.subscribers.size === 0) return;
    setTimeout(() => void this.listen(), RELISTEN_MS).unref();
  }

  /** Gives the listening connection back once nobody subscribes. */
  private unlisten(): void {
    const client = this.listener;
    if (!client) return;
    this.listener = undefined;
    client.removeAllListeners('notification');
    client.removeAllListeners('error');
    client.on('error', () => undefined);
    // The connection still listens; it leaves the pool rather than carry that to its next user.
    client.release(true);
  }

  async list(): Promise<StoredConversation[]> {
    const { rows } = await this.pool.query<{ id: string; last: Date }>(
      'SELECT run_id AS id, max(written_at) AS last FROM durable_agents_stream GROUP BY run_id',
    );
    return rows.map((r) => ({ id: r.id, lastWriteAt: r.last.getTime() }));
  }

  async delete(runIds: readonly string[]): Promise<number> {
    const { rows } = await this.pool.query<{ runs: number }>(
      `WITH gone AS (DELETE FROM durable_agents_stream WHERE run_id = ANY($1) RETURNING run_id)
       SELECT count(DISTINCT run_id)::int AS runs FROM gone`,
      [runIds],
    );
    return rows[0]?.runs ?? 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    await this.connecting;
    this.unlisten();
  }
}
