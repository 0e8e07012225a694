/** The embedded default content store: files on one host's disk. */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import fsSync from 'node:fs';
import path from 'node:path';
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
import { FileLog, entryLines } from './file-log';
import { fileNameOf } from './file-names';
import { FileTokenStreams } from './file-token-streams';

/** Environment variable naming the store directory. */
export const STORE_DIR_ENV = 'DURABLE_AGENTS_STORE_DIR';
/** The file store's directory when none is configured, relative to the working directory. */
export const DEFAULT_STORE_DIR = path.join('.durable-agents', 'store');

/** Logs whose parsed state this process keeps (least recently used leave first). */
const LOGS_KEPT = 64;
/** Body writes this process remembers, to skip checking that a body it just wrote exists. */
const WRITTEN_KEPT = 10_000;
/** Retention never deletes a body written or re-used this recently (a run may be about to record it). */
const BODY_GRACE_MS = 60 * 60 * 1000;

/**
 * Bodies under `bodies/<2 hex>/<sha256>.json` (written to a temporary file, then renamed, so a
 * reader never sees half a body); logs under `logs/<conversation>.jsonl` (see {@link FileLog});
 * token streams under `streams/<run>.jsonl` (see {@link FileTokenStreams}).
 * Several processes on one host may share the directory; hosts share it only through a shared volume.
 * Reads and writes use synchronous calls: small files on a local disk (the page cache, no fsync)
 * take less than a trip through libuv's thread pool, which a turn would make a few dozen times.
 * Retention's scans stay asynchronous.
 */
export class FileContentStore extends CheckedContentStore {
  private readonly logs = new Map<string, FileLog>();
  /** Bodies this process wrote, with when (bounded: the oldest leave first). */
  private readonly written = new Map<string, number>();

  private readonly bodyGraceMs: number;
  protected readonly streams: FileTokenStreams;

  /** `bodyGraceMs`: retention keeps bodies written or re-used this recently (default one hour). */
  constructor(
    readonly root: string = path.resolve(DEFAULT_STORE_DIR),
    options: { cacheBytes?: number; bodyGraceMs?: number } = {},
  ) {
    super(options.cacheBytes);
    this.bodyGraceMs = options.bodyGraceMs ?? BODY_GRACE_MS;
    this.streams = new FileTokenStreams(root);
  }

  get description(): string {
    return `the file store in ${this.root}`;
  }

  private bodyPath(hash: string): string {
    return path.join(this.root, 'bodies', hash.slice(0, 2), `${hash}.json`);
  }

  /** The conversation's log, brought up to date. */
  private async log(conversationId: string): Promise<FileLog> {
    let log = this.logs.get(conversationId);
    if (log) this.logs.delete(conversationId);
    else log = new FileLog(path.join(this.root, 'logs', fileNameOf(conversationId)));
    this.logs.set(conversationId, log);
    for (const oldest of this.logs.keys()) {
      if (this.logs.size <= LOGS_KEPT) break;
      this.logs.delete(oldest);
    }
    log.refresh();
    return log;
  }

  /**
   * Appends `lines` to the conversation's log. `fresh` is the log when the caller has just brought
   * it up to date: only whether the file exists is read from it, and a header written twice by
   * racing first writers is harmless (the first one counts).
   */
  private async append(conversationId: string, lines: string, fresh?: FileLog): Promise<void> {
    const log = fresh ?? (await this.log(conversationId));
    if (!log.exists) fsSync.mkdirSync(path.dirname(log.file), { recursive: true });
    const header = log.exists ? '' : `\n${JSON.stringify({ conversation: conversationId })}`;
    // One append per write: O_APPEND keeps concurrent writers' lines whole.
    fsSync.appendFileSync(log.file, `${header}\n${lines}\n`);
  }

  /**
   * Writes the body file, or marks an existing one as used now (see BODY_GRACE_MS). Answers
   * whether the file was already there: only a body that was could be in retention's hands.
   */
  private ensureBody(hash: string, text: string): boolean {
    const file = this.bodyPath(hash);
    const now = new Date();
    try {
      fsSync.utimesSync(file, now, now);
      return true;
    } catch {
      // not stored yet
    }
    const tmp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
    try {
      fsSync.writeFileSync(tmp, text);
    } catch {
      fsSync.mkdirSync(path.dirname(file), { recursive: true });
      fsSync.writeFileSync(tmp, text);
    }
    fsSync.renameSync(tmp, file);
    this.written.set(hash, Date.now());
    if (this.written.size > WRITTEN_KEPT) this.written.delete(this.written.keys().next().value as string);
    return false;
  }

  /** Whether this process wrote the body within the grace period, so retention cannot have removed it. */
  private writtenRecently(hash: string): boolean {
    const at = this.written.get(hash);
    if (at === undefined) return false;
    if (Date.now() - at < this.bodyGraceMs) return true;
    this.written.delete(hash);
    return false;
  }

  protected async storeBody(hash: string, text: string, conversationId?: string): Promise<void> {
    const log = conversationId === undefined ? undefined : await this.log(conversationId);
    if (conversationId === undefined || log?.hashes.has(hash)) {
      if (!this.bodies.has(hash)) this.ensureBody(hash, text);
      return;
    }
    const existed = this.ensureBody(hash, text);
    await this.append(conversationId, JSON.stringify({ ref: hash }), log);
    // Retention may have removed a body that was already there (an old one) between the two steps
    // above; the ref now protects it. A body just written is inside the grace period retention keeps.
    if (existed) this.ensureBody(hash, text);
  }

  protected async readBodies(hashes: readonly string[]): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    for (const hash of hashes) {
      try {
        texts.set(hash, fsSync.readFileSync(this.bodyPath(hash), 'utf8'));
      } catch {
        // not stored: the caller names what is missing
      }
    }
    return texts;
  }

  protected async appendEntries(
    conversationId: string,
    entries: readonly LogEntry[],
    order: WriteOrder,
  ): Promise<void> {
    for (const e of entries) {
      if (this.bodies.has(e.hash) || this.writtenRecently(e.hash)) continue;
      if (!fsSync.existsSync(this.bodyPath(e.hash)))
        throw new StoreError(
          'not_found',
          `a log entry names body ${e.hash}, which is not stored in ${this.description}`,
        );
    }
    await this.append(conversationId, entryLines(entries, order));
  }

  protected async entriesBetween(conversationId: string, fromSeq: number, toSeq: number): Promise<LogEntry[]> {
    const log = await this.log(conversationId);
    const out: LogEntry[] = [];
    for (let seq = fromSeq; seq < toSeq; seq++) {
      const found = log.entries.get(seq);
      if (!found) throw new StoreError('gap', missing(conversationId, seq, log.exists, this.description));
      out.push(found.entry);
    }
    return out;
  }

  protected async appendSummary(conversationId: string, summary: SummaryRecord, order: WriteOrder): Promise<void> {
    const { scheduledAt, attempt } = order;
    const { hash, fromSeq, toSeq } = summary;
    await this.append(conversationId, JSON.stringify({ summary: hash, fromSeq, toSeq, at: scheduledAt, attempt }));
  }

  protected async logOf(conversationId: string): Promise<ConversationLog> {
    const log = await this.log(conversationId);
    const entries = [...log.entries.values()].map((e) => e.entry).sort((a, b) => a.seq - b.seq);
    const summaries = [...log.summaries.values()].map((s) => s.summary).sort((a, b) => a.toSeq - b.toSeq);
    return { entries, summaries };
  }

  /** Every log file, read afresh (not through the per-process cache). */
  private async allLogs(): Promise<FileLog[]> {
    const dir = path.join(this.root, 'logs');
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const logs = names.filter((n) => n.endsWith('.jsonl')).map((n) => new FileLog(path.join(dir, n)));
    for (const log of logs) log.refresh();
    return logs;
  }

  private static idOf(log: FileLog): string {
    return log.conversation ?? path.basename(log.file, '.jsonl');
  }

  protected async conversationsKept(): Promise<StoredConversation[]> {
    return (await this.allLogs())
      .filter((log) => log.exists)
      .map((log) => ({ id: FileContentStore.idOf(log), lastWriteAt: log.lastWriteAt }));
  }

  protected async removeConversations(ids: readonly string[]): Promise<Omit<DeletedCounts, 'streams'>> {
    const doomed = new Set(ids);
    const counts: Omit<DeletedCounts, 'streams'> = { conversations: 0, entries: 0, bodies: 0 };
    const candidates = new Set<string>();
    const kept = new Set<string>();
    for (const log of await this.allLogs()) {
      if (!doomed.has(FileContentStore.idOf(log))) {
        for (const hash of log.hashes) kept.add(hash);
        continue;
      }
      for (const hash of log.hashes) candidates.add(hash);
      counts.conversations += 1;
      counts.entries += log.entries.size;
      await fs.rm(log.file, { force: true });
    }
    for (const id of ids) this.logs.delete(id);
    const cutoff = Date.now() - this.bodyGraceMs;
    for (const hash of candidates) {
      if (kept.has(hash)) continue;
      const file = this.bodyPath(hash);
      const stat = await fs.stat(file).catch(() => undefined);
      if (!stat || stat.mtimeMs > cutoff) continue;
      await fs.rm(file, { force: true });
      this.bodies.delete(hash);
      this.written.delete(hash);
      counts.bodies += 1;
    }
    return counts;
  }

  protected async closeStorage(): Promise<void> {
    this.logs.clear();
  }
}

/** The message of a missing position: on a file store, usually a run that moved to another host. */
function missing(conversationId: string, seq: number, logExists: boolean, where: string): string {
  const what = logExists
    ? `conversation ${conversationId} has no entry at position ${seq} in ${where}`
    : `${where} does not have conversation ${conversationId}`;
  return (
    `${what}: the file store is one host's disk, so a run that moved to another worker finds nothing here. ` +
    'Give every worker the same PostgreSQL store (DURABLE_AGENTS_STORE_URL) ' +
    'or the same DURABLE_AGENTS_STORE_DIR on a shared volume.'
  );
}
