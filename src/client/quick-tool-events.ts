/**
 * Quick tool calls shown while they run. A model call that runs quick tool calls itself publishes
 * their `tool_start` and `tool_execution` on the run's token stream as each call begins and ends;
 * the run records the same events only when the model call returns. A watch shows each such event
 * once, when it first reads it: the published one while the call runs, the recorded one otherwise.
 */
import type { AgentEvent } from '../contracts/agent-events';
import type { StoredTokenRecord } from '../contracts/token-stream';

export class QuickToolEvents {
  private readonly shown = new Set<string>();

  /** Whether the watch reads a tool call's event for the first time (and so shows it). */
  private firstRead(event: { type: string; toolCallId: string }): boolean {
    const key = `${event.type}:${event.toolCallId}`;
    if (this.shown.has(key)) return false;
    this.shown.add(key);
    return true;
  }

  /** The event a `tool` record publishes, in turn `turn`; undefined when the watch showed it already. */
  published(record: Extract<StoredTokenRecord, { type: 'tool' }>, turn: number): AgentEvent | undefined {
    return this.firstRead(record.event) ? { ...record.event, at: record.at, turn } : undefined;
  }

  /** Whether the watch shows a recorded event: every event but a tool call's it showed as published. */
  recorded(event: AgentEvent): boolean {
    return (event.type !== 'tool_start' && event.type !== 'tool_execution') || this.firstRead(event);
  }
}
