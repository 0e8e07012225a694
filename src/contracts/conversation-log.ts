/**
 * A conversation as the content store orders it: one log of positions, each naming a stored body
 * by its hash, and the compaction summaries recorded over ranges of it. Plain data shared by the
 * store, the activities and the readers of a run's messages.
 */
import type { AgentMessageKind } from './agent-run';

/** One position of a conversation log. */
export interface LogEntry {
  seq: number;
  kind: AgentMessageKind;
  hash: string;
}

/** A compaction summary: the body `hash` stands for the log positions `[fromSeq, toSeq)`. */
export interface SummaryRecord {
  fromSeq: number;
  toSeq: number;
  hash: string;
}

/** Everything the store holds of one conversation, in log order; positions may have gaps. */
export interface ConversationLog {
  entries: LogEntry[];
  summaries: SummaryRecord[];
}

/**
 * What reading a conversation needs of a content store. Both stores (`FileContentStore`,
 * `PostgresContentStore`) are one; a client given one reads runs' messages with it.
 */
export interface ConversationReader {
  /** A name for messages: the directory or the database, never a password. */
  readonly description: string;
  /** The whole log and its summaries; empty when the store has nothing of the conversation. */
  readLog(conversationId: string): Promise<ConversationLog>;
  /** The body stored under `hash`; rejects when it is absent. */
  get<T = unknown>(hash: string): Promise<T>;
  /** The bodies of `hashes`, in the same order; rejects when one is absent. */
  getMany<T = unknown>(hashes: readonly string[]): Promise<T[]>;
}
