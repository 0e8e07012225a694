/**
 * One conversation's log file of the file store, and what this process has read of it. The file
 * only grows (every write appends lines), so a reader keeps its position and parses only the bytes
 * appended since: a read costs the new lines, not the whole conversation.
 *
 * Line shapes: `{"conversation":id}` (first line), an entry `{"seq","kind","hash","at","attempt"}`,
 * a body the conversation uses `{"ref":hash}`, a summary `{"summary":hash,"fromSeq","toSeq","at","attempt"}`.
 * Each write starts with a newline, so the torn end of a crashed writer's line stays a line of its
 * own (skipped) and never swallows the next writer's. Files are read with synchronous calls (see
 * FileContentStore).
 */
import fs from 'node:fs';
import { supersedes, type LogEntry, type SummaryRecord, type WriteOrder } from './content-store';

const num = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

export class FileLog {
  /** The newest write of each position. */
  readonly entries = new Map<number, { entry: LogEntry; order: WriteOrder }>();
  /** Every hash the file names (entries, superseded ones included, refs and summaries). */
  readonly hashes = new Set<string>();
  /** The newest summary recorded for each end position. */
  readonly summaries = new Map<number, { summary: SummaryRecord; order: WriteOrder }>();
  conversation?: string;
  lastWriteAt = 0;
  private offset = 0;
  private inode = -1;

  constructor(readonly file: string) {}

  get exists(): boolean {
    return this.inode !== -1;
  }

  private reset(): void {
    this.entries.clear();
    this.hashes.clear();
    this.summaries.clear();
    this.conversation = undefined;
    this.lastWriteAt = 0;
    this.offset = 0;
    this.inode = -1;
  }

  /** Reads what was appended since the last call (everything after a delete or replacement). */
  refresh(): void {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return this.reset();
      throw err;
    }
    try {
      const stat = fs.fstatSync(fd);
      if (stat.ino !== this.inode || stat.size < this.offset) {
        this.reset();
        this.inode = stat.ino;
      }
      this.lastWriteAt = stat.mtimeMs;
      if (stat.size <= this.offset) return;
      const buffer = Buffer.alloc(stat.size - this.offset);
      const bytesRead = fs.readSync(fd, buffer, 0, buffer.length, this.offset);
      // Only whole lines: a writer may be half-way through the last one.
      const end = buffer.subarray(0, bytesRead).lastIndexOf(0x0a) + 1;
      if (end === 0) return;
      for (const text of buffer.subarray(0, end).toString('utf8').split('\n')) this.apply(text);
      this.offset += end;
    } finally {
      fs.closeSync(fd);
    }
  }

  private apply(text: string): void {
    if (text.trim() === '') return;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return; // the torn line of a crashed writer; its entry was written again by the retry
    }
    if (typeof line.conversation === 'string') this.conversation ??= line.conversation;
    if (typeof line.ref === 'string') this.hashes.add(line.ref);
    // Lines written before write orders existed count as the oldest possible write.
    const order = { scheduledAt: num(line.at, 0), attempt: num(line.attempt, 0) };
    if (typeof line.summary === 'string') {
      this.hashes.add(line.summary);
      const summary = { fromSeq: num(line.fromSeq, 0), toSeq: num(line.toSeq, 0), hash: line.summary };
      const current = this.summaries.get(summary.toSeq);
      if (!current || supersedes(order, current.order)) this.summaries.set(summary.toSeq, { summary, order });
    }
    if (typeof line.seq === 'number' && typeof line.hash === 'string' && typeof line.kind === 'string') {
      this.hashes.add(line.hash);
      const current = this.entries.get(line.seq);
      if (!current || supersedes(order, current.order))
        this.entries.set(line.seq, {
          entry: { seq: line.seq, kind: line.kind as LogEntry['kind'], hash: line.hash },
          order,
        });
    }
  }
}

/** The text of lines appended in one write (see the file comment for the shapes). */
export function entryLines(entries: readonly LogEntry[], order: WriteOrder): string {
  return entries
    .map((e) =>
      JSON.stringify({ seq: e.seq, kind: e.kind, hash: e.hash, at: order.scheduledAt, attempt: order.attempt }),
    )
    .join('\n');
}
