/**
 * Where a gateway reads a run's events and the model's tokens as they come. One small interface, so
 * the source can change (an out-of-band token channel instead of the run's own stream) without any
 * protocol noticing: every protocol reads runs through a {@link RunFeed}.
 */
import type { AgentClient } from '../client';
import type { WatchItem } from '../contracts/watch-topics';

export interface RunFeed {
  /**
   * The run's items (events, and tokens of a streaming run) from `fromOffset` (default the oldest
   * kept) until the run ends. Each item's `offset` resumes the feed right after it.
   */
  follow(runId: string, fromOffset?: number): AsyncIterable<WatchItem>;
}

/** The feed of `AgentClient.watch`: the run's events, and its tokens from the store they stream through. */
export const watchFeed = (agents: AgentClient): RunFeed => ({
  follow: (runId, fromOffset) => agents.watch(runId, fromOffset === undefined ? {} : { fromOffset }),
});
