/**
 * Agent state and configuration: plain JSON, carried across continue-as-new and returned by the
 * state query. Message bodies never live here, only small per-message metadata; the bodies sit in
 * the content store under their hashes.
 */

import type { Cost, ResponseFormat, StopReason, ToolChoice, Usage } from './message-model';
import type { ToolMode, ToolRetry, ToolSelection } from './tool-catalog';
import type { AgentEvent } from './agent-events';
import type { ApprovalRule, PendingApproval } from './approval';
import type { AgentStatus, AgentStopReason } from './run-status';
import type { ResolverPolicy, ResolverState } from './model-resolution';
import type { ModelRef } from './model-ref';
import type { ResolvedModelInfo } from './model-info';
import type { RunBilling, RunStats } from './run-stats';
import type { ChildRun, ChildWaitsInput, ParentLink, SubAgents, WaitingCall } from './sub-agents';
import type { RunTenantBudget } from './tenant-budget';

/**
 * The message kinds of the log (docs/design.md, Bodies by reference). The first four are sent to the model (a summary
 * as a user message);
 * the last three are kept in the conversation log only.
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

export interface AgentLimits {
  maxTurns: number;
  /** Total tokens (input + output + cache) of the run; the run stops at 95 % of it. */
  maxTotalTokens?: number;
  /** Total cost in USD; the run stops at 95 % of it. */
  maxCostUsd?: number;
  maxToolCallsPerTurn: number;
  /** Per-tool start-to-close timeout overrides, by tool name. */
  toolTimeoutsMs?: Record<string, number>;
  /** How long an approval or a client tool result may take before it resolves as a rejection. */
  approvalTimeoutMs: number;
  /** Sub-agent calls of one answer running at a time; default `DEFAULT_MAX_PARALLEL_AGENTS`. */
  maxParallelAgents?: number;
  /** How deep sub-agents may nest (a top-level run is 0); default `DEFAULT_MAX_AGENT_DEPTH`. */
  maxAgentDepth?: number;
}

/**
 * Turn hooks: names of user-supplied activities registered on the worker (docs/hooks.md). Each gets
 * references and small values, never a transcript.
 */
export interface AgentHooks {
  /**
   * `(HookTurnEndInput) => boolean | TurnEndDecision`: false (or `{ stop: true }`) stops the run;
   * `{ model, reason }` moves the run to that model from its next turn, recorded as a provider
   * switch with the reason. A failure stops the run with an error.
   */
  onTurnEnd?: string;
  /**
   * `(HookModelInput) => ModelChoice | null`: the model of each turn, chosen from state outside the
   * run (a credit balance), before the turn's context is prepared. Nothing (null) keeps the model
   * the run would use; another model is recorded as a provider switch with the reason. It wins over
   * the budget rules and an operator's switch for that turn. A failure stops the run with an error.
   */
  resolveModel?: string;
  /**
   * `(HookContextInput) => HookContextOutput | null`: rewrites what the model sees before each
   * model call (trim, inject), by reference: the hook stores the provider messages it wants sent and
   * returns their hash (`contextTransform` in `durable-agents/worker` does both). Nothing sends the
   * view unchanged; a failure is recorded as a `hook_failed` event and the call goes on unchanged.
   */
  transformContext?: string;
  /**
   * `(HookMessageInput) => void`; a failure is recorded as an event and the run goes on. The input
   * names the body by hash: `messageHook` (`durable-agents/worker`) gives the hook a loader of it.
   */
  onMessage?: string;
  /** `(HookErrorInput) => void`; a failure is ignored. */
  onError?: string;
}

/** How a run masks old tool results in the context it sends (docs/design.md, Masking). */
export interface MaskPolicy {
  /** The newest maskable results kept whole. */
  keepResults: number;
  /** The boundary moves only once this many more results could be masked (so provider caches keep hitting). */
  batch: number;
  /**
   * With a prompt cache, move the boundary by cost instead of `keepResults` and `batch`: as far as
   * the last answer, when the tokens it saves over the expected remaining calls outweigh writing
   * the cache again from the first newly masked result (`policy/masking.ts`). Absent = false.
   */
  byCost?: boolean;
}

export interface ContextPolicy {
  /** Context window of the model in tokens; absent = taken from the model registry (or 128k). */
  windowTokens?: number;
  /** Compact when the estimated context passes this share of the window. Default 0.8. */
  thresholdRatio: number;
  /** Recent tokens always kept verbatim. Default 30 % of the window. */
  keepRecentRatio: number;
  /** Model that writes summaries; absent = the model of the turn. */
  summaryModel?: ModelRef;
  /** Mask old tool results in the context sent to the model; absent = send every result whole. */
  mask?: MaskPolicy;
}

/** One todo of a plan recited at the end of the context each turn. */
export interface PlanItem {
  id: string;
  title: string;
  done: boolean;
}

/** A plan item as a caller gives it: without an id it gets its position, without `done` it is open. */
export type PlanItemInput = Pick<PlanItem, 'title'> & Partial<Pick<PlanItem, 'id' | 'done'>>;

/**
 * Where a run's conversation began: another run's conversation, taken whole or up to the end of a
 * turn, by reference (the log's entries name the same stored bodies; nothing runs again).
 */
export interface ConversationOrigin {
  /** The run it continues (its workflow id). */
  runId: string;
  /** That run's conversation in the content store. */
  conversationId: string;
  /** Only its first turns: up to this turn's tool results (a fork); absent = the whole conversation. */
  atTurn?: number;
}

/** Everything a run is started with. */
export interface AgentConfig {
  /** `react` or `pev`; recorded in the DurableAgentKind search attribute. */
  kind: string;
  /** The task; with {@link taskHash}, a short text that points to the first user message instead. */
  task: string;
  /**
   * Content-store hash of the whole task (a JSON string), for a task too big to travel inline. The
   * run writes that body as its first user message.
   */
  taskHash?: string;
  systemPrompt?: string;
  resolver: ResolverPolicy;
  limits: AgentLimits;
  tools: ToolSelection;
  /** Extra approval rules (per tool, or a predicate on the arguments). */
  approvals?: ApprovalRule[];
  hooks?: AgentHooks;
  context: ContextPolicy;
  /** The model-call settings of {@link AgentOptions} (checked by `callSettingProblems`). */
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  thinkingBudget?: number;
  responseFormat?: ResponseFormat;
  toolChoice?: ToolChoice;
  /** Use the streaming model activity (heartbeats while tokens arrive). */
  stream?: boolean;
  plan?: PlanItem[];
  /** Continue-as-new after this many turns in one run (besides Temporal's suggestion). */
  continueAsNewAfterTurns?: number;
  /** Upsert the DurableAgent* search attributes (the server must have them registered). Default true. */
  searchAttributes?: boolean;
  /** Task queue of the model and tool activities; absent = the workflow's queue. */
  activityTaskQueue?: string;
  /** The tenant the run works for: the fairness key of its activities (docs/fleet.md). */
  tenant?: string;
  /** 1 (first) to 5 (last): the priority key of its activities. */
  priority?: number;
  /** What the run expects to spend: its admission against its tenant's budget (docs/fleet.md). */
  expectedCostUsd?: number;
  /** The conversation the run goes on from; its task (if any) comes after it. */
  from?: ConversationOrigin;
  /**
   * After an answer with nothing queued, wait this long for a follow-up before completing: a run
   * that stays open for the next message of a conversation.
   */
  idleWaitMs?: number;
  /** Sub-agents the run may delegate to, each offered to the model as a tool named after it. */
  agents?: SubAgents;
  /** Set in a child run: its parent and its depth. */
  parent?: ParentLink;
}

/** Which part of the log the model sees: an optional summary, then `fromSeq` onwards. */
export interface ConversationView {
  fromSeq: number;
  summaryHash?: string;
  summaryTokens: number;
}

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
  /** Why the run stopped, when its stop reason alone does not say: the tenant budget's refusal. */
  stopNote?: string;
  /** Model and tool totals and timings (see `trace`). */
  stats?: RunStats;
  /** Child runs and their usage (already counted in `usage` and `costUsd`). */
  children?: ChildRun[];
}

/** What the state query returns. */
/** The shape of {@link AgentStateView}; raised when a field changes meaning or goes away. */
export const STATE_VIEW_VERSION = 1;

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
