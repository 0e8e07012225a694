/**
 * One streaming vocabulary for every provider. Events are plain JSON so they can be published
 * to a workflow stream or a client as they are. `index` is the position of the block in the
 * final message's `content`.
 */
import type { Cost, StopReason, ToolCallBlock, Usage } from './message-model';
import type { ProviderId } from './model-ref';

export interface StartEvent {
  type: 'start';
  provider: ProviderId;
  model: string;
  responseId?: string;
  timestamp: number;
}
export interface TextStartEvent {
  type: 'text_start';
  index: number;
}
export interface TextDeltaEvent {
  type: 'text_delta';
  index: number;
  delta: string;
}
export interface TextEndEvent {
  type: 'text_end';
  index: number;
  text: string;
}
export interface ThinkingStartEvent {
  type: 'thinking_start';
  index: number;
}
export interface ThinkingDeltaEvent {
  type: 'thinking_delta';
  index: number;
  delta: string;
}
export interface ThinkingEndEvent {
  type: 'thinking_end';
  index: number;
  thinking: string;
  signature?: string;
  redacted?: boolean;
}
export interface ToolCallStartEvent {
  type: 'tool_call_start';
  index: number;
  id: string;
  name: string;
}
/** `delta` is a raw fragment of the argument JSON, as the provider sent it. */
export interface ToolCallDeltaEvent {
  type: 'tool_call_delta';
  index: number;
  delta: string;
}
/** The finished call, arguments parsed (or `malformed` set). */
export interface ToolCallEndEvent {
  type: 'tool_call_end';
  index: number;
  toolCall: ToolCallBlock;
}
export interface UsageEvent {
  type: 'usage';
  usage: Usage;
  cost: Cost;
}
export interface DoneEvent {
  type: 'done';
  stopReason: StopReason;
  rawStopReason?: string;
}
/** Emitted before the stream throws its classified failure, so observers see why it ended. */
export interface ErrorEvent {
  type: 'error';
  failureType: string;
  message: string;
  retryable: boolean;
}

export type StreamEvent =
  | StartEvent
  | TextStartEvent
  | TextDeltaEvent
  | TextEndEvent
  | ThinkingStartEvent
  | ThinkingDeltaEvent
  | ThinkingEndEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | UsageEvent
  | DoneEvent
  | ErrorEvent;
