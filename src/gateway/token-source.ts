/**
 * Where a gateway reads a run's events and the model's tokens as they come. One small interface, so
 * the source can change (an out-of-band token channel instead of the run's own stream) without any
 * protocol noticing: every protocol reads runs through a {@link RunFeed}.
 */
import type { AgentClient } from '../client';
import type { AgentEvent } from '../contracts/agent-events';
import { EVENTS_TOPIC, TOKENS_TOPIC, type TokenDelta, type WatchItem } from '../contracts/watch-topics';
import { followRunStream } from '../client/stream-poller';

export interface RunFeed {
  /**
   * The run's items (events, and tokens of a streaming run) from `fromOffset` (default the oldest
   * kept) until the run ends. Each item's `offset` resumes the feed right after it.
   */
  follow(runId: string, fromOffset?: number): AsyncIterable<WatchItem>;
}

/**
 * The feed of the run's workflow stream: `AgentClient.watch` while the run works. For a run that has
 * ended, the stream it kept is read whole by query (a worker replays the run to answer), tokens
 * included, so a client that reconnects after the end still gets every token at the same offsets;
 * with no worker to answer, the watch's reading of the ended run's events.
 */
export const watchFeed = (agents: AgentClient): RunFeed => ({
  follow: async function* (runId, fromOffset) {
    const status = await agents.client.workflow
      .getHandle(runId)
      .describe()
      .then((d) => d.status.name)
      .catch(() => 'RUNNING');
    if (status !== 'RUNNING') {
      let any = false;
      const entries = followRunStream(agents.client, runId, {
        topics: [EVENTS_TOPIC, TOKENS_TOPIC],
        fromOffset: fromOffset ?? 0,
        isRunning: async () => false,
      });
      for await (const { topic, offset, data } of entries) {
        any = true;
        if (topic === EVENTS_TOPIC) yield { topic, offset, event: data as AgentEvent };
        else if (topic === TOKENS_TOPIC) yield { topic, offset, delta: data as TokenDelta };
      }
      if (any) return;
    }
    yield* agents.watch(runId, fromOffset === undefined ? {} : { fromOffset });
  },
});
