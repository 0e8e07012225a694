/**
 * A run's watch items as AG-UI 1.0 events: the model's text token by token, each tool call with
 * its arguments and result, each turn as a step, the pending approvals as state, and the end. Each
 * event carries where the stream goes on after the item it comes from (`rawEvent.resume`, also the
 * SSE `id`), so a client that reconnects resumes right after the last item it has.
 */
import { EventType, type BaseEvent, type Interrupt } from '@ag-ui/core';
import type { AgentEvent } from '../contracts/agent-events';
import type { TokenDelta, WatchItem } from '../contracts/watch-topics';
import type { RunInput } from './run-bridge';
import { positionAfter, positionOf, positionText, type FeedPosition } from './token-source';

/** What a client's resume entry answers: the run, the call, and where the stream goes on. */
export interface InterruptRef {
  run: string;
  call: string;
  /** {@link positionText} of where the stream goes on. */
  at: string;
}

export const interruptId = (ref: InterruptRef): string => Buffer.from(JSON.stringify(ref)).toString('base64url');

export function interruptRef(id: string): InterruptRef | undefined {
  try {
    const ref = JSON.parse(Buffer.from(id, 'base64url').toString('utf8')) as Partial<InterruptRef>;
    return typeof ref.run === 'string' && typeof ref.call === 'string' && positionOf(ref.at) !== undefined
      ? (ref as InterruptRef)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The AG-UI interrupt of a run input, resumed at `at`. */
export function interruptOf(run: string, input: RunInput, at: FeedPosition): Interrupt {
  const id = interruptId({ run, call: input.toolCallId, at: positionText(at) });
  if (input.kind === 'question')
    return {
      id,
      reason: 'user_question',
      message: input.question,
      toolCallId: input.toolCallId,
      responseSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    };
  return {
    id,
    reason: 'tool_approval',
    message: `approve ${input.tool} with ${JSON.stringify(input.args)}?`,
    toolCallId: input.toolCallId,
    responseSchema: {
      type: 'object',
      properties: {
        approved: { type: 'boolean' },
        reason: { type: 'string' },
        argsHash: { type: 'string', const: input.argsHash },
      },
      required: ['approved'],
    },
    metadata: { tool: input.tool, args: input.args, argsHash: input.argsHash },
  };
}

/** Turns one run's items into AG-UI events, keeping the text message open between its tokens. */
export class AgUiTranslator {
  private open?: string;
  private readonly pending: string[] = [];
  /** Cursor of the last token item translated. */
  private cursor?: number;

  constructor(
    private readonly threadId: string,
    private readonly runId: string,
    private readonly workflowId: string,
  ) {}

  started(): BaseEvent[] {
    const snapshot = { runId: this.workflowId, turn: 0, pendingApprovals: [...this.pending] };
    return [
      { type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId, protocolVersion: '1.0' } as BaseEvent,
      { type: EventType.STATE_SNAPSHOT, snapshot } as BaseEvent,
    ];
  }

  /** Where the stream goes on after the last item translated. */
  position?: FeedPosition;

  item(item: WatchItem): BaseEvent[] {
    this.position = positionAfter(item, this.cursor);
    if (item.topic === 'tokens') this.cursor = item.cursor;
    const raw = { rawEvent: { resume: positionText(this.position) } };
    return (item.topic === 'tokens' ? this.token(item.delta) : this.event(item.event)).map((e) => ({ ...e, ...raw }));
  }

  private token(delta: TokenDelta): BaseEvent[] {
    if (delta.kind !== 'text' || !delta.text) return [];
    const messageId = `${this.workflowId}#${delta.seq}.${delta.attempt}`;
    const out: BaseEvent[] = [];
    if (this.open !== messageId) {
      out.push(...this.close());
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' } as BaseEvent);
      this.open = messageId;
    }
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: delta.text } as BaseEvent);
    return out;
  }

  /** Ends the open text message, if any. */
  close(): BaseEvent[] {
    if (!this.open) return [];
    const messageId = this.open;
    this.open = undefined;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId } as BaseEvent];
  }

  private event(e: AgentEvent): BaseEvent[] {
    switch (e.type) {
      case 'turn_start':
        return [
          ...this.close(),
          { type: EventType.STEP_STARTED, stepName: `turn ${e.turn}` } as BaseEvent,
          { type: EventType.STATE_DELTA, delta: [{ op: 'replace', path: '/turn', value: e.turn }] } as BaseEvent,
        ];
      case 'turn_end':
        return [...this.close(), { type: EventType.STEP_FINISHED, stepName: `turn ${e.turn}` } as BaseEvent];
      case 'tool_start':
        return [
          ...this.close(),
          { type: EventType.TOOL_CALL_START, toolCallId: e.toolCallId, toolCallName: e.tool } as BaseEvent,
          ...(e.args ? [{ type: EventType.TOOL_CALL_ARGS, toolCallId: e.toolCallId, delta: e.args } as BaseEvent] : []),
          { type: EventType.TOOL_CALL_END, toolCallId: e.toolCallId } as BaseEvent,
        ];
      case 'tool_execution':
        return [
          {
            type: EventType.TOOL_CALL_RESULT,
            messageId: `${this.workflowId}#result.${e.toolCallId}`,
            toolCallId: e.toolCallId,
            content: e.preview ?? (e.isError ? 'error' : ''),
            role: 'tool',
          } as BaseEvent,
        ];
      case 'approval_required':
        this.pending.push(e.toolCallId);
        return [
          ...this.close(),
          {
            type: EventType.STATE_DELTA,
            delta: [{ op: 'add', path: '/pendingApprovals/-', value: e.toolCallId }],
          } as BaseEvent,
        ];
      case 'approval_decided': {
        const at = this.pending.indexOf(e.toolCallId);
        if (at < 0) return [];
        this.pending.splice(at, 1);
        return [
          { type: EventType.STATE_DELTA, delta: [{ op: 'remove', path: `/pendingApprovals/${at}` }] } as BaseEvent,
        ];
      }
      case 'done':
        return [
          ...this.close(),
          {
            type: EventType.RUN_FINISHED,
            threadId: this.threadId,
            runId: this.runId,
            result: { text: e.finalText, stopReason: e.stopReason, turns: e.turns, costUsd: e.costUsd },
            outcome: e.stopReason === 'cancelled' ? { type: 'cancelled' } : { type: 'success' },
          } as BaseEvent,
        ];
      case 'error':
        return [...this.close(), { type: EventType.RUN_ERROR, message: e.message, code: e.failureType } as BaseEvent];
      default:
        return [];
    }
  }

  /** The end of a stream that waits for the caller: the open message closed, then the interrupts. */
  interrupted(interrupts: Interrupt[]): BaseEvent[] {
    return [
      ...this.close(),
      {
        type: EventType.RUN_FINISHED,
        threadId: this.threadId,
        runId: this.runId,
        outcome: { type: 'interrupt', interrupts },
      } as BaseEvent,
    ];
  }
}
