/** Message bodies as the content store holds them, one per log entry. */
import type { AssistantMessage, ToolResultMessage, UserMessage } from './message-model';
import type { AgentMessageKind } from './agent-run';
import type { UserOrigin } from './agent-activities';

/** A body in the content store, as written by the activities. */
export type StoredBody =
  | (UserMessage & { origin?: UserOrigin })
  | AssistantMessage
  | ToolResultMessage
  | { role: 'summary'; text: string; timestamp: number }
  | { role: 'context_note' | 'system_event' | 'tool_log'; text: string; timestamp: number };

export interface LoggedBody {
  kind: AgentMessageKind;
  body: StoredBody;
}
