/**
 * The content store: message bodies addressed by the hash of their content, and one log per
 * conversation that orders them. Activities read and write it; the workflow only holds hashes and
 * log positions. Beside them it keeps each run's token stream (contracts/token-stream.ts), which
 * streaming model calls append to and watchers read. Two backends implement it: files on one disk
 * and a shared PostgreSQL database.
 */
import type { ConversationLog, ConversationReader, LogEntry, SummaryRecord } from '../contracts/conversation-log';
import type { TokenStreamReader, TokenStreamWriter } from '../contracts/token-stream';

export type { ConversationLog, LogEntry, SummaryRecord } from '../contracts/conversation-log';

/**
 * Which write of a position is the newest: the activity's first scheduled time (Temporal server
 * clock), then its attempt number. A retry of an activity has the same scheduled time and a
 * higher attempt; an activity the workflow schedules after another failed has a later scheduled
 * time. So a superseded attempt that finishes late never replaces what a newer one wrote.
 */
export interface WriteOrder {
  scheduledAt: number;
  attempt: number;
}

/** A conversation the store knows, with the time of its last write (ms since the epoch). */
export interface StoredConversation {
  id: string;
  lastWriteAt: number;
}

/** What {@link ContentStore.deleteConversations} removed. */
export interface DeletedCounts {
  conversations: number;
  entries: number;
  bodies: number;
  /** Runs' token streams. */
  streams: number;
}

export interface ContentStore extends ConversationReader, TokenStreamReader, TokenStreamWriter {
  /** A name for messages: the directory or the database, never a password. */
  readonly description: string;
  /**
   * Stores a JSON body; returns its content hash (the same body always gives the same hash).
   * `conversationId` records that the conversation uses the body, so retention can find it.
   */
  put(body: unknown, conversationId?: string): Promise<string>;
  /** The body stored under `hash`; throws {@link StoreError} `not_found` when absent. */
  get<T = unknown>(hash: string): Promise<T>;
  /** The bodies of `hashes`, in the same order (one round trip where the backend allows). */
  getMany<T = unknown>(hashes: readonly string[]): Promise<T[]>;
  /**
   * Writes entries at their positions. A position keeps the write with the newest
   * {@link WriteOrder} (ties: the later write); without `order` a write counts as scheduled now.
   * Writing the same entry again (an activity retry) is harmless.
   */
  writeEntries(conversationId: string, entries: readonly LogEntry[], order?: WriteOrder): Promise<void>;
  /** Entries `[fromSeq, toSeq)`; throws {@link StoreError} `gap` when one is missing. */
  readEntries(conversationId: string, fromSeq: number, toSeq: number): Promise<LogEntry[]>;
  /**
   * Records that the summary body `hash` replaced positions `[fromSeq, toSeq)`. One summary per
   * `toSeq`, kept by the same {@link WriteOrder} rule as log entries.
   */
  recordSummary(conversationId: string, summary: SummaryRecord, order?: WriteOrder): Promise<void>;
  /** The whole log and its summaries; empty when the store has nothing of the conversation. */
  readLog(conversationId: string): Promise<ConversationLog>;
  /** Every conversation with a log entry, a recorded body or a token stream. */
  listConversations(): Promise<StoredConversation[]>;
  /**
   * Deletes the logs and token streams of these conversations and every body only they used; a
   * body another conversation recorded stays.
   */
  deleteConversations(ids: readonly string[]): Promise<DeletedCounts>;
  /** Releases connections; the store is unusable afterwards. */
  close(): Promise<void>;
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

/** Whether a write ordered `next` replaces one ordered `current` (ties go to the later write). */
export const supersedes = (next: WriteOrder, current: WriteOrder): boolean =>
  next.scheduledAt > current.scheduledAt ||
  (next.scheduledAt === current.scheduledAt && next.attempt >= current.attempt);
