/**
 * Log entries a worker already read for a run's model calls, so the next call of the same run
 * reads only the entries added since: a view read costs the same at turn 1,000 as at turn 10.
 *
 * Why a cached entry is never stale. An entry is cached only when a model call (or a summary) of
 * the run read it, and only below that call's `toSeq`. The workflow passes `toSeq = nextSeq`
 * after it recorded the metadata of every position below, and it never writes below a position a
 * model call has been given again: a rewrite (an error result where a tool attempt had written, a
 * failover model's answer) happens only at positions the workflow has not yet moved past. A late
 * write from a superseded attempt cannot replace a newer entry either (the store's write-order
 * rule). What could still change such a position is a reset of the workflow, and a reset starts a
 * new run id: the cache is per run id, so a reset run reads the log afresh. Continue-as-new also
 * starts a new run id; its first model call reads the view once.
 */
import type { LogEntry } from '../../store';

/** Entries kept over all runs; the least recently used run is dropped first. */
const MAX_CACHED_ENTRIES = 500_000;

interface RunEntries {
  /** Settled entries `[from, from + entries.length)`. */
  from: number;
  entries: LogEntry[];
  /** `entries.length` as counted in the total. */
  counted: number;
}

export class SettledLogCache {
  private readonly runs = new Map<string, RunEntries>();
  private total = 0;

  private static key(conversationId: string, runId: string): string {
    return `${runId}\u0000${conversationId}`;
  }

  /**
   * Entries `[fromSeq, toSeq)` of a run whose workflow has moved past `toSeq`: what is cached,
   * plus what `read` returns for the positions after it.
   */
  async read(
    conversationId: string,
    runId: string,
    fromSeq: number,
    toSeq: number,
    read: (from: number, to: number) => Promise<LogEntry[]>,
  ): Promise<LogEntry[]> {
    const key = SettledLogCache.key(conversationId, runId);
    const cached = this.runs.get(key);
    const end = cached ? cached.from + cached.entries.length : 0;
    if (!cached || fromSeq < cached.from || fromSeq > end) {
      const entries = await read(fromSeq, toSeq);
      this.remember(key, { from: fromSeq, entries: entries.slice(), counted: 0 });
      return entries;
    }
    // Computed from what is cached now: another read of the run may change the cache meanwhile.
    const known = cached.entries.slice(fromSeq - cached.from, toSeq - cached.from);
    const fresh = toSeq > end ? await read(end, toSeq) : [];
    if (this.runs.get(key) === cached && cached.from + cached.entries.length === end) {
      cached.entries.push(...fresh);
      // Positions before the view's start were summarised and are not read again.
      cached.entries.splice(0, fromSeq - cached.from);
      cached.from = fromSeq;
      this.remember(key, cached);
    }
    return known.concat(fresh);
  }

  private remember(key: string, run: RunEntries): void {
    const old = this.runs.get(key);
    if (old) this.total -= old.counted;
    this.runs.delete(key);
    this.runs.set(key, run);
    run.counted = run.entries.length;
    this.total += run.counted;
    for (const [oldest, entries] of this.runs) {
      if (this.total <= MAX_CACHED_ENTRIES || oldest === key) break;
      this.runs.delete(oldest);
      this.total -= entries.counted;
    }
  }
}
