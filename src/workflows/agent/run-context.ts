/** What every step of a run shares: state, IO, identity, and the event/search-attribute recorders. */
import type { DistributiveOmit } from '../../common/type-helpers';
import { upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { AGENT_SEARCH_ATTRIBUTES as SA } from '../../contracts/search-attributes';
import { pushEvent } from '../../policy/event-log';
import { type AgentEvent } from '../../contracts/agent-events';
import { emptyStats, recordStats } from '../../policy/run-stats';
import type { AgentState } from '../../contracts/agent-run';
import { modelLabel } from '../../contracts/model-ref';
import type { AgentIO } from './agent-io';
import type { RunStream } from './watch-stream';

export interface RunContext {
  state: AgentState;
  io: AgentIO;
  workflowId: string;
  runId: string;
  /** What was last written to the search attributes, to skip no-op upserts. */
  published: { key?: string };
  /** Watchers' stream; every event goes there too. */
  stream?: RunStream;
}

/** Workflow time: the sandbox's Date is replay-safe (it reads the activation's timestamp). */
export const workflowNow = (): number => new Date().getTime();

export type EventInput = DistributiveOmit<AgentEvent, 'at' | 'turn'>;

export function emit(ctx: RunContext, event: EventInput): void {
  const full = { ...event, at: workflowNow(), turn: ctx.state.turn } as AgentEvent;
  ctx.state.droppedEvents += pushEvent(ctx.state.events, full);
  if (ctx.state.stats) recordStats(ctx.state.stats, full);
  if (ctx.stream) {
    if (full.type === 'turn_start') ctx.stream.trim();
    ctx.stream.publishEvent(full);
  }
}

export function newRunContext(state: AgentState, io: AgentIO, stream?: RunStream): RunContext {
  const info = workflowInfo();
  // The chain's start: continue-as-new keeps it, so the totals cover the whole conversation.
  state.stats ??= emptyStats(info.startTime.getTime());
  return { state, io, workflowId: info.workflowId, runId: info.runId, published: {}, ...(stream ? { stream } : {}) };
}

/**
 * Upserts the DurableAgent* search attributes when one of them changed. `model` is the run's model,
 * except at a turn's start, where it is the model that turn calls.
 */
export function publishSearchAttributes(ctx: RunContext, phase: string, model = ctx.state.resolver.current): void {
  const { state } = ctx;
  if (state.config.searchAttributes === false) return;
  const values = {
    kind: state.config.kind,
    phase,
    model: modelLabel(model),
    status: state.status,
    awaitingApproval: state.status === 'awaiting_approval',
    costUsd: Math.round(state.cost.total * 1e6) / 1e6,
  };
  const key = JSON.stringify(values);
  if (key === ctx.published.key) return;
  ctx.published.key = key;
  upsertSearchAttributes([
    { key: SA.kind, value: values.kind },
    { key: SA.phase, value: values.phase },
    { key: SA.model, value: values.model },
    { key: SA.status, value: values.status },
    { key: SA.awaitingApproval, value: values.awaitingApproval },
    { key: SA.costUsd, value: values.costUsd },
  ]);
}
