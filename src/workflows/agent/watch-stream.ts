/**
 * The run's stream for watchers (`@temporalio/workflow-streams`): trace events are published here
 * as they are recorded, and clients read it by query, long-polling by update only while the run is
 * quiet. Publishing from the workflow adds no history event, nor does a query; each poll does.
 * Model tokens do not pass through here: the model call writes them to the run's token stream in
 * the content store (contracts/token-stream.ts), and the worker writes there, through its
 * `runStream` sink, the events each streaming call follows.
 */
import { proxySinks, setHandler } from '@temporalio/workflow';
import type { Payload } from '@temporalio/common';
import { encodePayloadWire, WorkflowStream, type WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import type { AgentEvent } from '../../contracts/agent-events';
import type { EventEntry, RunStreamSinks } from '../../contracts/token-stream';
import {
  EVENTS_TOPIC,
  STREAM_ENTRIES_CARRIED,
  STREAM_ENTRIES_KEPT,
  streamReadQuery,
  type StreamReadInput,
  type StreamReadResult,
} from '../../contracts/watch-topics';

export interface RunStream {
  publishEvent(event: AgentEvent): void;
  /**
   * Before a streaming model call: hands the worker the events published since the call before it
   * (the newest {@link EVENTS_AHEAD} at most) for the run's token stream; returns the offset the
   * next event takes, which the call's `start` names.
   */
  beforeCall(): number;
  /**
   * Called at each turn's start; once {@link TRIM_AFTER} events were published since the last
   * trim, drops entries past the newest {@link STREAM_ENTRIES_KEPT}, so the log stays bounded.
   */
  trim(): void;
  /** Wakes waiting polls and refuses new ones, so `allHandlersFinished` can hold before the run ends. */
  detach(): void;
  /** State for the next run: the newest entries and the publishers' dedupe. */
  carry(): WorkflowStreamState;
}

/**
 * Events published between two trims. Reading the log's length means encoding every entry (the
 * stream's `getState`), a few milliseconds at 500 entries; trimming after this many new events
 * keeps that to a few encodings per event.
 */
const TRIM_AFTER = STREAM_ENTRIES_KEPT / 2;

/** The most events a streaming call's worker writes ahead of it. */
const EVENTS_AHEAD = 32;

/** Bytes of entries one read answers with at most; the reader reads again at once for the rest. */
const MAX_READ_BYTES = 1_000_000;

/**
 * What `WorkflowStream` keeps: its entries and the offset of the first. It offers no read a query
 * can make (its poll is an update), so the `streamRead` query reads them here; the package is
 * pinned with every `@temporalio` package, and the watch tests read through this.
 */
interface StreamLog {
  log: { topic: string; payload: Payload }[];
  baseOffset: number;
}

/** The entries a watcher asks for, encoded as the stream's poll encodes them. */
function readStream(stream: WorkflowStream, input: StreamReadInput, ended: boolean): StreamReadResult {
  const { log, baseOffset } = stream as unknown as StreamLog;
  const topics = input.topics.length > 0 ? new Set(input.topics) : undefined;
  const items: StreamReadResult['items'] = [];
  let size = 0;
  for (let i = Math.max(0, input.from_offset - baseOffset); i < log.length; i++) {
    const { topic, payload } = log[i];
    if (topics && !topics.has(topic)) continue;
    const data = encodePayloadWire(payload);
    if (size + data.length > MAX_READ_BYTES && items.length > 0)
      return { items, next_offset: baseOffset + i, more_ready: true, ended };
    size += data.length + topic.length;
    items.push({ topic, data, offset: baseOffset + i });
  }
  return { items, next_offset: baseOffset + log.length, more_ready: false, ended };
}

/** Opens the stream; construct once, early, since it registers the stream's handlers. */
export function openRunStream(prior?: WorkflowStreamState): RunStream {
  const stream = new WorkflowStream(prior);
  const events = stream.topic<AgentEvent>(EVENTS_TOPIC);
  let ended = false;
  setHandler(streamReadQuery, (input) => readStream(stream, input, ended));
  const keepNewest = (count: number): WorkflowStreamState => {
    const state = stream.getState();
    const drop = state.log.length - count;
    if (drop <= 0) return state;
    stream.truncate(state.base_offset + drop);
    return { ...state, log: state.log.slice(drop), base_offset: state.base_offset + drop };
  };
  const nextOffset = () => {
    const { log, baseOffset } = stream as unknown as StreamLog;
    return baseOffset + log.length;
  };
  let published = 0;
  /** The newest events published, and the offset the last streaming call named. */
  const recent: EventEntry[] = [];
  let lastCall = 0;
  return {
    publishEvent: (event) => {
      published += 1;
      recent.push({ offset: nextOffset(), event });
      if (recent.length > EVENTS_AHEAD) recent.shift();
      events.publish(event);
    },
    beforeCall: () => {
      const after = nextOffset();
      const entries = recent.filter((e) => e.offset >= lastCall);
      lastCall = after;
      if (entries.length > 0) proxySinks<RunStreamSinks>().runStream.eventsAhead(after, entries);
      return after;
    },
    trim: () => {
      if (published < TRIM_AFTER) return;
      published = 0;
      keepNewest(STREAM_ENTRIES_KEPT);
    },
    detach: () => {
      ended = true;
      stream.detachPollers();
    },
    carry: () => keepNewest(STREAM_ENTRIES_CARRIED),
  };
}
