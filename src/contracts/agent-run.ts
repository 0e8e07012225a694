/**
 * Agent state and configuration: plain JSON, carried across continue-as-new and returned by the
 * state query. Message bodies never live here, only small per-message metadata; the bodies sit in
 * the content store under their hashes.
 */

import type { Cost, StopReason, Usage } from './message-model';
import type { ToolMode, ToolRetry } from './tool-catalog';
import type { AgentEvent } from './agent-events';
import type { PendingApproval } from './approval';
import type { AgentConfig, AgentLimits, PlanItem } from './run-spec';
import type { AgentStatus, AgentStopReason } from './run-status';
import type { ResolverState } from './model-resolution';
import type { ModelRef } from './model-ref';
import type { ResolvedModelInfo } from './model-info';
import type { RunBilling, RunStats } from './run-stats';
import type { ChildRun, ChildWaitsInput, ParentLink, WaitingCall } from './sub-agents';
import type { RunTenantBudget } from './tenant-budget';
import type { EvalTally, RunEval } from './eval-spec';

/**
 * The message kinds of the log (docs/design.md, Bodies by reference). The first four are sent to the model (a summary
 * as a user message); the last three are kept in the conversation log only.
 */
export type AgentMessageKind =
  'user' | 'assistant' | 'tool_result' | 'summary' | 'context_note' | 'system_event' | 'tool_log';

export const MODEL_VISIBLE_KINDS: readonly AgentMessageKind[] = ['user', 'assistant', 'tool_result', 'summary'];

/** What the workflow keeps of one message. */
export interface MessageMeta {
  /** Position in the conversation log (0-based, dense). */
  seq: number;
  kind: AgentMessageKind;
  /** Content hash of the body in the content store. */
  hash: string;
  tokens: number;
  /** Spec of the model that wrote an assistant message. */
  model?: string;
  /**
   * The role of a multi-role run whose turn the message belongs to: pev's `planner`, `executor` or
   * `verifier` on their answers and on the prompts the run writes for them.
   */
  agentRole?: string;
  /** Tool calls an assistant message made. */
  toolCallIds?: string[];
  /** The call a tool result answers. */
  toolCallId?: string;
  isError?: boolean;
}

/** A tool call as the workflow sees it (arguments included: approvals bind to them). */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** The arguments could not be parsed or were cut off: never executed. */
  malformed?: string;
}

/** How the run executes one tool, pinned from the tool catalogue at the start of the run. */
export interface PinnedTool {
  name: string;
  mode: ToolMode;
  timeoutMs: number;
  retry?: ToolRetry;
  sideEffects: boolean;
  fingerprint: string;
  /** Run as a local activity (see `ToolCatalogEntry.local`); absent in runs pinned before it existed. */
  local?: boolean;
  /** See `ToolCatalogEntry.dedupe`. */
  dedupe?: false;
}

export interface ClientToolRequest {
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
  turn: number;
  result?: { content: string; isError: boolean };
}

/** A message a client sent into the run (steering or follow-up). */
export interface QueuedMessage {
  id: string;
  text: string;
}

/** A note a client sent into the run, written to the log at the next turn (`addNote`). */
export interface QueuedNote extends QueuedMessage {
  kind: 'context_note' | 'system_event';
}

/** Which part of the log the model sees: an optional summary, then `fromSeq` onwards. */
export interface ConversationView {
  fromSeq: number;
  summaryHash?: string;
  summaryTokens: number;
}

/** The view of a conversation never summarised: the whole log. */
export const wholeLog = (): ConversationView => ({ fromSeq: 0, summaryTokens: 0 });

/** The workflow's whole state. Plain JSON. */
export interface AgentState {
  conversationId: string;
  config: AgentConfig;
  status: AgentStatus;
  stopReason?: AgentStopReason;
  turn: number;
  /** Turns taken in the current run (reset by continue-as-new). */
  turnsThisRun: number;
  /** Messages from `view.fromSeq` on (earlier ones were summarised). */
  messages: MessageMeta[];
  nextSeq: number;
  view: ConversationView;
  usage: Usage;
  cost: Cost;
  resolver: ResolverState;
  tools: PinnedTool[];
  /**
   * Set while the run's tools wait to be pinned by its first model call, which takes the pin along
   * (docs/design.md, History per turn): the models of the kind's own roles the pin describes
   * besides the run's. Absent once the tools are pinned.
   */
  pendingPin?: { roles: ModelRef[] };
  /** Content hash of the tool specs shown to the model. */
  toolSpecsHash?: string;
  /** Content hash of the run's system prompt (a `StoredCallPrompt`): model calls carry this, not the text. */
  promptHash?: string;
  /** Content hash of the run's tool selection: tool calls carry this, not the selection. */
  selectionHash?: string;
  /** Successful tool results before this log position are masked in the provider view (policy/masking.ts). */
  maskBefore?: number;
  /** Summaries that failed in a row, and the turn the next is tried at (compaction backs off). */
  summaryBackoff?: { failures: number; retryAtTurn: number };
  steering: QueuedMessage[];
  followUps: QueuedMessage[];
  /** Notes a client sent, written to the log at the next turn or as the run ends (absent: none). */
  notes?: QueuedNote[];
  /** Recent message ids, to drop duplicate deliveries. */
  seenMessageIds: string[];
  approvals: PendingApproval[];
  clientTools: ClientToolRequest[];
  events: AgentEvent[];
  /** Events dropped from the front of `events` to keep state small. */
  droppedEvents: number;
  stopRequested?: { reason: 'stopped' | 'cancelled'; note?: string };
  /** The model an operator asked for; taken by the resolver at the next turn. */
  operatorModel?: { model: ModelRef; note?: string };
  plan?: PlanItem[];
  finalText: string;
  lastStopReason?: StopReason;
  error?: { message: string; type?: string; retryable: boolean };
  /** Why the run ended, when a feature's refusal of its call ended it (the refusal's message). */
  stopNote?: string;
  updatesHandled: number;
  runs: number;
  /** Running totals for the trace (absent in state carried from runs that predate them). */
  stats?: RunStats;
  /**
   * What the worker's config says about the run's models (context window, output limit, prices,
   * idle timeout), resolved on the worker when the run starts or first calls a model. Absent in
   * runs that predate it; the built-in registry answers then.
   */
  models?: ResolvedModelInfo[];
  /** The run's child runs (sub-agent calls), in the order they started. */
  children?: ChildRun[];
  /** What waits for a person in each open child, by child id, as its last report said (never carried). */
  childWaits?: Record<string, ChildWaitsInput>;
  /** Set when the run's tenant has a budget: every model call reserves against it. */
  tenantBudget?: RunTenantBudget;
  /** Set in a run in an eval: how its tool calls were answered. */
  eval?: RunEval;
}

/** What `run --json` and `result --json` print, and what the workflow returns. */
export interface AgentResult {
  id: string;
  kind: string;
  status: AgentStatus;
  stopReason: AgentStopReason;
  finalText: string;
  turns: number;
  usage: Usage;
  costUsd: number;
  model: string;
  messages: number;
  /** Billed tokens and cost (absent in results of runs that predate it). */
  billing?: RunBilling;
  error?: { message: string; type?: string; retryable: boolean };
  /** Why the run stopped, when its stop reason alone does not say: the refusal that ended it, named by its feature. */
  stopNote?: string;
  /** Model and tool totals and timings (see `trace`). */
  stats?: RunStats;
  /** Child runs and their usage (already counted in `usage` and `costUsd`). */
  children?: ChildRun[];
  /** A run in an eval: how its tool calls were answered (docs/evals.md). */
  eval?: EvalTally;
}

/** The shape of {@link AgentStateView}; raised when a field changes meaning or goes away. */
export const STATE_VIEW_VERSION = 1;

/** What the state query returns. */
export interface AgentStateView {
  /** {@link STATE_VIEW_VERSION} of the code that answered. */
  version: number;
  id: string;
  kind: string;
  status: AgentStatus;
  stopReason?: AgentStopReason;
  turn: number;
  model: string;
  provider: string;
  usage: Usage;
  costUsd: number;
  billing: RunBilling;
  finalText: string;
  messages: MessageMeta[];
  pendingApprovals: { toolCallId: string; tool: string; args: Record<string, unknown>; argsHash: string }[];
  clientToolRequests: { toolCallId: string; tool: string; args: Record<string, unknown> }[];
  limits: AgentLimits & { usedTurnsRatio: number; usedTokensRatio?: number; usedCostRatio?: number };
  steeringQueued: number;
  followUpsQueued: number;
  plan?: PlanItem[];
  events: AgentEvent[];
  droppedEvents: number;
  error?: { message: string; type?: string; retryable: boolean };
  stats?: RunStats;
  /** Child runs and their usage (already counted in `usage` and `costUsd`). */
  children?: ChildRun[];
  /** Approvals waiting in open child runs (at any depth), each with the run that holds it. */
  childApprovals?: (WaitingCall & { argsHash: string })[];
  /** Client tool calls waiting in open child runs (at any depth), each with the run that holds it. */
  childClientToolRequests?: WaitingCall[];
  /** Set in a child run: its parent. */
  parent?: ParentLink;
  /** Set when the run's tenant has a budget: what the run is waiting for, or why the budget refused it. */
  tenantBudget?: RunTenantBudget & { tenant: string };
}

/** The part of the state that survives continue-as-new (message bodies stay in the store). */
export type CarriedState = Omit<
  AgentState,
  'config' | 'turnsThisRun' | 'updatesHandled' | 'approvals' | 'clientTools' | 'childWaits'
>;
