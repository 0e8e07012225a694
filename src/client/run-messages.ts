/**
 * Reading a run's messages from the content store its workers write: the one reader behind
 * `AgentClient.messages` and the `transcript` command. It needs the store, not Temporal, so it
 * works for closed runs and after Temporal has dropped a run's history.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ConversationReader } from '../contracts/conversation-log';
import type { RunMessage } from '../contracts/run-message';
import type { StoredBody } from '../contracts/stored-body';
import { runMessages, type BodyRead } from '../policy/run-messages';
import { childWorkflowId } from '../policy/sub-agents';
import { AgentClientError, explain } from './client-errors';

/** Reads the bodies `records` name in one round trip; when one cannot be read, each on its own, so the rest show. */
async function readBodies(store: ConversationReader, records: readonly { hash: string }[]): Promise<BodyRead[]> {
  if (records.length === 0) return [];
  const hashes = records.map((r) => r.hash);
  try {
    return (await store.getMany<StoredBody>(hashes)).map((body) => ({ body }));
  } catch {
    return Promise.all(
      hashes.map((hash) =>
        store.get<StoredBody>(hash).then(
          (body): BodyRead => ({ body }),
          (err: Error): BodyRead => ({ missing: `body ${hash} could not be read: ${err.message}` }),
        ),
      ),
    );
  }
}

/** The messages of conversation `id` (a run's workflow id); an empty list when the store has nothing of it. */
export async function readRunMessages(store: ConversationReader, id: string): Promise<RunMessage[]> {
  const log = await store.readLog(id);
  const [bodies, summaries] = await Promise.all([readBodies(store, log.entries), readBodies(store, log.summaries)]);
  return runMessages(log, bodies, summaries);
}

/** A run's conversation with those of its child runs, each child under what started it. */
export interface RunConversation {
  id: string;
  messages: RunMessage[];
  children: ChildConversation[];
}

/** A child run's conversation: started by a sub-agent call (`toolCallId`), or named by a note at `noteSeq`. */
export interface ChildConversation extends RunConversation {
  toolCallId?: string;
  noteSeq?: number;
}

/**
 * The conversation `id` with its children's, at any depth, from the store alone: a sub-agent
 * call's child has the id derived from the call, a todo's child is named by a note of its parent.
 */
export async function readRunFamily(store: ConversationReader, id: string): Promise<RunConversation> {
  const messages = await readRunMessages(store, id);
  const started = messages.flatMap((m): { id: string; toolCallId?: string; noteSeq?: number }[] => {
    if (m.role === 'assistant')
      return m.toolCalls.map((c) => ({ id: childWorkflowId(id, c.name, c.id), toolCallId: c.id }));
    return m.role === 'note' && m.childRun ? [{ id: m.childRun, noteSeq: m.seq }] : [];
  });
  const children: ChildConversation[] = [];
  for (const child of started) {
    const family = await readRunFamily(store, child.id);
    if (family.messages.length > 0) children.push({ ...child, ...family });
  }
  return { id, messages, children };
}

/** The line that says a store has nothing of run `id`, and what to check. */
export const noConversationMessage = (store: ConversationReader, id: string): string =>
  `${store.description} has no conversation "${id}": check the id, and that the store is the one the workers use ` +
  '(DURABLE_AGENTS_STORE_URL, else DURABLE_AGENTS_STORE_DIR)';

/**
 * The messages of run `id`, read from `store`. Refuses without a store, for a run Temporal does
 * not know and the store has nothing of, and for a closed run the store has nothing of.
 */
export async function messagesOfRun(
  client: Client,
  store: ConversationReader | undefined,
  id: string,
): Promise<RunMessage[]> {
  if (!store)
    throw new AgentClientError(
      "a run's messages are read from the content store its workers write: create the client with one, e.g. " +
        'new AgentClient(client, taskQueue, { store: await openStore(storeConfig()) }) (both from ' +
        "'durable-agents/worker')",
    );
  const messages = await readRunMessages(store, id);
  if (messages.length > 0) return messages;
  let status: string | undefined;
  try {
    status = (await client.workflow.getHandle(id).describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw explain(err, id);
  }
  if (status === undefined)
    throw new AgentClientError(
      `no agent run with id "${id}": Temporal does not know it and ${store.description} has no conversation of it`,
    );
  if (status === 'RUNNING') return [];
  throw new AgentClientError(noConversationMessage(store, id));
}
