/**
 * Follows a run's stream across continue-as-new, costing its history as little as it can. While
 * entries come, it reads them by query (`streamRead`), which adds nothing to the run's history;
 * when the run has been quiet for a while, it long-polls by update (`@temporalio/workflow-streams`'
 * poll, two history events and a workflow task), so a run waiting for hours costs one poll, not a
 * query a second. Every read goes to the newest run of the chain. When the run has ended, one more
 * query reads what it published after the last read (the run is replayed to answer it), so a watch
 * always ends with every entry.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  QueryNotRegisteredError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { decodePayloadWire, workflowStreamPollUpdate, type PollResult } from '@temporalio/workflow-streams/workflow';
import { EVENTS_TOPIC, streamReadQuery, type StreamReadResult } from '../contracts/watch-topics';

export interface StreamEntry {
  offset: number;
  data: unknown;
}

/** Pauses between two reads by query: the first after a read that found entries, growing while none come. */
const READ_PAUSES_MS = [150, 250, 400, 700];
/** Pause before reading a run that was between runs or draining. */
const RETRY_MS = 50;
/** The topics a watch reads from the run's stream (its tokens come from the content store). */
const TOPICS = [EVENTS_TOPIC];

/** The application failure an update was refused with, if it was. */
const refusal = (err: unknown): ApplicationFailure | undefined =>
  err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause : undefined;

/**
 * Failures that mean "no run answered this poll", as opposed to a refusal or a broken connection. A
 * cancellation of the run cancels the poll it was waiting in; the run then ends, and is read as usual.
 */
function noRunAnswered(err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError || err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
  if (err instanceof WorkflowUpdateFailedError && err.cause instanceof CancelledFailure) return true;
  const refused = refusal(err);
  if (refused) return refused.type === 'StreamDraining' || refused.type === 'AcceptedUpdateCompletedWorkflow';
  return /already completed/i.test(err instanceof Error ? err.message : '');
}

/** The stream's poll: waits until the run has entries past `offset`; undefined when no run answered. */
async function poll(handle: WorkflowHandle, offset: number): Promise<PollResult | undefined> {
  try {
    return await handle.executeUpdate(workflowStreamPollUpdate, { args: [{ topics: TOPICS, from_offset: offset }] });
  } catch (err) {
    // Fell behind what the run keeps: go on from the oldest entry it still has.
    if (refusal(err)?.type === 'TruncatedOffset') return { items: [], next_offset: 0, more_ready: true };
    if (noRunAnswered(err)) return undefined;
    throw err;
  }
}

export interface FollowOptions {
  fromOffset: number;
  /** Whether the newest run of the chain is running. */
  isRunning: () => Promise<boolean>;
  /**
   * The pause between two reads by query, at least `ms`; resolves true when the run showed it was
   * busy meanwhile by other means (its tokens), so the poller does not count the spell as quiet.
   */
  rest: (ms: number) => Promise<boolean>;
  /** Told, after each read that answered, when it was sent: the run's events up to then have been yielded. */
  onRead: (sentAt: number) => void;
  /** Awaited before the first read (a run that has just started has nothing to read yet). */
  beforeFirstRead: () => Promise<void>;
}

/**
 * Yields the run's events from `fromOffset` until the run has ended. Throws when a
 * read is refused for another reason than the run being between runs (an unknown run, a broken
 * connection); a run whose ended state no worker can answer for ends the entries where they are.
 */
export async function* followRunStream(
  client: Client,
  workflowId: string,
  options: FollowOptions,
): AsyncGenerator<StreamEntry, void, undefined> {
  const handle = client.workflow.getHandle(workflowId);
  const converter = client.options.loadedDataConverter.payloadConverter;
  let offset = options.fromOffset;
  let quiet = 0;
  /** A pause between reads; a run busy meanwhile starts the quiet count again. */
  const pause = async (ms: number) => {
    if (await options.rest(ms)) quiet = 0;
  };
  const entries = (result: PollResult): StreamEntry[] => {
    offset = result.next_offset;
    return result.items.map((item) => ({
      offset: item.offset,
      data: converter.fromPayload(decodePayloadWire(item.data)),
    }));
  };
  await options.beforeFirstRead();
  for (;;) {
    let read: StreamReadResult;
    const sentAt = Date.now();
    try {
      read = await handle.query(streamReadQuery, { topics: TOPICS, from_offset: offset });
    } catch (err) {
      if (err instanceof QueryNotRegisteredError) {
        // A run of code without the query: long-poll only.
        const polled = await poll(handle, offset);
        if (polled) yield* entries(polled);
        else if (!(await options.isRunning())) return;
        else await sleep(RETRY_MS);
        continue;
      }
      // An ended run nobody replays for: the caller reads its end elsewhere. A running one (a new
      // run of the chain before its first task, a worker restarting) is read again shortly.
      if (!(await options.isRunning())) return;
      await pause(READ_PAUSES_MS.at(-1)!);
      continue;
    }
    yield* entries(read);
    if (read.more_ready) continue;
    options.onRead(sentAt);
    if (read.items.length > 0) {
      quiet = 0;
      await pause(READ_PAUSES_MS[0]);
      continue;
    }
    if (read.ended) {
      // Ended, or continuing as new: the next read reaches the next run, if there is one.
      if (!(await options.isRunning())) return;
      await sleep(RETRY_MS);
      continue;
    }
    if (quiet < READ_PAUSES_MS.length) {
      const ms = READ_PAUSES_MS[quiet];
      quiet += 1;
      await pause(ms);
      continue;
    }
    // Quiet for a while: wait for the next entry by long-poll, then read by query again.
    const polled = await poll(handle, offset);
    if (polled) {
      quiet = 0;
      yield* entries(polled);
    } else if (!(await options.isRunning())) continue;
    else await sleep(RETRY_MS);
  }
}
