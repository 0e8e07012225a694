/** Message bodies as the content store holds them, one per log entry. */
import type { AssistantMessage, ToolResultMessage, UserMessage } from './message-model';
import type { AgentMessageKind } from './agent-run';

/** A body in the content store, as written by the activities. */
export type StoredBody =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | { role: 'summary'; text: string; timestamp: number }
  | { role: 'contextNote' | 'systemEvent' | 'toolLog'; text: string; timestamp: number };

export interface LoggedBody {
  kind: AgentMessageKind;
  body: StoredBody;
}
