/** Reading the part of a conversation a model call sees, from the content store. */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { ApplicationFailure } from '@temporalio/activity';
import type { Message } from '../../contracts/message-model';
import type { ProviderId } from '../../contracts/model-ref';
import { currentBody, kindOf } from '../../policy/legacy-values';
import { toProviderMessages } from '../../policy/provider-view';
import { type LoggedBody, type StoredBody } from '../../contracts/stored-body';
import type { ConversationView } from '../../contracts/agent-run';
import { StoreError, type ContentStore } from '../../store';

/** Runs a store operation, turning store errors into non-retryable typed failures. */
export async function fromStore<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof StoreError)
      throw ApplicationFailure.nonRetryable(err.message, AGENT_FAILURE.store, { code: err.code });
    throw err;
  }
}

/** The logged bodies `[view.fromSeq, toSeq)` in log order. */
export async function readLogged(
  store: ContentStore,
  conversationId: string,
  fromSeq: number,
  toSeq: number,
): Promise<LoggedBody[]> {
  return fromStore(async () => {
    const entries = await store.readEntries(conversationId, fromSeq, toSeq);
    const bodies = await Promise.all(entries.map((e) => store.get<StoredBody>(e.hash)));
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
    readLogged(store, conversationId, view.fromSeq, toSeq),
    readSummary(store, view),
  ]);
  return toProviderMessages(logged, provider, summary);
}
