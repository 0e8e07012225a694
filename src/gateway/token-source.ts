/**
 * Where a gateway reads a run's events and the model's tokens as they come. One small interface, so
 * the source can change without any protocol noticing: every protocol reads runs through a
 * {@link RunFeed}, and resumes one at a {@link FeedPosition}.
 */
import type { AgentClient } from '../client';
import type { TokenStreamReader } from '../contracts/token-stream';
import type { WatchItem } from '../contracts/watch-topics';

/**
 * Where a feed goes on: events from stream offset `from`, tokens after the token-stream record
 * `tokensAfter` (absent: the run's tokens from their start).
 */
export interface FeedPosition {
  from: number;
  tokensAfter?: number;
}

export interface RunFeed {
  /** The run's items (events, and tokens of a streaming run) from `at` (default the start) until the run ends. */
  follow(runId: string, at?: FeedPosition): AsyncIterable<WatchItem>;
  /**
   * The cursor of the run's last token record now (0 when it has none; undefined when the feed reads
   * no store of its own): a follow with `tokensAfter` set to it shows only the tokens written after.
   */
  tokensNow(runId: string): Promise<number | undefined>;
}

/**
 * The position right after `item`, given the cursor of the last token item before it: what a client
 * that has `item` resumes from.
 */
export const positionAfter = (item: WatchItem, lastCursor: number | undefined): FeedPosition => {
  const cursor = item.topic === 'tokens' ? item.cursor : lastCursor;
  return { from: item.offset + 1, ...(cursor === undefined ? {} : { tokensAfter: cursor }) };
};

/** A position as one opaque word (an SSE id, an interrupt's): `from` or `from.tokensAfter`. */
export const positionText = (p: FeedPosition): string =>
  p.tokensAfter === undefined ? String(p.from) : `${p.from}.${p.tokensAfter}`;

/** The position a word of {@link positionText} names; undefined for anything else. */
export function positionOf(text: string | undefined): FeedPosition | undefined {
  const m = /^(\d{1,15})(?:\.(\d{1,15}))?$/.exec(text?.trim() ?? '');
  if (!m) return undefined;
  return { from: Number(m[1]), ...(m[2] === undefined ? {} : { tokensAfter: Number(m[2]) }) };
}

/**
 * The feed of `AgentClient.watch`: the run's events, and its tokens from `tokens` (the content store
 * the workers stream through; default the client's store).
 */
export const watchFeed = (agents: AgentClient, tokens?: TokenStreamReader): RunFeed => ({
  tokensNow: async (runId) => {
    if (!tokens) return undefined;
    let cursor = 0;
    for (;;) {
      const read = await tokens.readTokens(runId, cursor);
      if (read.records.length === 0) return cursor;
      cursor = read.cursor;
    }
  },
  follow: (runId, at) =>
    agents.watch(runId, {
      ...(at ? { fromOffset: at.from } : {}),
      ...(at?.tokensAfter === undefined ? {} : { tokensAfter: at.tokensAfter }),
      ...(tokens ? { tokenStream: tokens } : {}),
    }),
});
