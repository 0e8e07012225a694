/** Message bodies as the content store holds them, one per log entry. */
import type { AssistantMessage, ToolResultMessage, UserMessage } from './message-model';
import type { AgentMessageKind } from './agent-run';
import type { UserOrigin } from './message-drafts';

/** A body in the content store, as written by the activities. */
export type StoredBody =
  | (UserMessage & { origin?: UserOrigin; agentRole?: string })
  | (AssistantMessage & { agentRole?: string })
  | (ToolResultMessage & { whole?: WholeResult })
  | { role: 'summary'; text: string; timestamp: number }
  | {
      role: 'context_note' | 'system_event' | 'tool_log';
      text: string;
      timestamp: number;
      /** The child run the note is about (a pev todo's). */
      childRun?: string;
      /** The tool call a `tool_log` is the log of. */
      toolCallId?: string;
    };

/**
 * The uncut text of a tool result that was cut to fit the model's context window: stored beside
 * it, read back a page at a time (`read_tool_result` with an offset).
 */
export interface WholeResult {
  /** Content-store hash of the whole text (a JSON string). */
  hash: string;
  chars: number;
  /** Characters the cut result shows: the page size of a read back. */
  shown: number;
}

export interface LoggedBody {
  kind: AgentMessageKind;
  body: StoredBody;
}
