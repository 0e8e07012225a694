/**
 * A running run's watch items: its events, read from its workflow stream (`stream-poller`), and
 * its tokens, read from its token stream in the content store (`token-tail`), in one sequence. A
 * streaming run's events are first read when its first model call begins (the events of its first
 * workflow task are then there to read), or after {@link FIRST_READ_WAIT_MS}.
 * Tokens reach a watcher faster than events, so a call's tokens wait for the events published
 * before the call began: when the tail reads a call's `start`, the event reads are asked to read
 * at once, and the call's tokens are given once the watch has given every event below the offset
 * its `start` names (after {@link ORDER_CAP_MS} without them, when the run's worker does not
 * answer). A call whose `start` names no offset (made by older code) has its tokens given once a
 * read sent after that start has answered, or after {@link HOLD_CAP_MS}. A call's tokens are in the
 * store before the activity returns, so before the events after its answer; before each event the
 * tail reads the store to its end and gives the tokens written up to the event's time, so a
 * watcher that joins late gets the two interleaved as they happened. While a model call streams
 * the run publishes no event until its answer, so the event reads wait for the call's end (or a
 * while, for a worker that died mid-call) rather than poll. The quick tool calls a model call runs
 * itself are shown from their records in the token stream, placed as tokens are, and their events
 * when the run records them are left out.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { AgentEvent } from '../contracts/agent-events';
import { deltaOf, type EventEntry } from '../contracts/token-stream';
import { EVENTS_TOPIC, TOKENS_TOPIC, type WatchItem } from '../contracts/watch-topics';
import { followRunStream, type StreamEntry } from './stream-poller';
import type { BufferedRecord, TokenTail } from './token-tail';
import type { QuickToolEvents } from './quick-tool-events';

/**
 * The longest the first event read waits for the run's first model call to begin. Until a run's
 * first workflow task is done there is nothing to read, and a query then waits in the worker
 * beside the workflow tasks of every run starting with it.
 */
const FIRST_READ_WAIT_MS = 2_000;
/** The longest a call's tokens wait for the events before the offset its `start` names. */
const ORDER_CAP_MS = 5_000;
/** The longest a call's tokens wait for a read sent after its `start`, when that names no offset. */
const HOLD_CAP_MS = 500;
/** The longest wait of the event reads for a streaming call's end. */
const HOLD_MAX_MS = 5_000;
/** A call whose worker wrote nothing for this long counts as no longer streaming. */
const ALIVE_MS = 5_000;

/** Resolves with `promise` or at `deadline` (ms since the epoch), whichever is first; its timer keeps no process up. */
async function until(promise: Promise<void>, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const due = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadline - Date.now()).unref()));
  await Promise.race([promise, due]);
  clearTimeout(timer);
}

/** Where the watch is: the offset of the last event yielded, and that event. */
export interface WatchProgress {
  offset: number;
  last?: AgentEvent;
}

export interface MergeOptions {
  isRunning: () => Promise<boolean>;
  /** The run's token stream, when the watch shows tokens and has a store to read them from. */
  tail?: TokenTail;
  /** Told once when reading the tokens failed; the watch goes on with events. */
  onTokenFailure: (error: Error) => void;
  /** Whether the run streams its model calls. */
  streams: () => Promise<boolean>;
  /** The quick tool calls' events shown so far, published or recorded. */
  quickTools: QuickToolEvents;
}

/** The run's events (from the one after `seen`) and tokens until it ends; `seen` follows the events yielded. */
export async function* eventsAndTokens(
  client: Client,
  id: string,
  options: MergeOptions,
  seen: WatchProgress,
): AsyncGenerator<WatchItem, void, undefined> {
  let tail = options.tail;
  /** When the newest event read that answered was sent. */
  let eventsReadAt = Number.NEGATIVE_INFINITY;
  /** Wakes the wait for a record to give: an event read answered, or an event was given. */
  let eventsMoved = (): void => undefined;
  const onRead = (sentAt: number) => {
    eventsReadAt = Math.max(eventsReadAt, sentAt);
    eventsMoved();
  };
  /** Whether an event read has to answer before the tokens of the newest call begun are given. */
  const behind = () => (tail?.lastStartReadAt ?? Number.NEGATIVE_INFINITY) > eventsReadAt;
  const capOf = (entry: BufferedRecord) => (entry.after === undefined ? HOLD_CAP_MS : ORDER_CAP_MS);
  const released = (entry: BufferedRecord) =>
    entry.startReadAt === undefined ||
    (entry.after === undefined ? entry.startReadAt <= eventsReadAt : entry.after <= seen.offset + 1) ||
    Date.now() >= entry.startReadAt + capOf(entry);
  /**
   * The events the oldest buffered call follows that the watch has not given, when its worker
   * wrote them to the token stream, from the first the watch lacks on; undefined otherwise.
   */
  const eventsAhead = (reading: TokenTail, after = reading.head()?.after): readonly EventEntry[] | undefined => {
    if (after === undefined || after <= seen.offset + 1) return undefined;
    const entries = reading.eventsBefore(after);
    return entries?.[0] && entries[0].offset <= seen.offset + 1 ? entries : undefined;
  };
  /** Resolves once the tail has a record to give, or the events before it, or failed. */
  const releasable = async (reading: TokenTail): Promise<void> => {
    for (;;) {
      await reading.ready();
      const head = reading.head();
      if (!head?.startReadAt || released(head) || eventsAhead(reading)) return;
      const moved = new Promise<void>((resolve) => (eventsMoved = resolve));
      // The `events` record may come after the call's `start`: the tail reads on at each wake-up.
      const wrote = reading.changedOrAfter(Number.POSITIVE_INFINITY).then(() => reading.sync());
      await until(Promise.race([moved, wrote]), head.startReadAt + capOf(head));
    }
  };
  let releasing: Promise<'tokens'> | undefined;
  /** The call start an event read was last asked for. */
  let asked = Number.NEGATIVE_INFINITY;
  const rest = async (ms: number): Promise<boolean> => {
    const reading = tail;
    if (!reading || reading.closed) return (await sleep(ms), false);
    // No read is asked for when the watch has, or the token stream holds, the events before the newest call.
    const known = () => {
      const after = reading.lastStartAfter;
      return after !== undefined && (after <= seen.offset + 1 || eventsAhead(reading, after) !== undefined);
    };
    const wanted = () => behind() && asked !== reading.lastStartReadAt && !known();
    const before = reading.received;
    if (!wanted()) {
      await Promise.race([sleep(ms), reading.nextStart()]);
      const deadline = Date.now() + HOLD_MAX_MS;
      const holding = () => !reading.closed && !reading.failure && Date.now() < deadline;
      while (!wanted() && reading.streaming(ALIVE_MS) && holding()) {
        await reading.changedOrAfter(deadline - Date.now());
        await reading.sync();
      }
    }
    if (!wanted()) return reading.received !== before;
    asked = reading.lastStartReadAt;
    return true;
  };
  const entries = followRunStream(client, id, {
    fromOffset: seen.offset + 1,
    isRunning: options.isRunning,
    rest,
    onRead,
    beforeFirstRead: async () => {
      const reading = tail;
      if (!reading || reading.lastStartReadAt !== Number.NEGATIVE_INFINITY) return;
      // A run that does not stream writes no `start` to wait for.
      const unstreamed = options.streams().then(
        (streams) => (streams ? never : undefined),
        () => undefined,
      );
      await Promise.race([reading.nextStart(), sleep(FIRST_READ_WAIT_MS), unstreamed]);
      // Read at once, unless the token stream holds the events before the call, or while it streams.
      await rest(0);
    },
  });
  /** Gives an event read from the run or from the token stream, once: the offsets tell. */
  function* give(offset: number, event: AgentEvent): Generator<WatchItem> {
    if (offset <= seen.offset) return;
    seen.offset = offset;
    seen.last = event;
    if (options.quickTools.recorded(event)) yield { topic: EVENTS_TOPIC, offset, event };
  }
  /** Token items, and quick tool calls' events, of the buffered records `release` lets go. */
  const tokens = (release?: (entry: BufferedRecord) => boolean): WatchItem[] =>
    (tail?.take(release) ?? []).flatMap((r): WatchItem[] => {
      if (r.type === 'piece')
        return [{ topic: TOKENS_TOPIC, offset: seen.offset, cursor: r.cursor, delta: deltaOf(r) }];
      const event = r.type === 'tool' ? options.quickTools.published(r, seen.last?.turn ?? 0) : undefined;
      return event ? [{ topic: EVENTS_TOPIC, offset: seen.offset, event }] : [];
    });
  /** Stops reading tokens after a failed read. */
  const checkTail = () => {
    if (!tail?.failure) return;
    options.onTokenFailure(tail.failure);
    tail = undefined;
  };
  const never = new Promise<never>(() => undefined);
  let nextEntry = entries.next();
  try {
    for (;;) {
      if (tail) releasing ??= releasable(tail).then(() => 'tokens' as const);
      const next = await Promise.race([nextEntry, releasing ?? never]);
      if (next === 'tokens') {
        releasing = undefined;
        checkTail();
        for (const { offset, event } of (tail && eventsAhead(tail)) ?? []) yield* give(offset, event);
        yield* tokens(released);
        continue;
      }
      if (next.done) break;
      nextEntry = entries.next();
      const { offset, data } = next.value as StreamEntry;
      const event = data as AgentEvent;
      // Given already from the token stream.
      if (offset <= seen.offset) continue;
      if (tail) {
        await tail.sync();
        checkTail();
        // Tokens written before the event follow the events before it, which came already.
        yield* tokens((entry) => entry.record.at <= event.at);
      }
      yield* give(offset, event);
      eventsMoved();
    }
    if (tail) {
      await tail.sync();
      checkTail();
      yield* tokens();
    }
  } finally {
    // A watch left early leaves the read in flight to end on its own.
    nextEntry.catch(() => undefined);
    void entries.return(undefined).catch(() => undefined);
  }
}
