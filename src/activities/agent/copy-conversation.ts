/**
 * A run that goes on from another's conversation starts with that conversation's log entries in
 * its own log: the same stored bodies by hash, nothing copied, no tool run again. The store counts
 * the new log as a user of those bodies, so retention keeps them while either run's log lives. A
 * call the earlier run left without a result gets one that says it was not run.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { CopyConversationInput, CopyConversationOutput } from '../../contracts/agent-activities';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { MODEL_VISIBLE_KINDS, type MessageMeta } from '../../contracts/agent-run';
import type { StoredBody } from '../../contracts/stored-body';
import { toolCallsOf } from '../../contracts/message-model';
import { estimateBodyTokens } from '../../policy/token-estimate';
import type { ContentStore, LogEntry } from '../../store';
import { closeOpenCalls } from './close-open-calls';
import { currentWriteOrder, fromStore } from './conversation-view';

const refuse = (message: string): ApplicationFailure => ApplicationFailure.nonRetryable(message, AGENT_FAILURE.store);

/**
 * The entries up to the end of turn `atTurn`: its answer and the tool results that follow it, with
 * the entries the model does not read among them (a tool's log).
 */
function throughTurn(entries: LogEntry[], atTurn: number): LogEntry[] {
  let answers = 0;
  for (let i = 0; i < entries.length; i++) {
    if (entries[i].kind !== 'assistant') continue;
    answers += 1;
    if (answers < atTurn) continue;
    let end = i + 1;
    const inTurn = (kind: LogEntry['kind']) => kind === 'tool_result' || !MODEL_VISIBLE_KINDS.includes(kind);
    while (end < entries.length && inTurn(entries[end].kind)) end++;
    return entries.slice(0, end);
  }
  return entries;
}

/** What the run's state keeps of a body at its position. */
function metaOf(entry: LogEntry, body: StoredBody): MessageMeta {
  const meta: MessageMeta = { seq: entry.seq, kind: entry.kind, hash: entry.hash, tokens: estimateBodyTokens(body) };
  if (body.role === 'tool_result') {
    meta.toolCallId = body.toolCallId;
    meta.isError = body.isError;
  } else if (body.role === 'assistant') {
    meta.model = `${body.provider}/${body.model}`;
    const ids = toolCallsOf(body).map((c) => c.id);
    if (ids.length > 0) meta.toolCallIds = ids;
  }
  return meta;
}

export function copyConversationActivity(store: ContentStore) {
  return async function copyConversation(input: CopyConversationInput): Promise<CopyConversationOutput> {
    const { entries: all } = await fromStore(() => store.readLog(input.from));
    const entries = all.filter((e, i) => e.seq === i);
    if (entries.length === 0)
      throw refuse(`the store holds no conversation ${input.from}: the run to go on from wrote no messages here`);
    if (entries.length < all.length)
      throw refuse(`conversation ${input.from} misses position ${entries.length} in the store: it cannot be continued`);
    const turns = entries.filter((e) => e.kind === 'assistant').length;
    if (input.atTurn !== undefined && input.atTurn > turns)
      throw ApplicationFailure.nonRetryable(
        `the run to fork took ${turns} turn${turns === 1 ? '' : 's'}: there is no turn ${input.atTurn}`,
        AGENT_FAILURE.config,
      );
    const taken = input.atTurn === undefined ? entries : throughTurn(entries, input.atTurn);
    const bodies = await fromStore(() => store.getMany<StoredBody>(taken.map((e) => e.hash)));
    const messages = closeOpenCalls(taken.map((e, i) => ({ kind: e.kind, body: bodies[i], hash: e.hash })));
    const copied = await Promise.all(
      messages.map(async ({ kind, body, hash }, seq): Promise<[LogEntry, StoredBody]> => [
        { seq, kind, hash: hash ?? (await fromStore(() => store.put(body, input.to))) },
        body,
      ]),
    );
    await fromStore(() =>
      store.writeEntries(
        input.to,
        copied.map(([entry]) => entry),
        currentWriteOrder(),
      ),
    );
    const last = copied[copied.length - 1][0];
    return {
      messages: copied.map(([entry, body]) => metaOf(entry, body)),
      turns: copied.filter(([e]) => e.kind === 'assistant').length,
      endsWithAnswer: last.kind === 'assistant',
    };
  };
}
