/** Reading the part of a conversation a model call sees, from the content store. */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import type { Message } from '../../contracts/message-model';
import type { ProviderId } from '../../contracts/model-ref';
import { currentBody, kindOf } from '../../policy/legacy-values';
import { toProviderMessages } from '../../policy/provider-view';
import type { LoggedBody, StoredBody } from '../../contracts/stored-body';
import type { ConversationView } from '../../contracts/agent-run';
import { StoreError, type ContentStore, type LogEntry, type WriteOrder } from '../../store';
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
    const message = err instanceof Error ? err.message || err.name : String(err);
    throw ApplicationFailure.retryable(`the content store failed: ${message}`, AGENT_FAILURE.storeUnavailable);
  }
}

/** The running activity attempt's place in the order of writes (see `WriteOrder`); none outside an activity. */
export function currentWriteOrder(): WriteOrder | undefined {
  try {
    const { scheduledTimestampMs, attempt } = Context.current().info;
    return { scheduledAt: Math.trunc(scheduledTimestampMs), attempt };
  } catch {
    return undefined;
  }
}

function currentRunId(): string | undefined {
  try {
    return Context.current().info.workflowExecution?.runId;
  } catch {
    return undefined;
  }
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
    const runId = options.settledBelowTo ? currentRunId() : undefined;
    const entries = runId
      ? await settled.read(conversationId, runId, fromSeq, toSeq, read)
      : await read(fromSeq, toSeq);
    const bodies = await store.getMany<StoredBody>(entries.map((e) => e.hash));
    return entries.map((e, i) => ({ kind: kindOf(e), body: currentBody(bodies[i]) }));
  });
}

export async function readSummary(
  store: ContentStore,
  view: ConversationView,
): Promise<{ text: string; timestamp: number } | undefined> {
  if (!view.summaryHash) return undefined;
  const hash = view.summaryHash;
  const body = await fromStore(() => store.get<StoredBody>(hash));
  return body.role === 'summary' ? { text: body.text, timestamp: body.timestamp } : undefined;
}

/** The provider messages of a model call. */
export async function loadProviderView(
  store: ContentStore,
  conversationId: string,
  view: ConversationView,
  toSeq: number,
  provider: ProviderId,
): Promise<Message[]> {
  const [logged, summary] = await Promise.all([
    readLogged(store, conversationId, view.fromSeq, toSeq, { settledBelowTo: true }),
    readSummary(store, view),
  ]);
  return toProviderMessages(logged, provider, summary);
}
