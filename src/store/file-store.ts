/** The embedded default content store: files on local disk. */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from '../common/canonical-json';
import { StoreError, type ContentStore, type LogEntry } from './content-store';

/** Environment variable naming the store directory. */
export const STORE_DIR_ENV = 'DURABLE_AGENTS_STORE_DIR';
export const DEFAULT_STORE_DIR = path.join('.durable-agents', 'store');

export const defaultStoreDir = (): string => path.resolve(process.env[STORE_DIR_ENV] || DEFAULT_STORE_DIR);

const HASH = /^[0-9a-f]{64}$/;

/** A log file name for any conversation id: readable when the id is plain, hashed otherwise. */
function logName(conversationId: string): string {
  if (/^[A-Za-z0-9._-]{1,120}$/.test(conversationId) && !conversationId.startsWith('.'))
    return `${conversationId}.jsonl`;
  const digest = crypto.createHash('sha256').update(conversationId).digest('hex').slice(0, 32);
  return `${conversationId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60)}-${digest}.jsonl`;
}

/**
 * Bodies under `bodies/<2 hex>/<sha256>.json` (written to a temporary file, then renamed, so a
 * reader never sees half a body); logs under `logs/<conversation>.jsonl`, one entry per line.
 */
export class FileContentStore implements ContentStore {
  constructor(readonly root: string = defaultStoreDir()) {}

  private bodyPath(hash: string): string {
    return path.join(this.root, 'bodies', hash.slice(0, 2), `${hash}.json`);
  }

  private logPath(conversationId: string): string {
    return path.join(this.root, 'logs', logName(conversationId));
  }

  async put(body: unknown): Promise<string> {
    const text = canonicalJson(body);
    const hash = crypto.createHash('sha256').update(text).digest('hex');
    const file = this.bodyPath(hash);
    try {
      await fs.access(file);
      return hash;
    } catch {
      // not stored yet
    }
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${crypto.randomUUID()}.tmp`;
    await fs.writeFile(tmp, text);
    await fs.rename(tmp, file);
    return hash;
  }

  async get<T = unknown>(hash: string): Promise<T> {
    if (!HASH.test(hash)) throw new StoreError('bad_input', `"${hash}" is not a content hash`);
    let text: string;
    try {
      text = await fs.readFile(this.bodyPath(hash), 'utf8');
    } catch {
      throw new StoreError('not_found', `no body stored under ${hash} in ${this.root}`);
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new StoreError('corrupt', `body ${hash} in ${this.root} is not valid JSON`);
    }
  }

  async writeEntries(conversationId: string, entries: readonly LogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    for (const e of entries) {
      if (!Number.isInteger(e.seq) || e.seq < 0 || !HASH.test(e.hash))
        throw new StoreError('bad_input', `bad log entry ${JSON.stringify(e)}`);
    }
    const file = this.logPath(conversationId);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // One appendFile per batch: O_APPEND keeps concurrent writers' lines whole.
    await fs.appendFile(
      file,
      entries.map((e) => `${JSON.stringify({ seq: e.seq, kind: e.kind, hash: e.hash })}\n`).join(''),
    );
  }

  async readEntries(conversationId: string, fromSeq: number, toSeq: number): Promise<LogEntry[]> {
    if (toSeq <= fromSeq) return [];
    let text: string;
    try {
      text = await fs.readFile(this.logPath(conversationId), 'utf8');
    } catch {
      throw new StoreError('gap', `conversation ${conversationId} has no log in ${this.root}`);
    }
    const bySeq = new Map<number, LogEntry>();
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
      } catch {
        continue; // a torn last line from a crashed writer; its entry is rewritten by the retry
      }
      if (entry.seq >= fromSeq && entry.seq < toSeq) bySeq.set(entry.seq, entry);
    }
    const out: LogEntry[] = [];
    for (let seq = fromSeq; seq < toSeq; seq++) {
      const entry = bySeq.get(seq);
      if (!entry) throw new StoreError('gap', `conversation ${conversationId} has no entry at position ${seq}`);
      out.push(entry);
    }
    return out;
  }
}
