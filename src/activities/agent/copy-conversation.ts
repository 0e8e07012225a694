/**
 * A run that goes on from another's conversation starts with that conversation's log entries in
 * its own log: the same stored bodies by hash, nothing copied, no tool run again. The store counts
 * the new log as a user of those bodies, so retention keeps them while either run's log lives. A
 * call the earlier run left without a result gets one that says it was not run. A run given
 * messages by the application (`session.initialMessages`) starts with those instead, checked again.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { CopyConversationInput, CopyConversationOutput } from '../../contracts/agent-activities';
import { AGENT_FAILURE } from '../../contracts/failure-types';
import { MODEL_VISIBLE_KINDS, type MessageMeta } from '../../contracts/agent-run';
import type { StoredBody } from '../../contracts/stored-body';
import { toolCallsOf } from '../../contracts/message-model';
import { estimateBodyTokens } from '../../policy/token-estimate';
import type { ContentStore, LogEntry } from '../../store';
import type { InitialMessage } from '../../contracts/run-spec';
import { initialBodies, initialMessageProblems } from '../../policy/initial-messages';
import { closeOpenCalls, type CopiedMessage } from './close-open-calls';
import { fromStore, writeLogged } from './conversation-view';

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

/**
 * The messages an application gave (inline or stored by hash), checked as the client checked them:
 * a body stored by hash was written by the application and may hold anything.
 */
async function givenMessages(
  store: ContentStore,
  given: NonNullable<CopyConversationInput['given']>,
  to: string,
): Promise<CopiedMessage[]> {
  let messages: unknown = given;
  if (!Array.isArray(given)) {
    messages = await fromStore(() => store.get<unknown>(given.hash));
    if (messages === undefined)
      throw refuse(`the store holds no initialMessages under ${given.hash}: store them where the workers read`);
    // Recorded against the run's conversation, so retention deletes the stored array with the run.
    await fromStore(() => store.put(messages, to));
  }
  const problems = initialMessageProblems(messages);
  if (problems.length > 0) throw ApplicationFailure.nonRetryable(problems.join('; '), AGENT_FAILURE.config);
  return initialBodies(messages as InitialMessage[], Date.now());
}

/** The earlier run's entries, up to the end of `atTurn`, with a result after each call it left open. */
async function earlierMessages(store: ContentStore, from: string, atTurn?: number): Promise<CopiedMessage[]> {
  const { entries: all } = await fromStore(() => store.readLog(from));
  const entries = all.filter((e, i) => e.seq === i);
  if (entries.length === 0)
    throw refuse(`the store holds no conversation ${from}: the run to go on from wrote no messages here`);
  if (entries.length < all.length)
    throw refuse(`conversation ${from} misses position ${entries.length} in the store: it cannot be continued`);
  const turns = entries.filter((e) => e.kind === 'assistant').length;
  if (atTurn !== undefined && atTurn > turns)
    throw ApplicationFailure.nonRetryable(
      `the run to fork took ${turns} turn${turns === 1 ? '' : 's'}: there is no turn ${atTurn}`,
      AGENT_FAILURE.config,
    );
  const taken = atTurn === undefined ? entries : throughTurn(entries, atTurn);
  const bodies = await fromStore(() => store.getMany<StoredBody>(taken.map((e) => e.hash)));
  return closeOpenCalls(taken.map((e, i) => ({ kind: e.kind, body: bodies[i], hash: e.hash })));
}

export function copyConversationActivity(store: ContentStore) {
  return async function copyConversation(input: CopyConversationInput): Promise<CopyConversationOutput> {
    const { from = '', given, atTurn } = input;
    const messages = given ? await givenMessages(store, given, input.to) : await earlierMessages(store, from, atTurn);
    const copied = await Promise.all(
      messages.map(async ({ kind, body, hash }, seq): Promise<[LogEntry, StoredBody]> => [
        { seq, kind, hash: hash ?? (await fromStore(() => store.put(body, input.to))) },
        body,
      ]),
    );
    await writeLogged(
      store,
      input.to,
      copied.map(([entry]) => entry),
    );
    return {
      messages: copied.map(([entry, body]) => metaOf(entry, body)),
      turns: copied.filter(([e]) => e.kind === 'assistant').length,
      endsWithAnswer: copied[copied.length - 1][0].kind === 'assistant',
    };
  };
}
