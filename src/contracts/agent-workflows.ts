/**
 * Every signal, update and query of the agent workflows, with their input types, and the map from
 * agent kind to workflow type. Client, workflows and tests import these; nothing uses the names raw.
 */
import type { ApprovalDecisionResult, ApprovalDecisionInput } from './approval';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import type { AgentConfig, AgentStateView, PlanItem, QueuedMessage, CarriedState } from './agent-run';

import type { ModelRef } from './model-ref';

/** Agent kinds and the workflow type each runs as. Another kind only adds its entry here. */
export const AGENT_WORKFLOWS = {
  react: 'reactAgentWorkflow',
  pev: 'pevAgentWorkflow',
} as const;

export type AgentKind = keyof typeof AGENT_WORKFLOWS;

export const isAgentKind = (kind: string): kind is AgentKind =>
  Object.prototype.hasOwnProperty.call(AGENT_WORKFLOWS, kind);

/** Input of an agent workflow: the config, plus the carried state after continue-as-new. */
/**
 * The shape of what continue-as-new carries (`carry` and a kind's own carried state). A change to
 * it that old code could not read raises the version; a run carried with a version this code does
 * not read fails at once, saying so (docs/design.md, Replay and patch policy).
 */
export const CARRIED_INPUT_VERSION = 2;

export interface AgentWorkflowInput {
  config: AgentConfig;
  carry?: CarriedState;
  /** Set with `carry`: the {@link CARRIED_INPUT_VERSION} of the run that carried it. */
  carriedVersion?: number;
  /** The watchers' stream (its newest entries and publisher dedupe), carried by continue-as-new. */
  streamState?: WorkflowStreamState;
}

/** Redirects the run: remaining tool calls of the turn are skipped, the text goes to the model next. */
export const steerSignal = defineSignal<[QueuedMessage]>('steer');
/** Appended when the run would otherwise end; starts a new turn. */
export const followUpSignal = defineSignal<[QueuedMessage]>('followUp');

export interface StopInput {
  note?: string;
  /** What the run records as its stop reason; default `stopped` (a parent passes `cancelled` on to its children). */
  reason?: 'stopped' | 'cancelled';
}
/** Ends the run after the current activity; open tool calls get results. */
export const stopSignal = defineSignal<[StopInput]>('stop');

export interface SwitchModelInput {
  /** Sent by the client as a ref; a signal sent by hand may hold a spec string, which the workflow parses. */
  model: ModelRef;
  note?: string;
}
/**
 * Operator's provider switch: "use this model from now on". Every model seat of the run takes it
 * at its next turn (the run's own and, in a pev run, each role's own model) and keeps it until it
 * fails and the seat fails over.
 */
export const switchModelSignal = defineSignal<[SwitchModelInput]>('switchModel');

/** Replaces the plan recited at the end of the context each turn. */
export const setPlanSignal = defineSignal<[PlanItem[]]>('setPlan');
/** Approve, reject or approve-with-edited-arguments one pending tool call. Refused by the validator when invalid. */
export const decideApprovalUpdate = defineUpdate<ApprovalDecisionResult, [ApprovalDecisionInput]>('decideApproval');

export interface ToolResultInput {
  toolCallId: string;
  content: string;
  isError?: boolean;
}
/** Result of a client tool call the run is waiting for. */
export const submitToolResultUpdate = defineUpdate<{ toolCallId: string; accepted: true }, [ToolResultInput]>(
  'submitToolResult',
);

/**
 * The run's state: status, turn, messages (metadata), usage, cost, pending approvals and client calls, limits, events.
 */
export const stateQuery = defineQuery<AgentStateView>('state');

/** Names shared by the worker, the client and the workflows. */

/** Default task queue of the project's worker. Override with `DURABLE_AGENTS_TASK_QUEUE`. */
export const DEFAULT_TASK_QUEUE = 'durable-agents';
