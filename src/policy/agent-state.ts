/** Building, carrying and viewing the agent state. Pure functions over plain JSON. */
import {
  STATE_VIEW_VERSION,
  wholeLog,
  type AgentResult,
  type AgentState,
  type AgentStateView,
  type CarriedState,
} from '../contracts/agent-run';
import { type AgentConfig } from '../contracts/run-spec';
import { emptyCost, emptyUsage } from '../contracts/message-model';
import { billingOf, reportedUsd } from './billing';
import { modelLabel } from '../contracts/model-ref';
import { EVENTS_CARRIED } from './event-log';
import { limitRatios } from './limits';
import { evalTally } from './served-tools';
import { initialResolverState } from './resolver';
import type { AgentStopReason } from '../contracts/run-status';

/** A new run's state. */
export function initialState(config: AgentConfig, conversationId: string): AgentState {
  return {
    conversationId,
    config,
    status: 'running',
    turn: 0,
    turnsThisRun: 0,
    messages: [],
    nextSeq: 0,
    view: wholeLog(),
    usage: emptyUsage(),
    cost: emptyCost(),
    resolver: initialResolverState(config.model),
    tools: [],
    steering: [],
    followUps: [],
    seenMessageIds: [],
    approvals: [],
    clientTools: [],
    events: [],
    droppedEvents: 0,
    plan: config.plan,
    finalText: '',
    updatesHandled: 0,
    runs: 1,
  };
}

/**
 * What continue-as-new carries. Approvals and client calls are always settled before it happens,
 * and no child is open then.
 */
export function carryState(state: AgentState): CarriedState {
  const {
    config: _c,
    turnsThisRun: _t,
    updatesHandled: _u,
    approvals: _a,
    clientTools: _ct,
    childWaits: _cw,
    ...rest
  } = state;
  const dropped = Math.max(0, rest.events.length - EVENTS_CARRIED);
  return { ...rest, events: rest.events.slice(dropped), droppedEvents: rest.droppedEvents + dropped };
}

/** The state continue-as-new carried, as the next run starts from it. */
export function restoreState(config: AgentConfig, carry: CarriedState): AgentState {
  return {
    ...carry,
    config,
    turnsThisRun: 0,
    updatesHandled: 0,
    approvals: [],
    clientTools: [],
    runs: carry.runs + 1,
  };
}

export function stateView(id: string, state: AgentState): AgentStateView {
  return {
    version: STATE_VIEW_VERSION,
    id,
    kind: state.config.kind,
    status: state.status,
    stopReason: state.stopReason,
    turn: state.turn,
    model: modelLabel(state.resolver.current),
    provider: state.resolver.current.provider,
    usage: state.usage,
    costUsd: reportedUsd(state.cost.total),
    billing: billingOf(state.usage, state.cost),
    finalText: state.finalText,
    messages: state.messages,
    pendingApprovals: state.approvals
      .filter((a) => a.state === 'pending')
      .map(({ toolCallId, tool, args, argsHash }) => ({ toolCallId, tool, args, argsHash })),
    clientToolRequests: state.clientTools
      .filter((c) => c.result === undefined)
      .map(({ toolCallId, tool, args }) => ({ toolCallId, tool, args })),
    limits: { ...state.config.limits, ...limitRatios(state.config.limits, state) },
    steeringQueued: state.steering.length,
    followUpsQueued: state.followUps.length,
    events: state.events,
    droppedEvents: state.droppedEvents,
    error: state.error,
    ...(state.stats ? { stats: state.stats } : {}),
    ...(state.children?.length ? { children: state.children } : {}),
    ...(state.config.parent ? { parent: state.config.parent } : {}),
  };
}

export function resultOf(id: string, state: AgentState): AgentResult {
  return {
    id,
    kind: state.config.kind,
    status: state.status,
    stopReason: state.stopReason ?? 'completed',
    finalText: state.finalText,
    turns: state.turn,
    usage: state.usage,
    costUsd: reportedUsd(state.cost.total),
    model: modelLabel(state.resolver.current),
    messages: state.nextSeq,
    billing: billingOf(state.usage, state.cost),
    ...(state.error ? { error: state.error } : {}),
    ...(state.stopNote ? { stopNote: state.stopNote } : {}),
    ...(state.stats ? { stats: state.stats } : {}),
    ...(state.children?.length ? { children: state.children } : {}),
    ...(state.eval ? { eval: evalTally(state.eval) } : {}),
  };
}

/** The status a stop reason ends the run with. */
export function finalStatus(reason: AgentStopReason): AgentState['status'] {
  if (reason === 'error') return 'failed';
  if (reason === 'stopped' || reason === 'cancelled') return 'stopped';
  return 'completed';
}
