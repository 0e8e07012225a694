/** Writes messages that originate in the workflow (user text, steering, synthetic tool results, notes). */
import { ApplicationFailure } from '@temporalio/common';
import { PLANNED_CALLS_MODEL, type AppendMessagesInput, type MessageDraft } from '../../contracts/message-drafts';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import type { StoredBody } from '../../contracts/stored-body';
import { emptyCost, emptyUsage } from '../../contracts/message-model';
import { estimateBodyTokens } from '../../policy/token-estimate';
import type { MessageMeta } from '../../contracts/agent-run';
import type { ContentStore, LogEntry } from '../../store';
import { fromStore, writeLogged } from './conversation-view';

function bodyOf(draft: MessageDraft, timestamp: number): StoredBody {
  switch (draft.kind) {
    case 'user':
      return {
        role: 'user',
        content: draft.text,
        timestamp,
        ...(draft.origin ? { origin: draft.origin } : {}),
        ...(draft.agentRole ? { agentRole: draft.agentRole } : {}),
      };
    case 'assistant':
      return {
        role: 'assistant',
        content: draft.toolCalls.map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments })),
        ...PLANNED_CALLS_MODEL,
        usage: emptyUsage(),
        cost: emptyCost(),
        stopReason: 'tool_use',
        timestamp,
        ...(draft.agentRole ? { agentRole: draft.agentRole } : {}),
      };
    case 'tool_result':
      return {
        role: 'tool_result',
        toolCallId: draft.toolCallId,
        toolName: draft.toolName,
        content: [{ type: 'text', text: draft.text }],
        isError: draft.isError,
        timestamp,
      };
    default:
      return { role: draft.kind, text: draft.text, timestamp, ...(draft.childRun ? { childRun: draft.childRun } : {}) };
  }
}

/** Stores one body and returns the metadata the workflow keeps. */
export async function storeBody(
  store: ContentStore,
  conversationId: string,
  seq: number,
  kind: MessageMeta['kind'],
  body: StoredBody,
): Promise<{ meta: MessageMeta; entry: LogEntry }> {
  const hash = await fromStore(() => store.put(body, conversationId));
  const meta: MessageMeta = { seq, kind, hash, tokens: estimateBodyTokens(body) };
  if (body.role === 'tool_result') {
    meta.toolCallId = body.toolCallId;
    meta.isError = body.isError;
  }
  if ((body.role === 'user' || body.role === 'assistant') && body.agentRole) meta.agentRole = body.agentRole;
  if (body.role === 'assistant') meta.model = `${body.provider}/${body.model}`;
  return { meta, entry: { seq, kind, hash } };
}

/** A note's body stored already (`bodyHash`), checked to be a note of the draft's kind. */
async function storedNote(store: ContentStore, draft: MessageDraft & { bodyHash: string }): Promise<StoredBody> {
  const body = await fromStore(() => store.get<StoredBody>(draft.bodyHash));
  if (body?.role !== draft.kind)
    throw ApplicationFailure.nonRetryable(
      `the body stored under ${draft.bodyHash} is not a ${draft.kind}`,
      AGENT_FAILURE.store,
    );
  return body;
}

/**
 * A user draft whose text was stored by reference gets that text; every other draft stays as it is.
 * The referenced body is recorded against the conversation, so retention deletes it with the run.
 */
async function withStoredText(store: ContentStore, conversationId: string, draft: MessageDraft): Promise<MessageDraft> {
  if (draft.kind !== 'user' || !draft.textHash) return draft;
  const { textHash, ...rest } = draft;
  const text = await fromStore(() => store.get<unknown>(textHash));
  if (typeof text !== 'string')
    throw ApplicationFailure.nonRetryable(`the body stored under ${textHash} is not a text`, AGENT_FAILURE.store);
  await fromStore(() => store.put(text, conversationId));
  return { ...rest, text };
}

export function appendMessagesActivity(store: ContentStore) {
  return async function appendMessages(input: AppendMessagesInput): Promise<MessageMeta[]> {
    const now = Date.now();
    const { conversationId } = input;
    const drafts = await Promise.all(input.drafts.map((d) => withStoredText(store, conversationId, d)));
    const stored = await Promise.all(
      drafts.map(async (d, i) => {
        const body =
          'bodyHash' in d && d.bodyHash ? await storedNote(store, { ...d, bodyHash: d.bodyHash }) : bodyOf(d, now);
        return storeBody(store, conversationId, input.startSeq + i, d.kind, body);
      }),
    );
    await writeLogged(
      store,
      conversationId,
      stored.map((s) => s.entry),
    );
    return stored.map((s) => s.meta);
  };
}
