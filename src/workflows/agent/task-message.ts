/** The task as the first message of a run's own conversation, written by the pin or by the run itself. */
import type { AgentState, MessageMeta } from '../../contracts/agent-run';
import { TASK_SEQ, taskDraft } from '../../policy/pinning';
import type { RunContext } from './run-context';

/** The metadata of the task, before whatever the run wrote while its first model call pinned. */
export function recordOpened(state: AgentState, opened: readonly MessageMeta[]): void {
  state.messages = [...opened, ...state.messages].sort((a, b) => a.seq - b.seq);
}

/** Writes the task of a new conversation (again, if the pin wrote it) and records its metadata. */
export async function writeTask(ctx: RunContext): Promise<void> {
  const { state } = ctx;
  const opened = await ctx.io.appendMessages({
    conversationId: state.conversationId,
    startSeq: TASK_SEQ,
    drafts: [taskDraft(state.config)],
  });
  recordOpened(state, opened);
}
