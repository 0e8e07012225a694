/**
 * The tokens of a run that has ended, for a watch that joins (or resumes) after the end: the pieces
 * of every model call that answered, read from the run's token stream after a cursor, each call's
 * pieces placed before the first of the run's events recorded after the call ended. A call that
 * failed, or whose worker died before it ended, shows nothing: its retry's pieces are the answer.
 */
import type { AgentEvent } from '../contracts/agent-events';
import { deltaOf, type StoredCallRecord, type TokenStreamReader } from '../contracts/token-stream';
import { EVENTS_TOPIC, TOKENS_TOPIC, type WatchItem } from '../contracts/watch-topics';
import { callKey } from './token-tail';

/** The pieces of one answered call and when it ended. */
interface AnsweredCall {
  endedAt: number;
  pieces: Extract<StoredCallRecord, { type: 'piece' }>[];
}

/** The calls after `cursor` that answered, in the order they ended. */
export async function answeredCalls(source: TokenStreamReader, id: string, cursor: number): Promise<AnsweredCall[]> {
  const calls = new Map<string, AnsweredCall>();
  const answered: AnsweredCall[] = [];
  for (;;) {
    const read = await source.readTokens(id, cursor);
    if (read.records.length === 0) return answered.filter((c) => c.pieces.length > 0);
    cursor = read.cursor;
    for (const r of read.records) {
      if (r.type === 'events') continue;
      const key = callKey(r);
      const call = calls.get(key) ?? { endedAt: 0, pieces: [] };
      calls.set(key, call);
      if (r.type === 'piece') call.pieces.push(r);
      if (r.type === 'end' && r.outcome === 'answered') answered.push({ ...call, endedAt: r.at });
    }
  }
}

/**
 * The ended run's `events` (from stream offset `offset` + 1 on) with the pieces of `calls` between
 * them; a token item carries the offset of the event before it.
 */
export function withEndedTokens(
  events: readonly AgentEvent[],
  calls: readonly AnsweredCall[],
  offset: number,
): WatchItem[] {
  const items: WatchItem[] = [];
  let next = 0;
  const tokensUpTo = (at: number) => {
    for (; next < calls.length && calls[next]!.endedAt <= at; next++)
      for (const p of calls[next]!.pieces)
        items.push({ topic: TOKENS_TOPIC, offset, cursor: p.cursor, delta: deltaOf(p) });
  };
  for (const event of events) {
    tokensUpTo(event.at);
    offset += 1;
    items.push({ topic: EVENTS_TOPIC, offset, event });
  }
  tokensUpTo(Number.POSITIVE_INFINITY);
  return items;
}
