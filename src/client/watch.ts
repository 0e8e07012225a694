/**
 * `AgentClient.watch`: a run's events and tokens, followed to the run's end. Events come from the
 * run's workflow stream; tokens from its token stream in the content store the workers write
 * (contracts/token-stream.ts), when the watch has that store. Events recorded after the last read
 * of a run that has just ended are read from its state, so a watch always ends with the run's last
 * events.
 */
import type { Client } from '@temporalio/client';
import type { AgentEvent } from '../contracts/agent-events';
import type { AgentResult, AgentStateView } from '../contracts/agent-run';
import type { TokenStreamReader } from '../contracts/token-stream';
import { EVENTS_TOPIC, TOKENS_TOPIC, type WatchItem } from '../contracts/watch-topics';
import { answeredCalls, withEndedTokens } from './ended-tokens';
import { errorText } from '../common/error-text';
import { explain } from './client-errors';
import { isTokenStreamReader, TokenTail } from './token-tail';
import { eventsAndTokens, type WatchProgress } from './watch-merge';
import { QuickToolEvents } from './quick-tool-events';

export interface WatchOptions {
  /** Stream offset to start from (the `offset` of the last event seen, plus one); default the oldest kept. */
  fromOffset?: number;
  /** Include the model's tokens (runs started with `stream: true`); default true. */
  tokens?: boolean;
  /** Token-stream cursor to go on after (the `cursor` of the last token item seen); default the stream's start. */
  tokensAfter?: number;
  /**
   * Where the run's tokens are read: the content store its workers write. Default: the client's
   * `store`. Without one the watch shows events only (and says so through `onNotice`).
   */
  tokenStream?: TokenStreamReader;
  /**
   * Told, once, when the watch cannot show a streaming run's tokens: it has no store, its store
   * holds no token of the run (the workers write another), or reading it failed. The watch goes on
   * with the run's events; its `done` event has the final text. Default: a process warning.
   */
  onNotice?: (message: string) => void;
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

/** How the watch reads the run besides its streams. */
export interface RunReads {
  /** Temporal status of the newest run of the chain (e.g. `RUNNING`). */
  status(): Promise<string>;
  state(): Promise<AgentStateView>;
  result(): Promise<AgentResult>;
  /** Whether the run streams its model calls (started with `stream: true`). */
  streams(): Promise<boolean>;
}

/** Says once why a streaming run's tokens are not shown. */
function tokenNotices(id: string, options: WatchOptions, reads: RunReads) {
  const say =
    options.onNotice ?? ((message: string) => process.emitWarning(message, { type: 'DurableAgentsWatchWarning' }));
  let said = false;
  const once = (message: string) => {
    if (!said) say(message);
    said = true;
  };
  const after = 'the watch shows its events, and its final text when it ends';
  return {
    failed: (source: TokenStreamReader, err: Error) =>
      once(`reading run ${id}'s tokens from ${source.description} failed (${errorText(err)}): ${after}`),
    /** At a turn's end: a streaming run whose tokens this watch has not seen is told about. */
    async turnEnded(source: TokenStreamReader | undefined, tail: TokenTail | undefined): Promise<void> {
      if (said || (tail && tail.received > 0)) return;
      if (!(await reads.streams().catch(() => false))) return void (said = true);
      once(
        source
          ? `no token of run ${id} reached ${source.description}, so its workers write another store: ${after}. ` +
              "Watch with the workers' store (the same DURABLE_AGENTS_STORE_URL, or the same DURABLE_AGENTS_STORE_DIR)."
          : `run ${id} streams its tokens to its workers' content store, which this watch was not given: ${after} ` +
              '(give the client its store: AgentClientOptions.store or WatchOptions.tokenStream).',
      );
    },
  };
}

/**
 * The watch of run `id`; `store` is the client's, read for the tokens when it is a
 * `TokenStreamReader`. For a run that has already ended, yields the events its state kept.
 */
export async function* watchRun(
  client: Client,
  id: string,
  options: WatchOptions,
  store: object | undefined,
  runReads: RunReads,
): AsyncGenerator<WatchItem, void, undefined> {
  const seen: WatchProgress = { offset: (options.fromOffset ?? 0) - 1 };
  let streams: Promise<boolean> | undefined;
  // The start input is read once, whoever asks first.
  const reads: RunReads = { ...runReads, streams: () => (streams ??= runReads.streams()) };
  const own = isTokenStreamReader(store) ? store : undefined;
  const source = options.tokens === false ? undefined : (options.tokenStream ?? own);
  let tokensSeen = options.tokensAfter ?? 0;
  const quickTools = new QuickToolEvents();
  if ((await reads.status()) === 'RUNNING') {
    const notices = options.tokens === false ? undefined : tokenNotices(id, options, reads);
    const tail = source && new TokenTail(source, id, options.tokensAfter);
    const items = eventsAndTokens(
      client,
      id,
      {
        isRunning: async () => (await reads.status()) === 'RUNNING',
        tail,
        onTokenFailure: (err) => source && notices?.failed(source, err),
        streams: () => reads.streams(),
        quickTools,
      },
      seen,
    );
    try {
      for (;;) {
        let next: IteratorResult<WatchItem>;
        try {
          next = await items.next();
        } catch (err) {
          throw explain(err, id);
        }
        if (next.done) break;
        if (next.value.topic === TOKENS_TOPIC) tokensSeen = next.value.cursor;
        yield next.value;
        if (next.value.topic === EVENTS_TOPIC && next.value.event.type === 'turn_end')
          await notices?.turnEnded(source, tail);
      }
    } finally {
      await items.return(undefined);
      tail?.close();
    }
  }
  // The tokens the watch has not shown yet, of the calls that answered, placed among the last events.
  const calls = source ? await answeredCalls(source, id, tokensSeen).catch(() => []) : [];
  for (const item of withEndedTokens(await eventsAfter(seen, reads), calls, seen.offset)) {
    if (item.topic === EVENTS_TOPIC) seen.offset = item.offset;
    if (item.topic === TOKENS_TOPIC || quickTools.recorded(item.event)) yield item;
  }
}

/**
 * The ended run's events after the last one the watch saw, from its state (or, with no worker to answer, its result).
 */
async function eventsAfter(seen: WatchProgress, reads: RunReads): Promise<AgentEvent[]> {
  if (seen.last?.type === 'done') return [];
  let events: AgentEvent[];
  try {
    const state = await reads.state();
    // A view built from the result (no worker to answer) has no events: the result gives the end.
    if ('answeredFrom' in state) throw new Error('no events kept');
    events = state.events;
  } catch {
    const r = await reads.result().catch(() => undefined);
    if (!r) return [];
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
    if (from < 0) return [];
  }
  return events.slice(from);
}
