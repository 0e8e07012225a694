/**
 * Messages that originate in the workflow (the task, steering, notes, synthetic tool results), as
 * it writes them to the log.
 */
/** Where a user message came from: the run's task, steering, a follow-up; absent for the workflow's own prompts. */
export type UserOrigin = 'task' | 'steering' | 'follow_up';

/** A message that originates in the workflow, written to the log by `appendMessages`. */
export type MessageDraft =
  /** With `textHash`, the body's text is the string stored under that content hash instead of `text`. */
  | { kind: 'user'; text: string; origin?: UserOrigin; textHash?: string; agentRole?: string }
  | { kind: 'tool_result'; toolCallId: string; toolName: string; text: string; isError: boolean }
  /**
   * Tool calls the workflow makes without asking a model (a plan named them), written as an answer:
   * its model reads {@link PLANNED_CALLS_MODEL}.
   */
  | {
      kind: 'assistant';
      toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[];
      agentRole?: string;
    }
  /**
   * `childRun`: the child run (its workflow and conversation id) the note is about, e.g. a pev
   * todo's. `bodyHash`: the note's body is stored already (a tool's log), written by reference
   * (`text` is then empty).
   */
  | { kind: 'context_note' | 'system_event' | 'tool_log'; text: string; childRun?: string; bodyHash?: string };

/** The provider and model an answer of planned calls names (it was written by no model). */
export const PLANNED_CALLS_MODEL = { provider: 'plan', model: 'planned-call' } as const;

export interface AppendMessagesInput {
  conversationId: string;
  startSeq: number;
  drafts: MessageDraft[];
}
