/**
 * A run's token stream: what its streaming model calls write for watchers, beside the workflow
 * rather than through it. The activity that calls the model appends, for each call, a `start`
 * record, the pieces of its output as they come, and an `end` record when it answers or fails (a
 * worker that dies writes no end); a call that runs quick tool calls itself adds a `tool` record as
 * each begins and ends, streaming or not. Before a streaming call can begin, its worker appends an
 * `events` record: the run's events the call follows, so a watcher can show them before the call's
 * tokens without waiting for its read of the run. The content store keeps the records in order, by
 * run, and watchers read them from any cursor on. Plain JSON, shared by the activity, the worker,
 * the stores and the client.
 */
import type { DistributiveOmit } from '../common/type-helpers';
import type { AgentEvent } from './agent-events';
import type { TokenDelta } from './watch-topics';

/**
 * Which model call a record belongs to. Calls at one `seq` are ordered by `scheduledAt`, then
 * `attempt`: a retried attempt keeps the call's first scheduled time and counts up; a call the
 * workflow makes again after a failure (another model, a shortened context) is scheduled later.
 */
export interface StreamCall {
  /** Position the answer takes in the conversation (the assistant message's `seq`). */
  seq: number;
  /** When the workflow first scheduled the call (ms since the epoch, Temporal server clock). */
  scheduledAt: number;
  /** Activity attempt, from 1. */
  attempt: number;
  /** The model called (`provider/model`). */
  model: string;
}

/** The event the run records for a quick tool call that a model call runs itself, as the call publishes it first. */
export type QuickToolEvent = DistributiveOmit<
  Extract<AgentEvent, { type: 'tool_start' | 'tool_execution' }>,
  'at' | 'turn'
>;

/**
 * A record of a model call; `at` is when the worker wrote it (ms since the epoch, its clock). A
 * streaming call's `start` names `after`, the offset of the run's first event after the call was
 * made: a watcher shows the events below it before the call's tokens.
 */
export type CallRecord = StreamCall & { at: number } & (
    | { type: 'start'; after?: number }
    | { type: 'piece'; kind: TokenDelta['kind']; text: string; tool?: string }
    | { type: 'end'; outcome: 'answered' | 'failed' }
    | { type: 'tool'; event: QuickToolEvent }
  );

/** An event of the run's stream, at its offset there. */
export interface EventEntry {
  offset: number;
  event: AgentEvent;
}

/**
 * The run's events a streaming call follows, as the workflow task that makes the call published
 * them (`after`: the call's `start` names the same offset): the newest before `after`, without a
 * gap. The run's own stream is the truth; a watcher's read of it shows the same events again.
 */
export interface EventsRecord {
  type: 'events';
  after: number;
  entries: EventEntry[];
  at: number;
}

/** One record of a run's token stream. */
export type TokenRecord = CallRecord | EventsRecord;

/** A record as read back, with the cursor to read on from after it. */
export type StoredTokenRecord = TokenRecord & { cursor: number };

/** A call's record as read back. */
export type StoredCallRecord = CallRecord & { cursor: number };

/** The worker's sink of the events a streaming call follows, which it appends to the run's token stream. */
export type RunStreamSinks = {
  runStream: { eventsAhead(after: number, entries: EventEntry[]): void };
};

/** What a read of a run's token stream gives: its records after the cursor asked for, in write order. */
export interface TokenRead {
  records: StoredTokenRecord[];
  /** Where the next read goes on from (the last record's cursor, or the cursor asked for). */
  cursor: number;
}

/**
 * Reading runs' token streams: both content stores are one (`FileContentStore`,
 * `PostgresContentStore`); a client given one shows runs' tokens as they stream.
 */
export interface TokenStreamReader {
  /** A name for messages: the directory or the database, never a password. */
  readonly description: string;
  /** The run's records after `cursor` (0: from the start), in write order; none when it has no stream. */
  readTokens(runId: string, cursor: number): Promise<TokenRead>;
  /**
   * Calls `onChange` whenever the run's stream may have grown (a wake-up, not a promise: read to
   * see); returns the function that stops it. Never throws: a store that cannot notify calls
   * `onChange` on a short timer instead.
   */
  subscribeTokens(runId: string, onChange: () => void): () => void;
}

/** What the content stores add to {@link TokenStreamReader}: the writing end, which the model-call activity uses. */
export interface TokenStreamWriter {
  /** Appends `records` to the run's stream, after everything appended before (one writer per call, in order). */
  appendTokens(runId: string, records: readonly TokenRecord[]): Promise<void>;
}

/** The record's piece as a watcher shows it. */
export function deltaOf(record: Extract<CallRecord, { type: 'piece' }>): TokenDelta {
  const { seq, attempt, model, kind, text, tool } = record;
  return { seq, attempt, model, kind, text, ...(tool ? { tool } : {}) };
}

/** Whether call `a` was made after call `b` at the same position (a newer attempt, or a later call). */
export const callIsNewer = (a: StreamCall, b: StreamCall): boolean =>
  a.scheduledAt > b.scheduledAt || (a.scheduledAt === b.scheduledAt && a.attempt > b.attempt);
