/**
 * One streaming vocabulary for every provider. Events are plain JSON so they can be published
 * to a workflow stream or a client as they are. `index` is the position of the block in the
 * final message's `content`.
 */
import type {
  AssistantContent,
  AssistantMessage,
  Cost,
  ProviderId,
  StopReason,
  ToolCallBlock,
  Usage,
} from './messages';
import { emptyCost, emptyUsage } from './messages';

export interface StartEvent {
  type: 'start';
  provider: ProviderId;
  model: string;
  responseId?: string;
  timestamp: number;
}
export interface TextStartEvent {
  type: 'textStart';
  index: number;
}
export interface TextDeltaEvent {
  type: 'textDelta';
  index: number;
  delta: string;
}
export interface TextEndEvent {
  type: 'textEnd';
  index: number;
  text: string;
}
export interface ThinkingStartEvent {
  type: 'thinkingStart';
  index: number;
}
export interface ThinkingDeltaEvent {
  type: 'thinkingDelta';
  index: number;
  delta: string;
}
export interface ThinkingEndEvent {
  type: 'thinkingEnd';
  index: number;
  thinking: string;
  signature?: string;
  redacted?: boolean;
}
export interface ToolCallStartEvent {
  type: 'toolCallStart';
  index: number;
  id: string;
  name: string;
}
/** `delta` is a raw fragment of the argument JSON, as the provider sent it. */
export interface ToolCallDeltaEvent {
  type: 'toolCallDelta';
  index: number;
  delta: string;
}
/** The finished call, arguments parsed (or `malformed` set). */
export interface ToolCallEndEvent {
  type: 'toolCallEnd';
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

/**
 * Folds events into the assistant message they describe. Only `start`, the `*End` events, the
 * last `usage` and `done`/`error` matter; deltas are for live display. Blocks that started but
 * never ended (a stream cut short) are left out.
 */
export class MessageAssembler {
  private start: StartEvent | undefined;
  private readonly blocks = new Map<number, AssistantContent>();
  private usage: Usage = emptyUsage();
  private cost: Cost = emptyCost();
  private done: DoneEvent | undefined;
  private error: ErrorEvent | undefined;

  push(event: StreamEvent): void {
    switch (event.type) {
      case 'start':
        this.start = event;
        break;
      case 'textEnd':
        this.blocks.set(event.index, { type: 'text', text: event.text });
        break;
      case 'thinkingEnd': {
        const block: AssistantContent = { type: 'thinking', thinking: event.thinking };
        if (event.signature !== undefined) block.signature = event.signature;
        if (event.redacted) block.redacted = true;
        this.blocks.set(event.index, block);
        break;
      }
      case 'toolCallEnd':
        this.blocks.set(event.index, event.toolCall);
        break;
      case 'usage':
        this.usage = event.usage;
        this.cost = event.cost;
        break;
      case 'done':
        this.done = event;
        break;
      case 'error':
        this.error = event;
        break;
      default:
        break;
    }
  }

  /** The message so far. Throws if the stream never started. */
  message(): AssistantMessage {
    if (!this.start) throw new Error('Cannot assemble a message from a stream without a start event.');
    const content = [...this.blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    const message: AssistantMessage = {
      role: 'assistant',
      content,
      provider: this.start.provider,
      model: this.start.model,
      usage: this.usage,
      cost: this.cost,
      stopReason: this.error ? 'error' : (this.done?.stopReason ?? 'error'),
      timestamp: this.start.timestamp,
    };
    if (this.done?.rawStopReason !== undefined) message.rawStopReason = this.done.rawStopReason;
    if (this.start.responseId !== undefined) message.responseId = this.start.responseId;
    if (this.error) message.errorMessage = this.error.message;
    else if (!this.done) message.errorMessage = 'Stream ended without a done event.';
    return message;
  }
}

/** Assembles the final message from a complete list of events. */
export function assembleMessage(events: Iterable<StreamEvent>): AssistantMessage {
  const assembler = new MessageAssembler();
  for (const event of events) assembler.push(event);
  return assembler.message();
}
