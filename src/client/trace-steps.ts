/**
 * A trace's steps: the model's answer and its tool calls, turn by turn, and those of the turns whose
 * events a run's state no longer keeps, read from its stored conversation.
 */
import type { Usage } from '../contracts/message-model';
import type { AgentEvent } from '../contracts/agent-events';
import type { AgentStateView } from '../contracts/agent-run';
import type { RunMessage } from '../contracts/run-message';
import { argsPreview, previewText, RESULT_PREVIEW_CHARS, thoughtPreview } from '../policy/previews';
import { childTag } from '../policy/sub-agents';
import { tokensInOut } from '../policy/billing';
import { definedFields } from '../common/type-helpers';
import { usd } from '../common/decimal';

export interface TraceToolCall {
  toolCallId: string;
  tool: string;
  /** How long it ran; absent for a call read from the content store, which keeps no durations. */
  durationMs?: number;
  isError: boolean;
  skipped?: string;
  /** A preview of the arguments it ran with. */
  args?: string;
  /** A preview of what it returned (the observation the model saw next). */
  observation?: string;
  /** The error text's preview, when it failed. */
  error?: string;
  /** Content-store hash of the whole stored result. */
  resultHash?: string;
  /** Workflow time the call began and ended, ms since the epoch. */
  startedAt?: number;
  endedAt?: number;
  /** How many of its step's notes came before the call ended (its approval, for one): they read before it. */
  notesBefore?: number;
}

/** One turn: the model's answer and the tool calls it asked for. */
export interface TraceStep {
  turn: number;
  model: string;
  /** From the turn's start to its answer; absent while it waits or when its start was dropped. */
  modelMs?: number;
  stopReason?: string;
  usage?: Usage;
  /** A preview of what the model thought (its thinking, or its text beside tool calls). */
  thought?: string;
  /** Workflow time the model was called and answered, ms since the epoch. */
  startedAt?: number;
  answeredAt?: number;
  tools: TraceToolCall[];
  /** Other things that happened in the turn: approvals, steering, switches, failures. */
  notes: string[];
}

function note(e: AgentEvent): string | undefined {
  switch (e.type) {
    case 'approval_required':
      return `approval asked for ${e.tool} (${e.toolCallId}) with ${e.args}`;
    case 'approval_decided':
      return (
        `${e.tool} (${e.toolCallId}) ` +
        `${e.decision}${e.by === 'timeout' ? ' by timeout' : ''}${e.edited ? ' with edited arguments' : ''}`
      );
    case 'steering':
      return `steered${e.text !== undefined ? `: ${e.text}` : ''}`;
    case 'follow_up':
      return `follow-up${e.text !== undefined ? `: ${e.text}` : ''}`;
    case 'provider_switch':
      return `switched ${e.fromModel} -> ${e.toModel} (${e.reason})`;
    case 'model_failure':
      return `${e.model} failed${e.attempts ? ` after ${e.attempts} attempts` : ''}: ${e.failureType}`;
    case 'context_compacted':
      return `compacted ${e.summarisedMessages} messages`;
    case 'context_trimmed':
      return `context fitted without a summary (${e.droppedMessages} messages out of view)`;
    case 'client_tool_request':
      return `client tool ${e.tool} (${e.toolCallId}) requested`;
    case 'hook_failed':
      return `${e.hook} hook failed`;
    case 'continued_as_new':
      return 'continued as new';
    case 'child_start':
      return `sub-agent ${e.agent} (${childTag(e)}) started as ${e.childId}`;
    case 'child_end':
      return (
        `sub-agent ${e.agent} (${childTag(e)}) ${e.status} (${e.stopReason ?? e.status}): ` +
        `${tokensInOut(e.usage)} tokens, ${usd(e.costUsd)}`
      );
    case 'conversation_continued':
      return (
        `went on from ${e.fromRun ?? 'the given messages'}` +
        `${e.atTurn !== undefined ? ` at turn ${e.atTurn}` : ''} (${e.turns} turns)`
      );
    case 'plan_decided':
      return planDecisionNote(e);
    case 'phase':
      return `${e.phase}${e.todoId ? ` todo ${e.todoId}` : ''} (cycle ${e.cycle})`;
    case 'error':
      return `error: ${e.message}`;
    default:
      return undefined;
  }
}

/** A plan's decision as `trace` and `watch` show it; `waitedMs`: how long the plan waited for it. */
export function planDecisionNote(e: Extract<AgentEvent, { type: 'plan_decided' }>, waitedMs?: number): string {
  const secs = Math.round((waitedMs ?? 0) / 1000);
  const waited = waitedMs === undefined ? '' : ` after ${secs < 120 ? `${secs} s` : `${Math.round(secs / 60)} min`}`;
  if (e.by === 'timeout') return `plan of cycle ${e.cycle} not decided in time${waited}`;
  const feedback = e.feedback ? `: ${e.feedback}` : '';
  return `plan of cycle ${e.cycle} ${e.approved ? 'approved' : 'rejected'}${waited}${feedback}`;
}

/** Groups the kept events into steps, turn by turn. */
export function traceSteps(events: AgentEvent[]): TraceStep[] {
  const steps: TraceStep[] = [];
  let current: TraceStep | undefined;
  let startedAt: number | undefined;
  const stepOf = (e: AgentEvent & { model?: string }): TraceStep => {
    if (!current || current.turn !== e.turn) {
      current = { turn: e.turn, model: e.model ?? '', tools: [], notes: [] };
      steps.push(current);
      startedAt = undefined;
    }
    return current;
  };
  const started = new Map<string, { args: string; at: number }>();
  let planWaitFrom: number | undefined;
  for (const e of events) {
    if (e.type === 'turn_start') {
      const step = stepOf(e);
      step.model = e.model;
      step.startedAt = e.at;
      startedAt = e.at;
    } else if (e.type === 'turn_end') {
      const step = stepOf(e);
      step.model = e.model;
      step.stopReason = e.stopReason;
      step.usage = e.usage;
      step.answeredAt = e.at;
      if (startedAt !== undefined) step.modelMs = e.at - startedAt;
    } else if (e.type === 'tool_start') {
      started.set(e.toolCallId, { args: e.args, at: e.at });
    } else if (e.type === 'tool_execution') {
      const start = started.get(e.toolCallId);
      const outcome = e.skipped ? {} : e.isError ? { error: e.preview } : { observation: e.preview };
      const step = stepOf(e);
      step.tools.push({
        toolCallId: e.toolCallId,
        tool: e.tool,
        durationMs: e.durationMs,
        isError: e.isError,
        ...(e.skipped ? { skipped: e.skipped } : {}),
        ...(start ? { args: start.args, startedAt: start.at } : {}),
        ...definedFields(outcome),
        ...(e.resultHash ? { resultHash: e.resultHash } : {}),
        endedAt: e.at,
        ...(step.notes.length ? { notesBefore: step.notes.length } : {}),
      });
    } else if (e.type === 'plan_decided') {
      stepOf(e).notes.push(planDecisionNote(e, planWaitFrom === undefined ? undefined : e.at - planWaitFrom));
      planWaitFrom = undefined;
    } else if (e.type !== 'done') {
      if (e.type === 'phase' && e.phase === 'confirming') planWaitFrom = e.at;
      const text = note(e);
      if (text) stepOf(e).notes.push(text);
    }
  }
  return steps;
}

/** Whether the view lacks the events of some turns, which the run's stored conversation can give. */
export const needsStoredSteps = (view: AgentStateView): boolean =>
  view.turn > 0 && (view.droppedEvents > 0 || view.events.length === 0);

/**
 * The steps of the turns before `beforeTurn`, from the run's stored conversation: the k-th answer
 * the run wrote is turn k (answers written before `since`, which a run taken over from an earlier
 * one starts with, belong to that run), with the tool calls it asked for and their stored results.
 */
export function storedSteps(messages: readonly RunMessage[], since: number, beforeTurn: number): TraceStep[] {
  const steps: TraceStep[] = [];
  const calls = new Map<string, TraceToolCall>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      if ((m.timestamp ?? since) < since) continue;
      const turn = steps.length + 1;
      if (turn >= beforeTurn) break;
      const thought = thoughtPreview(m.thinking.join('\n'), m.text, m.toolCalls.length > 0);
      steps.push({
        turn,
        model: m.model ?? '',
        ...(m.stopReason ? { stopReason: m.stopReason } : {}),
        ...(m.usage ? { usage: m.usage } : {}),
        ...(thought ? { thought } : {}),
        ...(m.timestamp !== undefined ? { answeredAt: m.timestamp } : {}),
        tools: m.toolCalls.map((c) => {
          const call: TraceToolCall = {
            toolCallId: c.id,
            tool: c.name,
            isError: false,
            args: argsPreview(c.arguments),
          };
          calls.set(c.id, call);
          return call;
        }),
        notes: [],
      });
    } else if (m.role === 'tool_result') {
      const call = calls.get(m.toolCallId);
      if (!call) continue;
      call.isError = m.isError;
      if (m.isError) call.error = previewText(m.text);
      else call.observation = previewText(m.text, RESULT_PREVIEW_CHARS);
      if (m.timestamp !== undefined) call.endedAt = m.timestamp;
    }
  }
  return steps;
}

/**
 * The kept steps with the stored ones before them. The first kept turn may have lost its start
 * and answer (the window began inside it): the stored step fills in what its events no longer say.
 */
export function withStoredSteps(kept: TraceStep[], stored: TraceStep[]): { steps: TraceStep[]; fromStore: number } {
  const first = kept[0];
  const before = stored.filter((s) => first === undefined || s.turn < first.turn);
  const same = first && stored.find((s) => s.turn === first.turn);
  if (!first || !same || first.answeredAt !== undefined)
    return { steps: [...before, ...kept], fromStore: before.length };
  // The answer's calls in its order, each as its events tell it where they are kept.
  const kept1 = new Map(first.tools.map((t) => [t.toolCallId, t]));
  const asked = new Set(same.tools.map((t) => t.toolCallId));
  const merged: TraceStep = {
    ...same,
    ...first,
    model: first.model || same.model,
    tools: [
      ...same.tools.map((t) => kept1.get(t.toolCallId) ?? t),
      ...first.tools.filter((t) => !asked.has(t.toolCallId)),
    ],
  };
  return { steps: [...before, merged, ...kept.slice(1)], fromStore: before.length + 1 };
}
