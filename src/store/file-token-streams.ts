/**
 * The file store's token streams: one append-only file per run under `streams/`, its first line
 * `{"run":id}`, then one record a line. Each write starts with a newline, so the torn end of a
 * crashed writer's line stays a line of its own (skipped). A cursor is the byte offset after a
 * record's line, so a read costs the bytes appended since. Readers learn of appends from
 * `fs.watch` on the file (inotify on Linux), with a slower poll beside it for the volumes where
 * other hosts' writes raise no event; before the file exists they poll for it.
 */
import fs from 'node:fs';
import fsAsync from 'node:fs/promises';
import path from 'node:path';
import type { StoredTokenRecord, TokenRead, TokenRecord } from '../contracts/token-stream';
import type { StoredConversation } from './content-store';
import { fileNameOf } from './file-names';
import { parseTokenRecord, type TokenStreamStore } from './token-streams';

/** How often a reader looks for a stream file that does not exist yet. */
const APPEAR_POLL_MS = 50;
/** How often a reader reads without a file-system event (another host's writes on a shared volume). */
const SAFETY_POLL_MS = 500;
/** Bytes one read takes at most; the reader reads on at once for the rest. */
const MAX_READ_BYTES = 1 << 20;

export class FileTokenStreams implements TokenStreamStore {
  private readonly dir: string;
  /** Runs whose stream file this process has seen exist, so their header is not written again. */
  private readonly known = new Set<string>();

  constructor(root: string) {
    this.dir = path.join(root, 'streams');
  }

  private file(runId: string): string {
    return path.join(this.dir, fileNameOf(runId));
  }

  async append(runId: string, records: readonly TokenRecord[]): Promise<void> {
    const file = this.file(runId);
    const lines = `\n${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
    if (!this.known.has(runId) && !fs.existsSync(file)) {
      fs.mkdirSync(this.dir, { recursive: true });
      // Two first writers may both write the header; readers take the first.
      fs.appendFileSync(file, `${JSON.stringify({ run: runId })}${lines}`);
    } else fs.appendFileSync(file, lines);
    this.known.add(runId);
  }

  async read(runId: string, cursor: number): Promise<TokenRead> {
    let fd: number;
    try {
      fd = fs.openSync(this.file(runId), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], cursor };
      throw err;
    }
    try {
      const size = fs.fstatSync(fd).size;
      // A file shorter than the cursor was deleted and written again: read it from its start.
      const from = size < cursor ? 0 : cursor;
      if (size <= from) return { records: [], cursor: from };
      const buffer = Buffer.alloc(Math.min(size - from, MAX_READ_BYTES));
      const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, from);
      const records: StoredTokenRecord[] = [];
      let start = 0;
      // Only whole lines: a writer may be half-way through the last one.
      for (let end = buffer.indexOf(0x0a, 0); end >= 0 && end < bytesRead; end = buffer.indexOf(0x0a, start)) {
        const text = buffer.subarray(start, end).toString('utf8');
        start = end + 1;
        const record = text.trim() === '' ? undefined : parseTokenRecord(text);
        if (record) records.push({ ...record, cursor: from + start });
      }
      return { records, cursor: from + start };
    } finally {
      fs.closeSync(fd);
    }
  }

  subscribe(runId: string, onChange: () => void): () => void {
    const file = this.file(runId);
    let watcher: fs.FSWatcher | undefined;
    let closed = false;
    const watch = () => {
      try {
        watcher = fs.watch(file, { persistent: false }, () => onChange());
        watcher.on('error', () => {
          watcher?.close();
          watcher = undefined;
        });
      } catch {
        watcher = undefined;
      }
    };
    // Until the file exists (or when it cannot be watched), look for it often; then a slow poll stays beside the watch.
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      if (closed) return;
      if (!watcher && fs.existsSync(file)) {
        // It appeared; a file that cannot be watched is read on every tick instead.
        watch();
        onChange();
      } else if (watcher) onChange();
      timer = setTimeout(tick, watcher ? SAFETY_POLL_MS : APPEAR_POLL_MS);
      timer.unref();
    };
    if (fs.existsSync(file)) watch();
    timer = setTimeout(tick, watcher ? SAFETY_POLL_MS : APPEAR_POLL_MS);
    timer.unref();
    return () => {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    };
  }

  /** The run a stream file belongs to, from its first line. */
  private async runOf(name: string): Promise<string | undefined> {
    const handle = await fsAsync.open(path.join(this.dir, name), 'r').catch(() => undefined);
    if (!handle) return undefined;
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(2048), 0, 2048, 0);
      const first = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0];
      const run = (JSON.parse(first) as { run?: unknown }).run;
      return typeof run === 'string' ? run : undefined;
    } catch {
      return undefined;
    } finally {
      await handle.close();
    }
  }

  async list(): Promise<StoredConversation[]> {
    const names = await fsAsync.readdir(this.dir).catch(() => [] as string[]);
    const out: StoredConversation[] = [];
    for (const name of names.filter((n) => n.endsWith('.jsonl'))) {
      const id = await this.runOf(name);
      const stat = await fsAsync.stat(path.join(this.dir, name)).catch(() => undefined);
      if (id !== undefined && stat) out.push({ id, lastWriteAt: stat.mtimeMs });
    }
    return out;
  }

  async delete(runIds: readonly string[]): Promise<number> {
    let deleted = 0;
    for (const id of runIds) {
      const file = this.file(id);
      if (!fs.existsSync(file)) continue;
      await fsAsync.rm(file, { force: true });
      this.known.delete(id);
      deleted += 1;
    }
    return deleted;
  }

  async close(): Promise<void> {
    this.known.clear();
  }
}
