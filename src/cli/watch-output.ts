/** How `watch` and `run --watch` print a run as it works: tokens inline, one line per event. */
import type { AgentEvent } from '../contracts/agent-events';
import { TOKENS_TOPIC, type WatchItem } from '../contracts/watch-topics';

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line for a trace event. `runId` (the workflow id) lets lines suggest the next command. */
export function formatEvent(e: AgentEvent, runId?: string): string {
  const at = `[turn ${e.turn}]`;
  switch (e.type) {
    case 'turn_start':
      return `${at} calling ${e.model}`;
    case 'turn_end':
      return (
        `${at} ${e.model} answered (${e.stopReason}): ${plural(e.toolCalls, 'tool call')}, ` +
        `${e.usage.inputTokens} in / ${e.usage.outputTokens} out tokens`
      );
    case 'tool_execution':
      return (
        `${at} tool ${e.tool} (${e.toolCallId}) ` +
        `${e.skipped ? `skipped: ${e.skipped}` : `${e.isError ? 'failed' : 'ran'} in ${e.durationMs} ms`}`
      );
    case 'client_tool_request':
      return `${at} waiting for the client's result of ${e.tool} (${e.toolCallId})`;
    case 'client_tool_result':
      return (
        `${at} client result of ${e.tool} ` +
        `(${e.toolCallId})${e.timedOut ? ': timed out' : e.isError ? ': error' : ''}`
      );
    case 'approval_required':
      return (
        `${at} ${e.tool} (${e.toolCallId}) needs approval` +
        (runId
          ? `: durable-agents approve ${runId} ${e.toolCallId}  |  durable-agents reject ${runId} ${e.toolCallId}`
          : '')
      );
    case 'approval_decided':
      return (
        `${at} ${e.tool} (${e.toolCallId}) ${e.decision}${e.by === 'timeout' ? ' (timed out)' : ''}` +
        `${e.edited ? ' with edited arguments' : ''}${e.reason ? `: ${e.reason}` : ''}`
      );
    case 'steering':
      return `${at} steered${e.skippedTools.length ? `; skipped ${e.skippedTools.join(', ')}` : ''}`;
    case 'follow_up':
      return `${at} follow-up taken`;
    case 'provider_switch':
      return `${at} switched ${e.fromModel} -> ${e.toModel}: ${e.reason}`;
    case 'context_compacted':
      return (
        `${at} context compacted: ${plural(e.summarisedMessages, 'message')} summarised, ` +
        `~${e.tokensBefore} -> ~${e.tokensAfter} tokens`
      );
    case 'context_trimmed':
      return (
        `${at} context fitted without a summary: results before #${e.maskBefore} masked` +
        `${e.droppedMessages ? `, ${plural(e.droppedMessages, 'oldest message')} out of view` : ''}, ` +
        `~${e.tokensBefore} -> ~${e.tokensAfter} tokens`
      );
    case 'hook_failed':
      return `${at} ${e.hook} hook failed: ${e.message}`;
    case 'model_failure':
      return `${at} ${e.model} failed (${e.failureType}${e.retryable ? ', retryable' : ''}): ${e.message}`;
    case 'phase':
      return `${at} ${e.phase}${e.todoId ? ` todo ${e.todoId}${e.todo ? `: ${e.todo}` : ''}` : ''} (cycle ${e.cycle})`;
    case 'continued_as_new':
      return `${at} continued as new (run ${e.runs + 1})`;
    case 'done':
      return `${at} done (${e.stopReason}) after ${plural(e.turns, 'turn')} · $${e.costUsd.toFixed(4)}`;
    case 'error':
      return `${at} error${e.failureType ? ` (${e.failureType})` : ''}: ${e.message}`;
  }
}

/** Prints watch items: token pieces continue the current line, an event starts its own. */
export class WatchPrinter {
  private open?: string;
  /** Text streamed for the newest answer, to tell whether the final text was seen whole. */
  private streamed = { seq: -1, attempt: 0, text: '' };

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: { json?: boolean; runId?: string } = {},
  ) {}

  print(item: WatchItem): void {
    if (this.options.json) {
      this.write(`${JSON.stringify(item)}\n`);
      return;
    }
    if (item.topic === TOKENS_TOPIC) {
      const { delta } = item;
      const key = `${delta.seq}:${delta.attempt}:${delta.kind}:${delta.tool ?? ''}`;
      if (key !== this.open) {
        this.endLine();
        const label =
          delta.kind === 'thinking'
            ? '(thinking) '
            : delta.kind === 'tool_call'
              ? `(${delta.tool ?? 'tool'} arguments) `
              : '';
        this.write(`${delta.attempt > 1 ? `(attempt ${delta.attempt}) ` : ''}${label}`);
        this.open = key;
      }
      this.write(delta.text);
      if (delta.kind === 'text') this.remember(delta.seq, delta.attempt, delta.text);
      return;
    }
    this.endLine();
    const { event } = item;
    // The last pieces of a run that ends right after them can miss the watch: the final text is in `done`.
    if (event.type === 'done' && event.finalText && this.streamed.text !== event.finalText)
      this.write(`${event.finalText}\n`);
    this.write(`${formatEvent(event, this.options.runId)}\n`);
  }

  private remember(seq: number, attempt: number, text: string): void {
    if (seq !== this.streamed.seq || attempt !== this.streamed.attempt) this.streamed = { seq, attempt, text: '' };
    this.streamed.text += text;
  }

  /** Ends a line of tokens, if one is open. */
  endLine(): void {
    if (this.open === undefined) return;
    this.write('\n');
    this.open = undefined;
  }
}
