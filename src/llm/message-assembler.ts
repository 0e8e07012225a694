/** Folds a model stream's events into the assistant message they describe. */
import type { DoneEvent, ErrorEvent, StartEvent, StreamEvent } from '../contracts/stream-events';
import {
  emptyCost,
  emptyUsage,
  type AssistantContent,
  type AssistantMessage,
  type Cost,
  type Usage,
} from '../contracts/message-model';

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
      case 'text_end':
        this.blocks.set(event.index, { type: 'text', text: event.text });
        break;
      case 'thinking_end': {
        const block: AssistantContent = { type: 'thinking', thinking: event.thinking };
        if (event.signature !== undefined) block.signature = event.signature;
        if (event.redacted) block.redacted = true;
        this.blocks.set(event.index, block);
        break;
      }
      case 'tool_call_end':
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
