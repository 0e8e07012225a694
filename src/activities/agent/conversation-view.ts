/** Reading the part of a conversation a model call sees, from the content store. */
import { errorText } from '../../common/error-text';
import { ApplicationFailure } from '@temporalio/activity';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { textOf, type Message } from '../../contracts/message-model';
import type { ProviderId } from '../../contracts/model-ref';
import { DROPPED_NOTE, toProviderMessages } from '../../policy/provider-view';
import type { LoggedBody, StoredBody } from '../../contracts/stored-body';
import type { ConversationView } from '../../contracts/agent-run';
import { StoreError, type ContentStore, type LogEntry, type WriteOrder } from '../../store';
import { activityContext } from '../heartbeat';
import { SettledLogCache } from './log-cache';

/**
 * Runs a store operation. A store error (a gap, a missing body, bad input) becomes a
 * non-retryable typed failure; anything else (the database unreachable, a broken connection)
 * a retryable one, so the activity tries again and the run goes on when the store is back.
 */
export async function fromStore<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof StoreError)
      throw ApplicationFailure.nonRetryable(err.message, AGENT_FAILURE.store, { code: err.code });
    if (err instanceof ApplicationFailure) throw err;
    throw ApplicationFailure.retryable(`the content store failed: ${errorText(err)}`, AGENT_FAILURE.storeUnavailable);
  }
}

/** The running activity attempt's place in the order of writes (see `WriteOrder`); none outside an activity. */
export function currentWriteOrder(): WriteOrder | undefined {
  const info = activityContext()?.info;
  return info && { scheduledAt: Math.trunc(info.scheduledTimestampMs), attempt: info.attempt };
}

/** Writes log entries of the conversation, in the running activity attempt's place in the order of writes. */
export const writeLogged = (store: ContentStore, conversationId: string, entries: readonly LogEntry[]): Promise<void> =>
  fromStore(() => store.writeEntries(conversationId, entries, currentWriteOrder()));

/** The conversation of a call: the one it names, or the calling run's (its workflow id). */
export function conversationOf(input: { conversationId?: string }): string {
  if (input.conversationId) return input.conversationId;
  // Outside an activity there is no calling run: the input must name the conversation.
  const workflowId = activityContext()?.info.workflowExecution?.workflowId;
  if (workflowId) return workflowId;
  throw ApplicationFailure.nonRetryable('the call names no conversation and has no calling run', AGENT_FAILURE.store);
}

/** One per process: every store instance of a worker shares it (entries are keyed by run). */
const settled = new SettledLogCache();

/**
 * The logged bodies `[fromSeq, toSeq)` in log order. `settledBelowTo`: the caller is a model call
 * or summary whose workflow has moved past `toSeq`, so the entries may come from (and go to) the
 * worker's cache (see ./log-cache).
 */
export async function readLogged(
  store: ContentStore,
  conversationId: string,
  fromSeq: number,
  toSeq: number,
  options: { settledBelowTo?: boolean } = {},
): Promise<LoggedBody[]> {
  return fromStore(async () => {
    const read = (from: number, to: number): Promise<LogEntry[]> => store.readEntries(conversationId, from, to);
    const runId = options.settledBelowTo ? activityContext()?.info.workflowExecution?.runId : undefined;
    const entries = runId
      ? await settled.read(conversationId, runId, fromSeq, toSeq, read)
      : await read(fromSeq, toSeq);
    const bodies = await store.getMany<StoredBody>(entries.map((e) => e.hash));
    return entries.map((e, i) => ({ kind: e.kind, body: bodies[i] }));
  });
}

/**
 * What the model reads before the view's first entry: the summary; or, when the oldest messages
 * left the view without one (`fromSeq` past 0, no summary), a note and the conversation's first message.
 */
export async function readSummary(
  store: ContentStore,
  conversationId: string,
  view: ConversationView,
): Promise<{ text: string; timestamp: number } | undefined> {
  const hash = view.summaryHash;
  if (!hash) {
    if (view.fromSeq === 0) return undefined;
    const [first] = await readLogged(store, conversationId, 0, 1);
    const text = first?.body.role === 'user' ? textOf(first.body) : '';
    return { text: `${DROPPED_NOTE}${text}`, timestamp: first?.body.timestamp ?? 0 };
  }
  const body = await fromStore(() => store.get<StoredBody>(hash));
  return body.role === 'summary' ? { text: body.text, timestamp: body.timestamp } : undefined;
}

/** The provider messages of a model call, with tool results before `maskBefore` masked. */
export async function loadProviderView(
  store: ContentStore,
  conversationId: string,
  view: ConversationView,
  toSeq: number,
  provider: ProviderId,
  maskBefore?: number,
): Promise<Message[]> {
  const [logged, summary] = await Promise.all([
    readLogged(store, conversationId, view.fromSeq, toSeq, { settledBelowTo: true }),
    readSummary(store, conversationId, view),
  ]);
  const mask = maskBefore === undefined ? undefined : { fromSeq: view.fromSeq, maskBefore };
  return toProviderMessages(logged, provider, summary, mask);
}
