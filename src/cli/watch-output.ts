/** How `watch` and `run --watch` print a run as it works: tokens inline, one line per event. */
import type { AgentEvent } from '../contracts/agent-events';
import { TOKENS_TOPIC, type TokenDelta, type WatchItem } from '../contracts/watch-topics';
import { ANSWERS_TOPIC, type AnswerItem } from '../client/watch-answers';
import { CHILDREN_TOPIC, type ChildEventItem } from '../client/watch-children';
import { planDecisionNote } from '../client/trace-steps';
import { AnswerView } from './answer-view';
import { childTag } from '../policy/sub-agents';
import { tokensInOut } from '../policy/billing';
import { usd } from '../common/decimal';

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One line for a trace event. `runId` (the workflow id) lets lines suggest the next command. */
function formatEvent(e: AgentEvent, runId?: string): string {
  const at = `[turn ${e.turn}]`;
  switch (e.type) {
    case 'turn_start':
      return `${at} calling ${e.model}`;
    case 'turn_end':
      return (
        `${at} ${e.model} answered (${e.stopReason}): ${plural(e.toolCalls, 'tool call')}, ` +
        `${tokensInOut(e.usage)} tokens`
      );
    case 'tool_start':
      return `${at} tool ${e.tool} (${e.toolCallId}) started: ${e.args}`;
    case 'tool_execution':
      return (
        `${at} tool ${e.tool} (${e.toolCallId}) ` +
        `${e.skipped ? `skipped: ${e.skipped}` : `${e.isError ? 'failed' : 'ran'} in ${e.durationMs} ms`}` +
        (e.preview && !e.skipped ? `\n    -> ${e.preview}` : '')
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
        `${at} ${e.tool} (${e.toolCallId}) needs approval of ${e.args}` +
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
      return (
        `${at} steered${e.text !== undefined ? `: ${e.text}` : ''}` +
        `${e.skippedTools.length ? `; skipped ${e.skippedTools.join(', ')}` : ''}`
      );
    case 'follow_up':
      return `${at} follow-up taken${e.text !== undefined ? `: ${e.text}` : ''}`;
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
    case 'context_transformed':
      return `${at} context rewritten by ${e.hook}${e.note ? `: ${e.note}` : ''}`;
    case 'model_failure':
      return (
        `${at} ${e.model} failed${e.attempts ? ` after ${e.attempts} attempts` : ''} ` +
        `(${e.failureType}${e.retryable ? ', retryable' : ''}): ${e.message}`
      );
    case 'tenant_budget':
      return `${at} tenant ${e.tenant}'s budget ${e.what === 'unsettled' ? 'missed a settle' : e.what}: ${e.message}`;
    case 'phase':
      // The last phase is not the run's end, which has its own `done` line.
      return (
        `${at} ${e.phase === 'done' ? 'phases finished' : e.phase}` +
        `${e.todoId ? ` todo ${e.todoId}${e.todo ? `: ${e.todo}` : ''}` : ''} (cycle ${e.cycle})`
      );
    case 'plan_decided':
      return `${at} ${planDecisionNote(e)}`;
    case 'conversation_continued':
      return (
        `${at} went on from ${e.fromRun ?? 'the given messages'}` +
        `${e.atTurn !== undefined ? ` at turn ${e.atTurn}` : ''}: ` +
        `${plural(e.messages, 'message')}, ${plural(e.turns, 'turn')}`
      );
    case 'continued_as_new':
      return `${at} continued as new (run ${e.runs + 1})`;
    case 'child_start':
      return `${at} sub-agent ${e.agent} (${childTag(e)}) started as ${e.childId}: ${e.task}`;
    case 'child_end':
      return (
        `${at} sub-agent ${e.agent} (${childTag(e)}) ${e.status} (${e.stopReason ?? e.status}): ` +
        `${tokensInOut(e.usage)} tokens, ${usd(e.costUsd)}`
      );
    case 'done':
      return `${at} done (${e.stopReason}) after ${plural(e.turns, 'turn')} · ${usd(e.costUsd)}`;
    case 'error':
      return `${at} error${e.failureType ? ` (${e.failureType})` : ''}: ${e.message}`;
  }
}

/**
 * Prints watch items: token pieces continue the current line, an event starts its own, and a
 * structured answer (the client's answer items) shows as fields that fill in.
 */
export class WatchPrinter {
  private open?: string;
  /** Text streamed for the newest answer, to tell whether the final text was seen whole. */
  private streamed = { seq: -1, attempt: 0, text: '' };
  /** Whether the run's last answer was shown whole as a structured answer (its final text then was). */
  private answeredWhole = false;
  private turn = 0;
  /** The structured answer streaming now, by `seq:attempt`. */
  private answer?: { key: string; view: AnswerView };
  /** The run's `done` event, once printed. */
  done?: Extract<AgentEvent, { type: 'done' }>;

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: { json?: boolean; runId?: string } = {},
  ) {}

  print(item: WatchItem | AnswerItem | ChildEventItem): void {
    if (item.topic === CHILDREN_TOPIC) return this.child(item);
    if (item.topic === ANSWERS_TOPIC) return this.structured(item);
    if (item.topic === TOKENS_TOPIC)
      return this.options.json ? this.write(`${JSON.stringify(item)}\n`) : this.printTokens(item.delta);
    const { event } = item;
    this.closeAnswer();
    if (event.type === 'turn_start') {
      this.turn = event.turn;
      this.answeredWhole = false;
    }
    if (event.type === 'done') {
      // One done line per run, however many ways the end reached this watch.
      if (this.done) return;
      this.done = event;
    }
    if (this.options.json) return this.write(`${JSON.stringify(item)}\n`);
    this.endLine();
    // The last pieces of a run that ends right after them can miss the watch: the final text is in `done`.
    if (event.type === 'done' && event.finalText && !this.answeredWhole && this.streamed.text !== event.finalText)
      this.write(`${event.finalText}\n`);
    this.write(`${formatEvent(event, this.options.runId)}\n`);
  }

  /** An event of a child run, indented under the run by its depth and named by its agent and call. */
  private child(item: ChildEventItem): void {
    this.closeAnswer();
    this.endLine();
    if (this.options.json) return this.write(`${JSON.stringify(item)}\n`);
    const { child, event } = item;
    const line = formatEvent(event, this.options.runId).replace(/\n/g, `\n${'  '.repeat(child.depth)}`);
    this.write(`${'  '.repeat(child.depth)}${child.agent} (${child.tag}) ${line}\n`);
  }

  /** A structured answer's value: printed as fields, or with `json` as one component line per value. */
  private structured(item: AnswerItem): void {
    const key = `${item.seq}:${item.attempt}`;
    if (this.answer?.key !== key) {
      this.closeAnswer();
      this.endLine();
      this.answer = { key, view: new AnswerView(item.role, this.options.json ? () => undefined : this.write) };
      if (!this.options.json)
        this.write(`[turn ${this.turn}] ${item.role}${item.attempt > 1 ? ` (attempt ${item.attempt})` : ''}:\n`);
    }
    const { view } = this.answer;
    view.show(item.value);
    if (this.options.json) {
      const { seq, attempt, offset, role, value, complete } = item;
      this.write(`${JSON.stringify({ type: 'component', role, seq, attempt, offset, value, complete })}\n`);
    } else view.render(item.complete);
    if (item.complete) {
      if (item.role === 'answer') this.answeredWhole = true;
      this.answer = undefined;
    }
  }

  /** Prints the rest of the structured answer streaming now, if any. */
  private closeAnswer(): void {
    if (this.answer && !this.options.json) this.answer.view.render(true);
    this.answer = undefined;
  }

  private printTokens(delta: TokenDelta): void {
    const key = `${delta.seq}:${delta.attempt}:${delta.model}:${delta.kind}:${delta.tool ?? ''}`;
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
    if (delta.kind !== 'text') return;
    const { seq, attempt } = delta;
    if (seq !== this.streamed.seq || attempt !== this.streamed.attempt) this.streamed = { seq, attempt, text: '' };
    this.streamed.text += delta.text;
  }

  /** Ends a line of tokens, if one is open. */
  endLine(): void {
    if (this.open !== undefined) {
      this.write('\n');
      this.open = undefined;
    }
  }

  /** Ends whatever is still open at the end of the watch. */
  finish(): void {
    this.closeAnswer();
    this.endLine();
  }
}
