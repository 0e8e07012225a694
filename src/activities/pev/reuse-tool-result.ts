/** Answers a repeated tool call from the stored result of the identical earlier call (tool-call dedupe). */
import type { StoredBody } from '../../shared/agent/convert';
import type { ReuseToolResultInput } from '../../shared/pev';
import type { MessageMeta } from '../../shared/agent/types';
import type { ContentStore } from '../../store';
import { storeBody } from '../agent/messages';
import { currentWriteOrder, fromStore } from '../agent/view';
import { ApplicationFailure } from '@temporalio/common';

export function reuseToolResultActivity(store: ContentStore) {
  return async function reuseToolResult(input: ReuseToolResultInput): Promise<MessageMeta> {
    const earlier = await fromStore(() => store.get<StoredBody>(input.fromHash));
    if (earlier.role !== 'toolResult') {
      throw ApplicationFailure.nonRetryable(
        `Body ${input.fromHash} is a ${earlier.role} message, not a tool result.`,
        'PevReuseError',
      );
    }
    const { meta, entry } = await storeBody(store, input.conversationId, input.seq, 'toolResult', {
      ...earlier,
      toolCallId: input.toolCallId,
      content: [{ type: 'text', text: input.note }, ...earlier.content],
      timestamp: Date.now(),
    });
    const order = currentWriteOrder();
    await fromStore(() => store.writeEntries(input.conversationId, [entry], order));
    return meta;
  };
}
