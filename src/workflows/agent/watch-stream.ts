/**
 * The run's stream for watchers (`@temporalio/workflow-streams`): trace events are published here
 * as they are recorded, token batches arrive from streaming model calls by signal, and clients
 * long-poll it by update. Publishing from the workflow adds no history event; each poll does.
 */
import { WorkflowStream, type WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import type { AgentEvent } from '../../contracts/agent-events';
import { EVENTS_TOPIC, STREAM_ENTRIES_CARRIED, STREAM_ENTRIES_KEPT } from '../../contracts/watch-topics';

export interface RunStream {
  publishEvent(event: AgentEvent): void;
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
 * (plus the token batches that arrived meanwhile) keeps that to a few encodings per event.
 */
const TRIM_AFTER = STREAM_ENTRIES_KEPT / 2;

/** Opens the stream; construct once, early, since it registers the stream's handlers. */
export function openRunStream(prior?: WorkflowStreamState): RunStream {
  const stream = new WorkflowStream(prior);
  const events = stream.topic<AgentEvent>(EVENTS_TOPIC);
  const keepNewest = (count: number): WorkflowStreamState => {
    const state = stream.getState();
    const drop = state.log.length - count;
    if (drop <= 0) return state;
    stream.truncate(state.base_offset + drop);
    return { ...state, log: state.log.slice(drop), base_offset: state.base_offset + drop };
  };
  let published = 0;
  return {
    publishEvent: (event) => {
      published += 1;
      events.publish(event);
    },
    trim: () => {
      if (published < TRIM_AFTER) return;
      published = 0;
      keepNewest(STREAM_ENTRIES_KEPT);
    },
    detach: () => stream.detachPollers(),
    carry: () => keepNewest(STREAM_ENTRIES_CARRIED),
  };
}
