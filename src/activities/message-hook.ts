/**
 * An `onMessage` hook whose implementation can read the message it is told about. The workflow
 * hands a hook only the message's metadata (bodies stay in the content store); `messageHook`
 * wraps the user's function into the hook activity and gives it loaders for the body.
 */
import type { HookMessageInput } from '../contracts/agent-hooks';
import type { ConversationReader } from '../contracts/conversation-log';
import type { RunMessage } from '../contracts/run-message';
import type { StoredBody } from '../contracts/stored-body';
import { runMessageOf } from '../policy/run-messages';

/** What a hook made with {@link messageHook} receives: the metadata, and loaders of the message. */
export interface MessageHookCall extends HookMessageInput {
  /** The message's body as the store holds it; read once, on the first call. */
  body(): Promise<StoredBody>;
  /** The message as `AgentClient.messages` gives it (role, text, tool calls, origin). */
  runMessage(): Promise<RunMessage>;
}

/**
 * The activity to register under the name a run gives `hooks.onMessage`:
 * `{ ...activities, persistMessage: messageHook(store, async (m) => db.save(await m.runMessage())) }`,
 * with `store` the store the worker's activities write. The hook's contract is unchanged: what it
 * throws is retried under the hook's retry policy, then recorded as a `hook_failed` event, and the
 * run goes on.
 */
export function messageHook(
  store: Pick<ConversationReader, 'get'>,
  fn: (call: MessageHookCall) => Promise<void> | void,
): (input: HookMessageInput) => Promise<void> {
  return async (input) => {
    let read: Promise<StoredBody> | undefined;
    const body = () => (read ??= store.get<StoredBody>(input.message.hash));
    await fn({
      ...input,
      body,
      runMessage: async () => runMessageOf(input.message.seq, input.message.kind, await body()),
    });
  };
}
