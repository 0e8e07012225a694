/**
 * Quick tool calls shown while they run. A model call that runs quick tool calls itself publishes
 * their `tool_start` and `tool_execution` on the run's token stream as each call begins and ends;
 * the run records the same events only when the model call returns. A watch shows each such event
 * once, when it first reads it: the published one while the call runs, the recorded one otherwise.
 */
import type { AgentEvent } from '../contracts/agent-events';
import type { StoredTokenRecord } from '../contracts/token-stream';

type ToolRecord = Extract<StoredTokenRecord, { type: 'tool' }>;

const keyOf = (event: { type: string; toolCallId: string }): string => `${event.type}:${event.toolCallId}`;

export class QuickToolEvents {
  private readonly shown = new Set<string>();

  /** The event a `tool` record publishes, in turn `turn`; undefined when the watch showed it already. */
  published(record: ToolRecord, turn: number): AgentEvent | undefined {
    const key = keyOf(record.event);
    if (this.shown.has(key)) return undefined;
    this.shown.add(key);
    return { ...record.event, at: record.at, turn };
  }

  /** Whether the watch shows a recorded event: every event but a tool call's it showed as published. */
  recorded(event: AgentEvent): boolean {
    if (event.type !== 'tool_start' && event.type !== 'tool_execution') return true;
    const key = keyOf(event);
    if (this.shown.has(key)) return false;
    this.shown.add(key);
    return true;
  }
}
