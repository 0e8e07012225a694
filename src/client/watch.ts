/**
 * `AgentClient.watch`: a run's stream of events and tokens, followed to the run's end. Events
 * recorded after the last poll of a run that has just ended are read from its state, so a watch
 * always ends with the run's last events.
 */
import type { Client } from '@temporalio/client';
import type { AgentEvent } from '../contracts/agent-events';
import type { AgentResult, AgentStateView } from '../contracts/agent-run';
import { EVENTS_TOPIC, TOKENS_TOPIC, type TokenDelta, type WatchItem } from '../contracts/watch-topics';
import { explain } from './client-errors';
import { followRunStream, type StreamEntry } from './stream-poller';

export interface WatchOptions {
  /** Stream offset to start from (the `offset` of the last item seen, plus one); default the oldest kept. */
  fromOffset?: number;
  /** Include the model's tokens (runs started with `stream: true`); default true. */
  tokens?: boolean;
  /**
   * Also yield the run's structured answers (its kind's roles' answers, answers of a run with a
   * JSON response format) as they stream and whole: needs tokens, so a run started with `stream: true`.
   */
  answers?: boolean;
  /**
   * Also yield the events of the run's child runs (sub-agents, todos a kind runs as children, at any
   * depth) as they happen, each with the child it comes from (`ChildEventItem`).
   */
  children?: boolean;
}

/** How the watch reads the run besides its stream. */
export interface RunReads {
  /** Temporal status of the newest run of the chain (e.g. `RUNNING`). */
  status(): Promise<string>;
  state(): Promise<AgentStateView>;
  result(): Promise<AgentResult>;
}

interface WatchProgress {
  /** Offset of the last item yielded. */
  offset: number;
  last?: AgentEvent;
}

/** For a run that has already ended, yields the events its state kept. */
export async function* watchRun(
  client: Client,
  id: string,
  options: WatchOptions,
  reads: RunReads,
): AsyncGenerator<WatchItem, void, undefined> {
  const seen: WatchProgress = { offset: (options.fromOffset ?? 0) - 1 };
  if ((await reads.status()) === 'RUNNING') {
    const entries = followRunStream(client, id, {
      topics: options.tokens === false ? [EVENTS_TOPIC] : [EVENTS_TOPIC, TOKENS_TOPIC],
      fromOffset: options.fromOffset ?? 0,
      isRunning: async () => (await reads.status()) === 'RUNNING',
    });
    for (;;) {
      let next: IteratorResult<StreamEntry>;
      try {
        next = await entries.next();
      } catch (err) {
        throw explain(err, id);
      }
      if (next.done) break;
      const { topic, offset, data } = next.value;
      seen.offset = offset;
      if (topic === EVENTS_TOPIC) {
        const event = data as AgentEvent;
        seen.last = event;
        yield { topic, offset, event };
      } else if (topic === TOKENS_TOPIC) {
        yield { topic, offset, delta: data as TokenDelta };
      }
    }
  }
  yield* eventsAfter(seen, reads);
}

/**
 * The ended run's events after the last one the watch saw, from its state (or, with no worker to answer, its result).
 */
async function* eventsAfter(seen: WatchProgress, reads: RunReads): AsyncGenerator<WatchItem, void, undefined> {
  if (seen.last?.type === 'done') return;
  let events: AgentEvent[];
  try {
    const state = await reads.state();
    // A view built from the result (no worker to answer) has no events: the result gives the end.
    if ('answeredFrom' in state) throw new Error('no events kept');
    events = state.events;
  } catch {
    const r = await reads.result().catch(() => undefined);
    if (!r) return;
    events = [
      {
        type: 'done',
        stopReason: r.stopReason,
        finalText: r.finalText,
        turns: r.turns,
        usage: r.usage,
        costUsd: r.costUsd,
        at: Date.now(),
        turn: r.turns,
      },
    ];
  }
  const last = seen.last;
  let from = 0;
  if (last) {
    const key = JSON.stringify(last);
    const at = events.map((e) => JSON.stringify(e)).lastIndexOf(key);
    from = at >= 0 ? at + 1 : events.findIndex((e) => e.at > last.at);
    if (from < 0) return;
  }
  for (const event of events.slice(from)) {
    seen.offset += 1;
    yield { topic: EVENTS_TOPIC, offset: seen.offset, event };
  }
}
