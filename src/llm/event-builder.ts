/**
 * Turns provider output, streamed or whole, into the neutral event sequence. Both `complete`
 * and `stream` go through it, so a response yields the same message either way.
 */
import type { StopReason, ToolCallBlock, Usage } from '../contracts/message-model';
import { computeCost } from '../policy/model-registry';
import type { StreamEvent } from '../contracts/stream-events';
import type { ResolvedCall } from './adapter-types';
import { markTruncated, toolCallFromRaw } from './tool-arguments';

type OpenBlock =
  | { type: 'text'; index: number; text: string }
  | { type: 'thinking'; index: number; thinking: string; signature?: string; redacted?: boolean }
  | { type: 'tool_call'; index: number; id: string; name: string; raw: string; extras?: Record<string, unknown> };

/**
 * Blocks are addressed by a provider-side key (Anthropic's block index, OpenAI's `text` or
 * `tool:<n>`); content indices follow the order in which blocks first appear. Tool-call end
 * events wait for the stop reason, because a call cut by the token limit must be marked.
 * A builder is made for one call once its stream has started, which is the start event's time.
 */
export class EventBuilder {
  private readonly open = new Map<string, OpenBlock>();
  private readonly pendingToolCalls: { index: number; call: ToolCallBlock; raw: string }[] = [];
  private nextIndex = 0;
  private started = false;
  /** When the builder was made: the start event's timestamp. */
  readonly timestamp = Date.now();

  constructor(private readonly call: ResolvedCall) {}

  start(responseId?: string): StreamEvent[] {
    if (this.started) return [];
    this.started = true;
    const event: StreamEvent = {
      type: 'start',
      provider: this.call.provider.id,
      model: this.call.model,
      timestamp: this.timestamp,
    };
    if (responseId) event.responseId = responseId;
    return [event];
  }

  text(key: string, delta: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    let block = this.open.get(key);
    if (!block) {
      if (delta === '') return events;
      block = { type: 'text', index: this.nextIndex++, text: '' };
      this.open.set(key, block);
      events.push({ type: 'text_start', index: block.index });
    }
    if (block.type !== 'text' || delta === '') return events;
    block.text += delta;
    events.push({ type: 'text_delta', index: block.index, delta });
    return events;
  }

  thinking(key: string, delta: string, extra: { signature?: string; redacted?: boolean } = {}): StreamEvent[] {
    const events: StreamEvent[] = [];
    let block = this.open.get(key);
    if (!block) {
      if (delta === '' && !extra.signature && !extra.redacted) return events;
      block = { type: 'thinking', index: this.nextIndex++, thinking: '' };
      this.open.set(key, block);
      events.push({ type: 'thinking_start', index: block.index });
    }
    if (block.type !== 'thinking') return events;
    if (extra.signature) block.signature = (block.signature ?? '') + extra.signature;
    if (extra.redacted) block.redacted = true;
    if (delta !== '') {
      block.thinking += delta;
      events.push({ type: 'thinking_delta', index: block.index, delta });
    }
    return events;
  }

  toolCallStart(key: string, id: string, name: string): StreamEvent[] {
    if (this.open.has(key)) return [];
    const block: OpenBlock = { type: 'tool_call', index: this.nextIndex++, id, name, raw: '' };
    this.open.set(key, block);
    return [{ type: 'tool_call_start', index: block.index, id, name }];
  }

  toolCallDelta(key: string, delta: string): StreamEvent[] {
    const block = this.open.get(key);
    if (!block || block.type !== 'tool_call' || delta === '') return [];
    block.raw += delta;
    return [{ type: 'tool_call_delta', index: block.index, delta }];
  }

  /** Provider data that must travel with the call (see `ToolCallBlock.providerExtras`). */
  toolCallExtras(key: string, extras: Record<string, unknown>): void {
    const block = this.open.get(key);
    if (block?.type === 'tool_call') block.extras = { ...block.extras, ...extras };
  }

  /** Ends one block. Text and thinking end now; tool calls end at `finish`. */
  end(key: string): StreamEvent[] {
    const block = this.open.get(key);
    if (!block) return [];
    this.open.delete(key);
    switch (block.type) {
      case 'text':
        return [{ type: 'text_end', index: block.index, text: block.text }];
      case 'thinking': {
        const event: StreamEvent = { type: 'thinking_end', index: block.index, thinking: block.thinking };
        if (block.signature) event.signature = block.signature;
        if (block.redacted) event.redacted = true;
        return [event];
      }
      case 'tool_call': {
        const call = toolCallFromRaw(block.id, block.name, block.raw);
        if (block.extras) call.providerExtras = block.extras;
        this.pendingToolCalls.push({ index: block.index, call, raw: block.raw });
        return [];
      }
    }
  }

  /** Ends every open block, then emits tool-call ends, usage and done. */
  finish(stopReason: StopReason, rawStopReason: string | undefined, usage: Usage): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const key of [...this.open.keys()]) events.push(...this.end(key));
    const lastIndex = this.nextIndex - 1;
    for (const pending of this.pendingToolCalls.sort((a, b) => a.index - b.index)) {
      const cut = stopReason === 'length' && pending.index === lastIndex;
      events.push({
        type: 'tool_call_end',
        index: pending.index,
        toolCall: cut ? markTruncated(pending.call, pending.raw) : pending.call,
      });
    }
    this.pendingToolCalls.length = 0;
    events.push({ type: 'usage', usage, cost: computeCost(usage, this.call.info.prices) });
    events.push({ type: 'done', stopReason, ...(rawStopReason !== undefined ? { rawStopReason } : {}) });
    return events;
  }
}
