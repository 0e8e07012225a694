/**
 * Conversations that go on: a run can start from another run's whole conversation (`continueFrom`)
 * or from its first turns (`fork`). Both read the earlier run as it closed: its conversation in the
 * store and the options it started with, which a fork takes as its defaults. A run can also start
 * from messages the application gives (`session.initialMessages`), stored by reference.
 */
import type { Client } from '@temporalio/client';
import type { AgentConfig, ConversationOrigin } from '../contracts/run-spec';
import type { RunLayer } from '../contracts/agent-options';
import type { KindFacts } from '../contracts/kind-facts';
import type { ConversationReader } from '../contracts/conversation-log';
import { AgentClientError } from './client-errors';
import { initialMessageProblems } from '../policy/initial-messages';
import { describeOrExplain, resultOfRun, startInput } from './run-reads';

/** An earlier run to go on from, and the config it started with (absent when its history could not say). */
export interface ResolvedOrigin {
  origin: ConversationOrigin;
  config?: AgentConfig;
}

/**
 * Checks that `id` names a run that has ended (a running one takes a follow-up instead) and says
 * where its conversation is. The conversation of a run is kept under its workflow id, across
 * continue-as-new.
 */
export async function resolveOrigin(client: Client, id: string, atTurn?: number): Promise<ResolvedOrigin> {
  const status = (await describeOrExplain(client, id)).status.name;
  if (status === 'RUNNING')
    throw new AgentClientError(
      `run "${id}" is still running: send it a follow-up instead (durable-agents follow-up ${id} TEXT)`,
    );
  if (atTurn !== undefined) {
    // A fork of a turn the run never took is refused here, before a run starts only to fail.
    const turns = await resultOfRun(client.workflow.getHandle(id), id).then(
      (result) => result.turns,
      () => undefined,
    );
    if (turns !== undefined && atTurn > turns)
      throw new AgentClientError(
        `run "${id}" took ${turns} turn${turns === 1 ? '' : 's'}: there is no turn ${atTurn} to fork from`,
      );
  }
  const input = await startInput(client, id).catch(() => undefined);
  return {
    origin: { runId: id, conversationId: id, ...(atTurn !== undefined ? { atTurn } : {}) },
    ...(input?.config ? { config: input.config } : {}),
  };
}

/** What a run that goes on from another says of it in its memo. */
export const originMemo = (origin: ConversationOrigin): { continuedFrom: string; forkedAtTurn?: number } => ({
  continuedFrom: origin.runId,
  ...(origin.atTurn === undefined ? {} : { forkedAtTurn: origin.atTurn }),
});

/**
 * What a run that goes on from the run of `config` takes of it, under its own options: everything it
 * started with but its task, its session and its plan (its approvals, tools, workspace, sub-agents,
 * model, call settings, limits and tenant among them), as a layer of the new run's spec. `kind` is
 * what the new run is: a kind whose steps have prompts of their own takes no system prompt.
 */
export function carriedLayer(config: AgentConfig, kind: KindFacts): RunLayer {
  const {
    task: _task,
    taskHash: _hash,
    session: _session,
    parent: _parent,
    plan: _plan,
    systemPrompt,
    ...rest
  } = config;
  return { ...rest, ...(kind.ownPrompts || systemPrompt === undefined ? {} : { systemPrompt }) };
}

/** A content store the client may write to (both of `durable-agents/worker`'s stores are one). */
type WritableStore = ConversationReader & { put(body: unknown): Promise<string> };

const canWrite = (store: ConversationReader | undefined): store is WritableStore =>
  typeof (store as Partial<WritableStore> | undefined)?.put === 'function';

/**
 * The spec with the messages it was given inline (`session.initialMessages`) stored in `store` and
 * named by their hash, so the run's history holds the hash rather than the conversation; as it was
 * when it has none, or the client has no store it can write to (the messages then travel inline).
 * Messages given by hash are read from `store`, when there is one, and refused as the run would
 * refuse them.
 */
export async function withStoredMessages(spec: AgentConfig, store?: ConversationReader): Promise<AgentConfig> {
  const session = spec.session;
  const given = session?.initialMessages;
  if (given && !Array.isArray(given) && store) {
    const stored = await store.get<unknown>(given.hash).catch(() => undefined);
    const problems =
      stored === undefined
        ? [`the client's store holds no initialMessages under ${given.hash}`]
        : initialMessageProblems(stored);
    if (problems.length > 0) throw new AgentClientError(`invalid run options: ${problems.join('; ')}`);
  }
  if (!Array.isArray(session?.initialMessages) || !canWrite(store)) return spec;
  const hash = await store.put(session.initialMessages);
  return { ...spec, session: { ...session, initialMessages: { hash } } };
}
