/**
 * The file store's token streams: one append-only file per run under `streams/`, its first line
 * `{"run":id}`, then one record a line. Each write starts with a newline, so the torn end of a
 * crashed writer's line stays a line of its own (skipped). A cursor is the byte offset after a
 * record's line, so a read costs the bytes appended since. Readers learn of appends from one
 * `fs.watch` on the streams' directory (inotify on Linux: an event names the file), with a slower
 * poll beside it for the volumes where other hosts' writes raise no event; before the directory
 * exists they look for it. A reader in the writer's own process is woken by the append itself, so a
 * busy event loop does not hold its file-system event back.
 */
import fs from 'node:fs';
import fsAsync from 'node:fs/promises';
import path from 'node:path';
import type { StoredTokenRecord, TokenRead, TokenRecord } from '../contracts/token-stream';
import type { StoredConversation } from './content-store';
import { fileNameOf } from './file-names';
import { parseTokenRecord, type TokenStreamStore } from './token-streams';

/** How often readers look for the streams' directory while it does not exist yet. */
const APPEAR_POLL_MS = 100;
/** How often a reader reads without a file-system event (another host's writes on a shared volume). */
const SAFETY_POLL_MS = 1_000;
/** Runs whose stream file this process remembers having seen (the oldest leave first). */
const KNOWN_KEPT = 10_000;
/** Bytes one read takes at most; the reader reads on at once for the rest. */
const MAX_READ_BYTES = 1 << 20;

/** This process's readers, by stream file (its absolute path), whichever store instance they read. */
const readersHere = new Map<string, Set<() => void>>();

export class FileTokenStreams implements TokenStreamStore {
  private readonly dir: string;
  /** Runs whose stream file this process has seen exist, so their header is not written again. */
  private readonly known = new Set<string>();
  /** Who is woken by an append, by stream file name. */
  private readonly subscribers = new Map<string, Set<() => void>>();
  /** Every subscription still open, which `close` ends (its safety poll and its place among the readers). */
  private readonly unsubscribes = new Set<() => void>();
  private dirWatcher?: fs.FSWatcher;
  private dirTimer?: NodeJS.Timeout;

  constructor(root: string) {
    this.dir = path.join(root, 'streams');
  }

  private file(runId: string): string {
    return path.resolve(this.dir, fileNameOf(runId));
  }

  async append(runId: string, records: readonly TokenRecord[]): Promise<void> {
    const file = this.file(runId);
    const lines = `\n${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
    if (!this.known.has(runId) && !fs.existsSync(file)) {
      fs.mkdirSync(this.dir, { recursive: true });
      // Two first writers may both write the header; readers take the first.
      fs.appendFileSync(file, `${JSON.stringify({ run: runId })}${lines}`);
    } else fs.appendFileSync(file, lines);
    for (const wake of readersHere.get(file) ?? []) wake();
    this.known.add(runId);
    if (this.known.size > KNOWN_KEPT) this.known.delete(this.known.values().next().value as string);
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
    const name = fileNameOf(runId);
    const set = this.subscribers.get(name) ?? new Set();
    set.add(onChange);
    this.subscribers.set(name, set);
    const file = this.file(runId);
    const here = readersHere.get(file) ?? new Set();
    here.add(onChange);
    readersHere.set(file, here);
    this.watchDir();
    const safety = setInterval(onChange, SAFETY_POLL_MS).unref();
    const unsubscribe = () => {
      if (!this.unsubscribes.delete(unsubscribe)) return;
      clearInterval(safety);
      set.delete(onChange);
      if (set.size === 0) this.subscribers.delete(name);
      if (this.subscribers.size === 0) this.unwatchDir();
      here.delete(onChange);
      if (here.size === 0) readersHere.delete(file);
    };
    this.unsubscribes.add(unsubscribe);
    return unsubscribe;
  }

  /** Watches the streams' directory (one watch for every subscriber), or looks for it until it exists. */
  private watchDir(): void {
    if (this.dirWatcher || this.dirTimer) return;
    try {
      this.dirWatcher = fs.watch(this.dir, { persistent: false }, (_event, name) => {
        const woken = name ? [...(this.subscribers.get(String(name)) ?? [])] : this.everySubscriber();
        for (const wake of woken) wake();
      });
      this.dirWatcher.on('error', () => {
        this.unwatchDir();
        if (this.subscribers.size > 0) this.watchDir();
      });
    } catch {
      this.dirWatcher = undefined;
      this.dirTimer = setTimeout(() => {
        this.dirTimer = undefined;
        if (this.subscribers.size === 0) return;
        this.watchDir();
        // Appended before the watch began.
        if (this.dirWatcher) for (const wake of this.everySubscriber()) wake();
      }, APPEAR_POLL_MS).unref();
    }
  }

  private everySubscriber(): (() => void)[] {
    return [...this.subscribers.values()].flatMap((set) => [...set]);
  }

  private unwatchDir(): void {
    this.dirWatcher?.close();
    this.dirWatcher = undefined;
    clearTimeout(this.dirTimer);
    this.dirTimer = undefined;
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
    for (const unsubscribe of [...this.unsubscribes]) unsubscribe();
    this.unwatchDir();
  }
}
