/** Answers a repeated tool call from the stored result of the identical earlier call (tool-call dedupe). */
import { AGENT_FAILURE } from '../../contracts/failure-types';
import type { StoredBody } from '../../contracts/stored-body';
import type { ReuseToolResultInput } from '../../contracts/pev-activities';
import type { MessageMeta } from '../../contracts/agent-run';
import type { ContentStore } from '../../store';
import { storeBody } from '../agent/append-messages';
import { fromStore, writeLogged } from '../agent/conversation-view';
import { ApplicationFailure } from '@temporalio/common';

export function reuseToolResultActivity(store: ContentStore) {
  return async function reuseToolResult(input: ReuseToolResultInput): Promise<MessageMeta> {
    const earlier = await fromStore(() => store.get<StoredBody>(input.fromHash));
    if (earlier.role !== 'tool_result') {
      throw ApplicationFailure.nonRetryable(
        `Body ${input.fromHash} is a ${earlier.role} message, not a tool result.`,
        AGENT_FAILURE.pevReuse,
      );
    }
    const { meta, entry } = await storeBody(store, input.conversationId, input.seq, 'tool_result', {
      ...earlier,
      toolCallId: input.toolCallId,
      content: [{ type: 'text', text: input.note }, ...earlier.content],
      timestamp: Date.now(),
    });
    await writeLogged(store, input.conversationId, [entry]);
    return meta;
  };
}
