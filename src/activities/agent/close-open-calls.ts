/**
 * A conversation another run goes on from may end between a tool call and its result: the earlier
 * run was terminated while the call waited for an approval or ran. Every call needs a result
 * before the next message a model reads, so the copy closes each such call with an error result
 * that says it was not run, placed where its result would have been.
 */
import { MODEL_VISIBLE_KINDS, type AgentMessageKind } from '../../contracts/agent-run';
import { toolCallsOf } from '../../contracts/message-model';
import type { StoredBody } from '../../contracts/stored-body';

/** What the model reads for a call the earlier run never answered. */
export const NOT_RUN_RESULT = 'Not run: the earlier run ended first.';

/** A message of the copied conversation: one of the earlier run's (`hash`), or a result to store. */
export interface CopiedMessage {
  kind: AgentMessageKind;
  body: StoredBody;
  /** The stored body's hash; absent for a result this copy adds. */
  hash?: string;
}

/**
 * The messages in order with a result after each call that has none, before the next message the
 * model reads (entries it does not read, such as notes, may stand between).
 */
export function closeOpenCalls(messages: readonly CopiedMessage[]): CopiedMessage[] {
  const closed: CopiedMessage[] = [];
  let open: { id: string; name: string }[] = [];
  let at = 0;
  const close = () => {
    for (const call of open)
      closed.push({
        kind: 'tool_result',
        body: {
          role: 'tool_result',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: NOT_RUN_RESULT }],
          isError: true,
          // The answer's own time: a retried copy stores the same body under the same hash.
          timestamp: at,
        },
      });
    open = [];
  };
  for (const message of messages) {
    const { body } = message;
    if (body.role === 'tool_result') open = open.filter((c) => c.id !== body.toolCallId);
    else if (MODEL_VISIBLE_KINDS.includes(message.kind)) close();
    if (body.role === 'assistant') {
      open = toolCallsOf(body).map((c) => ({ id: c.id, name: c.name }));
      at = body.timestamp;
    }
    closed.push(message);
  }
  close();
  return closed;
}
