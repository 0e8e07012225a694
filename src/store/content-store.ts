/**
 * The content store: message bodies addressed by the hash of their content, and one append-only
 * log per conversation that orders them. Activities read and write it; the workflow only holds
 * hashes and log positions. Other backends implement the same interface.
 */
import type { AgentMessageKind } from '../contracts/agent-run';

/** One position of a conversation log. */
export interface LogEntry {
  seq: number;
  kind: AgentMessageKind;
  hash: string;
}

export interface ContentStore {
  /** Stores a JSON body; returns its content hash (the same body always gives the same hash). */
  put(body: unknown): Promise<string>;
  /** The body stored under `hash`; throws {@link StoreError} `not_found` when absent. */
  get<T = unknown>(hash: string): Promise<T>;
  /**
   * Writes entries at their positions. Writing the same entry again (an activity retry) is harmless;
   * a later write at the same position replaces the earlier one.
   */
  writeEntries(conversationId: string, entries: readonly LogEntry[]): Promise<void>;
  /** Entries `[fromSeq, toSeq)`; throws {@link StoreError} `gap` when one is missing. */
  readEntries(conversationId: string, fromSeq: number, toSeq: number): Promise<LogEntry[]>;
}

export type StoreErrorCode = 'not_found' | 'gap' | 'corrupt' | 'bad_input';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}
