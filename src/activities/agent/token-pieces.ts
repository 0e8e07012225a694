/**
 * Turns a model stream's deltas into the token pieces a run's token stream keeps: deltas of one
 * block are joined until the block changes, the piece is `minPieceMs` old or the caller flushes,
 * and each piece of a tool call names its tool. Pure: the caller passes the time and sends what
 * comes out, with the time of the piece's first delta.
 */
import type { StreamEvent } from '../../contracts/stream-events';
import type { TokenDelta } from '../../contracts/watch-topics';

export class TokenPieces {
  private readonly tools = new Map<number, string>();
  private pending?: { index: number; since: number; delta: TokenDelta };

  constructor(
    private readonly call: { seq: number; attempt: number; model: string },
    private readonly minPieceMs: number,
    private readonly emit: (delta: TokenDelta, since: number) => void,
  ) {}

  push(event: StreamEvent, now: number): void {
    if (event.type === 'text_delta') this.add(event.index, 'text', event.delta, now);
    else if (event.type === 'thinking_delta') this.add(event.index, 'thinking', event.delta, now);
    else if (event.type === 'tool_call_start') this.tools.set(event.index, event.name);
    else if (event.type === 'tool_call_delta') this.add(event.index, 'tool_call', event.delta, now);
  }

  /** Sends the piece being joined, if any. */
  flush(): void {
    if (!this.pending) return;
    this.emit(this.pending.delta, this.pending.since);
    this.pending = undefined;
  }

  private add(index: number, kind: TokenDelta['kind'], text: string, now: number): void {
    if (!text) return;
    if (this.pending && (this.pending.index !== index || this.pending.delta.kind !== kind)) this.flush();
    if (!this.pending) {
      const tool = kind === 'tool_call' ? this.tools.get(index) : undefined;
      this.pending = { index, since: now, delta: { ...this.call, kind, text: '', ...(tool ? { tool } : {}) } };
    }
    this.pending.delta.text += text;
    if (now - this.pending.since >= this.minPieceMs) this.flush();
  }
}
