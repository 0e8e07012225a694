/**
 * A `transformContext` hook made from a function over messages (docs/hooks.md, Context
 * transforms). The workflow hands the hook only where the view is; `contextTransform` reads it
 * from the store as the model call would, gives it to the function, checks what comes back, and
 * stores it, answering with its hash: the bodies never pass through the workflow.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { HookContextInput, HookContextOutput } from '../contracts/agent-hooks';
import { AGENT_FAILURE } from '../contracts/failure-types';
import type { Message } from '../contracts/message-model';
import type { LoggedBody } from '../contracts/stored-body';
import { modelRefOf } from '../policy/model-ref';
import { toolPairingProblems } from '../policy/provider-view';
import type { ContentStore } from '../store';
import { fromStore, loadProviderView, readLogged } from './agent/conversation-view';

/** What a function given to {@link contextTransform} receives: where the view is, and loaders of it. */
export interface ContextTransformCall extends HookContextInput {
  /** What the model would see: a summary first, old results masked, notes left out (read once). */
  messages(): Promise<Message[]>;
  /** The view's log entries with their stored bodies, notes included (read once). */
  entries(): Promise<LoggedBody[]>;
}

/** The messages to send (with what changed, for the run's event), or nothing to send the view unchanged. */
export type ContextTransformResult = Message[] | { messages: Message[]; note?: string } | null | undefined | void;

const ROLES = new Set(['user', 'assistant', 'tool_result']);

/** Why `value` is not a list of provider messages a model can be sent; undefined when it is one. */
function messagesProblem(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return 'it returned no messages';
  const bad = value.findIndex((m) => !m || typeof m !== 'object' || !ROLES.has((m as Message).role));
  if (bad >= 0) return `message ${bad} is not a user, assistant or tool_result message`;
  const pairing = toolPairingProblems(value as Message[]);
  return pairing.length > 0 ? pairing.join('; ') : undefined;
}

/**
 * The activity to register under the name a run gives `hooks.transformContext`:
 * `{ ...activities, trimContext: contextTransform(store, async (c) => [...]) }`, with `store` the
 * store the worker's plugin is given. What `fn` returns must keep every tool call with its result
 * (a provider refuses it otherwise); what does not is refused without retries, recorded as a
 * `hook_failed` event, and the call goes on with the view unchanged.
 */
export function contextTransform(
  store: ContentStore,
  fn: (call: ContextTransformCall) => Promise<ContextTransformResult> | ContextTransformResult,
): (input: HookContextInput) => Promise<HookContextOutput | null> {
  return async (input) => {
    const { conversationId, view, toSeq, maskBefore } = input;
    let messages: Promise<Message[]> | undefined;
    let entries: Promise<LoggedBody[]> | undefined;
    const provider = modelRefOf(input.model).provider;
    const out = await fn({
      ...input,
      messages: () => (messages ??= loadProviderView(store, conversationId, view, toSeq, provider, maskBefore)),
      entries: () => (entries ??= readLogged(store, conversationId, view.fromSeq, toSeq)),
    });
    if (out === null || out === undefined) return null;
    const sent = Array.isArray(out) ? out : out.messages;
    const problem = messagesProblem(sent);
    if (problem)
      throw ApplicationFailure.nonRetryable(
        `the context transform cannot be sent: ${problem}`,
        AGENT_FAILURE.hookFailed,
      );
    const messagesHash = await fromStore(() => store.put(sent, conversationId));
    const note = Array.isArray(out) ? undefined : out.note;
    return { messagesHash, ...(note ? { note } : {}) };
  };
}
