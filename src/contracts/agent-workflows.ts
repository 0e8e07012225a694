/**
 * Every signal, update and query of the agent workflows, with their input types. Client, workflows
 * and tests import these; nothing uses the names raw.
 */
import type { Priority, SearchAttributePair } from '@temporalio/common';
import type { ApprovalDecisionResult, ApprovalDecisionInput } from './approval';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import type { AgentStateView, QueuedMessage, CarriedState } from './agent-run';
import type { AgentConfig, PlanItem } from './run-spec';
import type { ModelRef } from './model-ref';
import type { ChildWaitsInput } from './sub-agents';

/**
 * The shape of what continue-as-new carries (`carry` and a kind's own carried state). A change to
 * it that old code could not read raises the version; a run carried with a version this code does
 * not read fails at once, saying so (docs/design.md, Replay and patch policy).
 */
export const CARRIED_INPUT_VERSION = 4;

/** Input of an agent workflow: the config, plus the carried state after continue-as-new. */
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

/**
 * From a child run to its parent: the approvals and client tool calls waiting in the child and its
 * own children, whole each time it changes, so the parent's state and details show them.
 */
export const childWaitsSignal = defineSignal<[ChildWaitsInput]>('childWaits');

export interface SwitchModelInput {
  /** Sent by the client as a ref; a signal sent by hand may hold a spec string, which the workflow parses. */
  model: ModelRef;
  note?: string;
}
/**
 * Operator's provider switch: "use this model from now on". Every model resolver of the run takes it
 * at its next turn (the run's own and, in a pev run, each role's own model) and keeps it until it
 * fails and the resolver fails over.
 */
export const switchModelSignal = defineSignal<[SwitchModelInput]>('switchModel');

/** The app-only kinds a client may write to a run's log (the model never sees them). */
export type NoteKind = 'context_note' | 'system_event';

export interface NoteInput {
  /** Unique per note: a resent note with the same id is written once. */
  id: string;
  text: string;
  /** Default `context_note`. */
  kind?: NoteKind;
}
/**
 * Adds a note to the run's conversation log for people and tools (docs/hooks.md, Notes): written at
 * the run's next turn, or as it ends, and never sent to the model.
 */
export const addNoteSignal = defineSignal<[NoteInput]>('addNote');

/** Replaces the plan recited at the end of the context each turn. */
export const setPlanSignal = defineSignal<[PlanItem[]]>('setPlan');

/** A change to some items of a run's plan, by their ids (docs/plans.md). */
export interface PlanUpdate {
  /** Ids of items now done. */
  done?: string[];
  /** Ids of items to reopen. */
  open?: string[];
  /** Titles of new items, appended. */
  add?: string[];
}
/** Marks items of the plan done or open, or adds items, without replacing it. */
export const updatePlanSignal = defineSignal<[PlanUpdate]>('updatePlan');
/** Approve, reject or approve-with-edited-arguments one pending tool call. Refused by the validator when invalid. */
export const decideApprovalUpdate = defineUpdate<ApprovalDecisionResult, [ApprovalDecisionInput]>('decideApproval');

export interface ToolResultInput {
  toolCallId: string;
  content: string;
  isError?: boolean;
}
export interface PlanDecisionInput {
  approve: boolean;
  /** Why the plan was rejected, or what to change: given to the one that plans. */
  feedback?: string;
}
/**
 * Approves or rejects the plan a run waits on. Registered by a kind that has its plans confirmed
 * (pev with `confirmPlan`, in its `confirming` phase); refused while no plan waits.
 */
export const decidePlanUpdate = defineUpdate<{ approved: boolean; cycle: number }, [PlanDecisionInput]>('decidePlan');

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

/** A checked run start, not yet sent: what the client's `prepareStart` builds; an eval starts its cases' runs so. */
export interface PreparedStart {
  workflowType: string;
  workflowId: string;
  taskQueue: string;
  args: [AgentWorkflowInput];
  staticSummary: string;
  staticDetails: string;
  /** Set when the run goes on from an earlier one (`continuedFrom`, `forkedAtTurn`). */
  memo?: Record<string, unknown>;
  typedSearchAttributes?: SearchAttributePair[];
  priority?: Priority;
}
