/**
 * What a watcher of a run receives: every trace event, which the run publishes on its workflow
 * stream (`@temporalio/workflow-streams`), and, for streaming runs, the model's tokens, which the
 * model call writes to the run's token stream in the content store (contracts/token-stream.ts).
 * Plain JSON, shared by the workflow, the model-call activity and the client.
 */
import { defineQuery } from '@temporalio/workflow';
import type { PollInput, PollResult } from '@temporalio/workflow-streams/workflow';
import type { AgentEvent } from './agent-events';

/** Topic of the run's trace events (every event the state query keeps, as it happens). */
export const EVENTS_TOPIC = 'events';
/** Topic of the model's output as it streams (runs with `stream: true` only), read from the token stream. */
export const TOKENS_TOPIC = 'tokens';

/** A piece of a model answer while it streams. Pieces of one call share `seq` and `attempt`. */
export interface TokenDelta {
  /** Position the answer takes in the conversation (the assistant message's `seq`). */
  seq: number;
  /** Activity attempt: a retried call streams again from the start under the next number. */
  attempt: number;
  model: string;
  kind: 'text' | 'thinking' | 'tool_call';
  /** Text, thinking, or a fragment of a tool call's argument JSON. */
  text: string;
  /** The tool a `tool_call` piece belongs to. */
  tool?: string;
}

/**
 * One item a watcher receives. An event has its offset in the run's stream (resume with
 * `fromOffset`); a token piece has the offset of the event before it and its cursor in the run's
 * token stream (resume with `tokensAfter`).
 */
export type WatchItem =
  | { topic: typeof EVENTS_TOPIC; offset: number; event: AgentEvent }
  | { topic: typeof TOKENS_TOPIC; offset: number; cursor: number; delta: TokenDelta };

/**
 * Stream entries a run keeps in memory; older ones are truncated (a watcher that fell behind resumes at the oldest
 * kept).
 */
export const STREAM_ENTRIES_KEPT = 500;
/** Stream entries carried across continue-as-new. */
export const STREAM_ENTRIES_CARRIED = 100;
/** Default least time between two writes of a streaming model call's pieces to its run's token stream. */
export const DEFAULT_TOKEN_BATCH_MS = 50;

/** A watcher's read of the run's stream: the entries of `topics` (every topic when empty) from `from_offset` on. */
export type StreamReadInput = PollInput;

/**
 * Entries as the stream's own poll gives them (each a base64 serialized payload), where to read on,
 * and whether the run publishes anything more. A read older than what the run keeps starts at the
 * oldest entry it keeps.
 */
export interface StreamReadResult extends PollResult {
  /** The run has stopped publishing: it has ended or is continuing as new. */
  ended: boolean;
}

/**
 * Reads the run's stream without waiting. A query adds nothing to the run's history, where each
 * poll of the stream (an update) adds its events; watchers read by query while entries come and
 * long-poll only when the run is quiet.
 */
export const streamReadQuery = defineQuery<StreamReadResult, [StreamReadInput]>('streamRead');
