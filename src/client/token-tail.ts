/**
 * Reading a run's token stream (contracts/token-stream.ts) as it grows: what a watcher shows
 * between the run's events, and what an application reads on its own (`followTokens`). The tail reads
 * what was already streamed, then follows: it subscribes before its first read, so no append is
 * missed, and reads again at each wake-up. A record of a call older than one already read at the
 * same position (an attempt whose worker died, a call the workflow made again) is dropped, so a
 * reader never mixes a dead attempt's pieces into the answer that replaced it.
 */
import {
  callIsNewer,
  type EventEntry,
  type StoredCallRecord,
  type StoredTokenRecord,
  type StreamCall,
  type TokenStreamReader,
} from '../contracts/token-stream';

/** Whether a store (a client's `store`) can also be read for runs' tokens, as both content stores can. */
export function isTokenStreamReader(store: object | undefined): store is TokenStreamReader {
  const reader = store as Partial<TokenStreamReader> | undefined;
  return typeof reader?.readTokens === 'function' && typeof reader.subscribeTokens === 'function';
}

/** Names one attempt of one model call: records of the same call share it. */
export const callKey = (c: StreamCall): string => `${c.seq}:${c.scheduledAt}:${c.attempt}`;

/**
 * A record read and not yet taken; `startReadAt` is when its call's `start` was read here, if it
 * was (for a quick tool call's record of a call that does not stream, when the record was);
 * `after`, the offset of the run's first event after its call began, when the call's `start` says.
 */
export interface BufferedRecord {
  record: StoredCallRecord;
  startReadAt?: number;
  after?: number;
}

/** How many calls' `events` records a tail keeps, the newest. */
const EVENTS_KEPT = 8;

export class TokenTail {
  private cursor: number;
  /** The newest call read at each position. */
  private readonly newest = new Map<number, StreamCall>();
  /** The newest call begun and not ended, when its worker wrote it. */
  private open?: { call: StreamCall; lastWriteAt: number };
  /** When this tail read the `start` of each call not ended yet (this process's clock), and its `after`. */
  private readonly starts = new Map<string, Omit<BufferedRecord, 'record'>>();
  private buffer: BufferedRecord[] = [];
  /** The `events` records read, by the offset their calls' `start` names; a newer one replaces an older. */
  private readonly ahead = new Map<number, EventEntry[]>();
  private started?: { promise: Promise<void>; resolve: () => void };
  private changed = true;
  private readonly waiters = new Set<() => void>();
  private reading?: Promise<void>;
  private waiting?: Promise<void>;
  private unsubscribe?: () => void;
  /** Whether `close` was called: the tail reads nothing more. */
  closed = false;
  /** Why the tail stopped reading, when a read failed. */
  failure?: Error;
  /** Records of the run read so far (those of replaced calls included). */
  received = 0;
  /** When this tail last read a call's `start` or a quick tool call's record (this process's clock). */
  lastStartReadAt = Number.NEGATIVE_INFINITY;
  /** The offset that `start` named, if it named one. */
  lastStartAfter?: number;

  constructor(
    private readonly source: TokenStreamReader,
    readonly runId: string,
    after = 0,
  ) {
    this.cursor = after;
    this.unsubscribe = source.subscribeTokens(runId, () => {
      this.changed = true;
      this.notify();
    });
  }

  /** Reads what the stream holds now into the buffer; a read asked for during another waits for it, then reads. */
  async sync(): Promise<void> {
    while (this.reading) await this.reading;
    if (this.closed || this.failure) return;
    this.reading = this.readAll().finally(() => (this.reading = undefined));
    await this.reading;
  }

  private async readAll(): Promise<void> {
    this.changed = false;
    try {
      for (;;) {
        const { records, cursor } = await this.source.readTokens(this.runId, this.cursor);
        this.cursor = cursor;
        for (const record of records) this.accept(record);
        if (records.length === 0) return;
      }
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.notify();
    }
  }

  private accept(record: StoredTokenRecord): void {
    this.received += 1;
    if (record.type === 'events') {
      this.ahead.delete(record.after);
      this.ahead.set(record.after, record.entries);
      for (const after of [...this.ahead.keys()].slice(0, -EVENTS_KEPT)) this.ahead.delete(after);
      return;
    }
    const newest = this.newest.get(record.seq);
    if (newest && callIsNewer(newest, record)) return;
    if (!newest || callIsNewer(record, newest)) this.newest.set(record.seq, record);
    const key = callKey(record);
    if (record.type === 'start') {
      this.open = { call: record, lastWriteAt: record.at };
      const after = record.after;
      this.starts.set(key, { startReadAt: this.markRead(after), ...(after === undefined ? {} : { after }) });
    } else if (this.open && callKey(this.open.call) === key)
      this.open = record.type === 'end' ? undefined : { call: this.open.call, lastWriteAt: record.at };
    // A quick tool call's record waits, as a call's pieces do, for the events published before its
    // call: those its call's `start` names, or those published before the record was read.
    const start = this.starts.get(key);
    const hold = record.type === 'tool' && start?.after === undefined ? { startReadAt: this.markRead() } : start;
    if (record.type === 'end') this.starts.delete(key);
    this.buffer.push({ record, ...hold });
  }

  /** Notes that a record the events before it must precede was read now (a call's `start`, a quick tool's). */
  private markRead(after?: number): number {
    this.lastStartReadAt = Date.now();
    this.lastStartAfter = after;
    this.started?.resolve();
    this.started = undefined;
    return this.lastStartReadAt;
  }

  /** Resolves when this tail next reads a call's `start` or a quick tool call's record. */
  nextStart(): Promise<void> {
    if (!this.started) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.started = { promise, resolve };
    }
    return this.started.promise;
  }

  /**
   * Whether a model call is streaming now: begun, not ended, and written to within `aliveMs` (a
   * worker that died writes no end).
   */
  streaming(aliveMs: number): boolean {
    return this.open !== undefined && Date.now() - this.open.lastWriteAt < aliveMs;
  }

  /** The run's events before offset `after`, as the worker of the call whose `start` names it wrote them, if read. */
  eventsBefore(after: number): readonly EventEntry[] | undefined {
    return this.ahead.get(after);
  }

  /** The oldest buffered record, if any. */
  head(): BufferedRecord | undefined {
    return this.buffer[0];
  }

  /** Takes buffered records from the oldest on, while `release` lets them go (all of them without it). */
  take(release: (entry: BufferedRecord) => boolean = () => true): StoredCallRecord[] {
    const kept = this.buffer.findIndex((entry) => !release(entry));
    return this.buffer.splice(0, kept < 0 ? this.buffer.length : kept).map((entry) => entry.record);
  }

  /** Resolves once records are buffered or a read failed (see `failure`); never while none come, nor after `close`. */
  ready(): Promise<void> {
    this.waiting ??= this.fill().finally(() => (this.waiting = undefined));
    return this.waiting;
  }

  private async fill(): Promise<void> {
    while (this.buffer.length === 0) {
      if (this.failure) return;
      if (this.closed) return new Promise(() => undefined);
      if (this.changed) await this.sync();
      else await this.changedOrAfter(Number.POSITIVE_INFINITY);
    }
  }

  /** Resolves at the next wake-up of the stream (or a failed read, or `close`), or after `ms`. */
  changedOrAfter(ms: number): Promise<void> {
    if (this.changed || this.closed || this.failure) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      this.waiters.add(done);
    });
  }

  private notify(): void {
    for (const done of [...this.waiters]) done();
  }

  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.notify();
  }
}

export interface FollowTokensOptions {
  /** Cursor to read after (a record's `cursor`); default 0, the stream's start. */
  after?: number;
  /** Ends the reading: the generator returns once it aborts. */
  signal?: AbortSignal;
}

/**
 * A run's token stream from `source` (a content store the workers write, e.g.
 * `openStore(storeConfig())`): every call's record already written, then each new one as it is
 * written, until `signal` aborts (its `events` records are left out: `AgentClient.watch` reads
 * them). Records of a call replaced at the same position by a newer one (another attempt, a call
 * the workflow made again) are left out once the newer one was read. A run's stream has no end of
 * its own: stop it when the run ends. Throws when the store cannot be read.
 */
export async function* followTokens(
  source: TokenStreamReader,
  runId: string,
  options: FollowTokensOptions = {},
): AsyncGenerator<StoredCallRecord, void, undefined> {
  const tail = new TokenTail(source, runId, options.after);
  const aborted = new Promise<void>((resolve) => {
    if (options.signal?.aborted) resolve();
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  try {
    for (;;) {
      await Promise.race([tail.ready(), aborted]);
      if (tail.failure) throw tail.failure;
      if (options.signal?.aborted) return;
      yield* tail.take();
    }
  } finally {
    tail.close();
  }
}
