/** What every step of a run shares: state, IO, identity, and the event/search-attribute recorders. */
import type { DistributiveOmit } from '../../common/type-helpers';
import {
  ActivityFailure,
  ApplicationFailure,
  ChildWorkflowFailure,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { errorText } from '../../common/error-text';
import { currentDetails, type DetailsCall } from '../../policy/current-details';
import type { ModelCallNotes } from '../../policy/run-summaries';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../../contracts/search-attributes';
import { pushEvent } from '../../policy/event-log';
import { type AgentEvent } from '../../contracts/agent-events';
import { emptyStats, recordStats } from '../../policy/run-stats';
import { attributeChanges, publishedCost, type AgentAttributeValues } from '../../policy/search-attribute-values';
import type { AgentState, ToolCallRequest } from '../../contracts/agent-run';
import type { MessageDraft } from '../../contracts/message-drafts';
import { previewText } from '../../policy/previews';
import { toolAnswered } from '../../policy/tool-events';
import type { ChildWaitsInput } from '../../contracts/sub-agents';
import { modelLabel } from '../../contracts/model-ref';
import type { AgentIO } from './agent-io';
import type { RunStream } from './watch-stream';

/** The run's current step, beyond its state: what its current details show. */
export interface CurrentStep {
  /** The phase last published to the search attributes. */
  phase: string;
  /** The current step's name (`turn 3`, `planner round 2`), also in its model call's summary. */
  step: string;
  /** The model of the current step, when it is not the run's. */
  model?: string;
  doing?: string;
  /** Tool calls running now. */
  running: DetailsCall[];
  /** A kind's own wait, as Markdown. */
  waiting?: string;
  /** A kind's own progress, as Markdown, read at each update (a pev run's plan). */
  progress?: () => string | undefined;
  /** The quick calls the last model call ran itself, until the next call's summary names them. */
  ran?: ModelCallNotes['ran'];
}

export interface RunContext {
  state: AgentState;
  io: AgentIO;
  workflowId: string;
  runId: string;
  /** What the search attributes show: as the run started with them (set by the client) and as upserted since. */
  published: { values: Partial<AgentAttributeValues> };
  /** Watchers' stream; every event goes there too. */
  stream: RunStream;
  /** The current step, which the current details show. */
  current: CurrentStep;
  /** The kind's follow-up hook (`AgentKind.followUps`) on its context, when it has one. */
  followUps?: (texts: readonly string[]) => void;
  /** The kind's name for a completed run's end (`AgentKind.endReason`) on its context, when it has one. */
  endReason?: () => string | undefined;
  /** What waits for a person in runs this one holds open (the features' `waitsHeld`), when a feature tells. */
  waitsHeld?: () => Pick<ChildWaitsInput, 'approvals' | 'clientTools'>[];
}

/** A failure's own error: a failed activity's or child run's cause, else the error itself. */
export const causeOf = (err: unknown): unknown =>
  (err instanceof ActivityFailure || err instanceof ChildWorkflowFailure) && err.cause ? err.cause : err;

/** The message of a failure's own error. */
export const failureText = (err: unknown): string => errorText(causeOf(err));

/** The message and type of a failure's own error. */
export function failureOf(err: unknown): { message: string; type?: string } {
  const cause = causeOf(err);
  const message = errorText(cause);
  return cause instanceof ApplicationFailure && cause.type ? { message, type: cause.type } : { message };
}

/** Workflow time: the sandbox's Date is replay-safe (it reads the activation's timestamp). */
export const workflowNow = (): number => new Date().getTime();

export type EventInput = DistributiveOmit<AgentEvent, 'at' | 'turn'>;

export function emit(ctx: RunContext, event: EventInput): void {
  const full = { ...event, at: workflowNow(), turn: ctx.state.turn } as AgentEvent;
  ctx.state.droppedEvents += pushEvent(ctx.state.events, full);
  if (ctx.state.stats) recordStats(ctx.state.stats, full);
  if (full.type === 'turn_start') ctx.stream.trim();
  ctx.stream.publishEvent(full);
}

/** Records a call the workflow answers with `text` and returns the result it writes. */
export function answeredCall(
  ctx: RunContext,
  call: ToolCallRequest,
  text: string,
  isError: boolean,
  durationMs = 0,
): MessageDraft {
  emit(ctx, toolAnswered(call, isError, { preview: previewText(text) }, durationMs));
  return { kind: 'tool_result', toolCallId: call.id, toolName: call.name, text, isError };
}

/**
 * The conversation as a per-turn call names it: nothing when it is the run's workflow id (the
 * activity reads that from its context), so the id is not recorded at every turn.
 */
export const conversationRef = (ctx: RunContext): { conversationId?: string } =>
  ctx.state.conversationId === ctx.workflowId ? {} : { conversationId: ctx.state.conversationId };

export function newRunContext(state: AgentState, io: AgentIO, stream: RunStream): RunContext {
  const info = workflowInfo();
  // The chain's start: continue-as-new keeps it, so the totals cover the whole conversation.
  state.stats ??= emptyStats(info.startTime.getTime());
  return {
    state,
    io,
    workflowId: info.workflowId,
    runId: info.runId,
    published: { values: startAttributes() },
    stream,
    current: { phase: 'start', step: 'starting', running: [] },
  };
}

/** The attribute values the run started with (a client sets them at start; continue-as-new keeps them). */
function startAttributes(): Partial<AgentAttributeValues> {
  const attributes = workflowInfo().typedSearchAttributes;
  const values: Record<string, unknown> = {};
  for (const [name, key] of Object.entries(SA)) {
    const value = attributes.get(key);
    if (value !== undefined) values[name] = value;
  }
  return values as Partial<AgentAttributeValues>;
}

/**
 * Applies `change` to the run's current step and sets the run's current details from it and the
 * state (pending approvals and client calls, how it ended). Details are metadata: no command.
 */
export function updateCurrentDetails(ctx: RunContext, change: Partial<CurrentStep> = {}): void {
  Object.assign(ctx.current, change);
  const { state, current } = ctx;
  const ended = state.stopReason;
  const held = ctx.waitsHeld?.() ?? [];
  const progress = current.progress?.();
  const { maxTurns, maxCostUsd } = state.config.limits;
  setCurrentDetails(
    currentDetails({
      id: ctx.workflowId,
      kind: state.config.kind,
      step: current.step,
      phase: current.phase,
      turn: state.turn,
      maxTurns,
      cost: { usd: state.cost.total, ...(maxCostUsd === undefined ? {} : { maxUsd: maxCostUsd }) },
      model: current.model ?? modelLabel(state.resolver.current),
      ...(current.doing ? { doing: current.doing } : {}),
      running: current.running,
      approvals: [...state.approvals.filter((a) => a.state === 'pending'), ...held.flatMap((w) => w.approvals)],
      clientTools: [...state.clientTools.filter((c) => c.result === undefined), ...held.flatMap((w) => w.clientTools)],
      ...(current.waiting ? { waiting: current.waiting } : {}),
      ...(progress ? { progress } : {}),
      ...(ended
        ? { ended: { stopReason: ended, status: state.status, error: state.error?.message ?? state.stopNote } }
        : {}),
    }),
  );
}

/**
 * Shows `phase` in the current details, and upserts the DurableAgent* search attributes that
 * changed (policy/search-attribute-values.ts). `model` is the run's model, except at a turn's
 * start, where it is the model that turn calls.
 */
export function publishSearchAttributes(ctx: RunContext, phase: string, model = ctx.state.resolver.current): void {
  const { state } = ctx;
  updateCurrentDetails(ctx, { phase });
  if (state.config.searchAttributes === false) return;
  const values: AgentAttributeValues = {
    kind: state.config.kind,
    phase,
    model: modelLabel(model),
    status: state.status,
    awaitingApproval: state.status === 'awaiting_approval',
    costUsd: publishedCost(state.cost.total),
  };
  const changes = attributeChanges(ctx.published.values, values);
  if (Object.keys(changes).length === 0) return;
  Object.assign(ctx.published.values, changes);
  upsertSearchAttributes(
    Object.entries(changes).map(([name, value]) => ({ key: SA[name as keyof typeof SA], value })) as Parameters<
      typeof upsertSearchAttributes
    >[0],
  );
}
