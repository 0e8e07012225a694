/**
 * Sub-agents: agents a run may delegate to, each offered to the run's model as a tool named after
 * it and run as a child workflow (docs/subagents.md). Plain JSON, carried in the run's config.
 */
import type { CallSettings, Usage } from './message-model';
import type { KindFacts } from './kind-facts';
import type { AgentStatus, AgentStopReason } from './run-status';

/** One sub-agent as a config file, `run --agents FILE` or `AgentClient.start({ agents })` declares it. */
export interface SubAgentSpec {
  /** What the parent's model reads about the tool. */
  description: string;
  /** The sub-agent's system prompt; absent = the default prompt. */
  instructions?: string;
  /** `provider/model`; absent = the parent's model (and its fallbacks). */
  model?: string;
  /** Tool names or `prefix*` patterns, each within what the parent may use; absent = the parent's tools. */
  tools?: string[];
  /** Absent = the parent's `maxTurns`. */
  maxTurns?: number;
  /** `react` (default), `pev`, or a kind the application registers. */
  kind?: string;
  /** What `kind` is, filled in when the run's spec is layered (any kind the client knows, an application's too). */
  facts?: KindFacts;
  /** Call settings of the sub-agent's model calls over the parent's, which it inherits. */
  call?: CallSettings;
}

/** Sub-agents by name; the name is the tool's name. */
export type SubAgents = Record<string, SubAgentSpec>;

/** Default of `AgentLimits.maxParallelAgents`: sub-agent calls of one answer running at a time. */
export const DEFAULT_MAX_PARALLEL_AGENTS = 4;
/** Default of `AgentLimits.maxAgentDepth`: a top-level run is depth 0, its children depth 1. */
export const DEFAULT_MAX_AGENT_DEPTH = 2;

/** What a child run knows of its parent (in the child's config). */
export interface ParentLink {
  workflowId: string;
  /** The child's depth: 1 for a child of a top-level run. */
  depth: number;
  /** The name the parent calls it by. */
  agent: string;
  /** The child's token or cost limits are what the parent had left: reaching one is stop reason `budget`. */
  budgetFromParent?: boolean;
}

/**
 * The token and cost limits a child starts with: its share of what its parent has left, reserved
 * for it while it runs (docs/subagents.md, Budget).
 */
export interface ChildBudget {
  maxTotalTokens?: number;
  maxCostUsd?: number;
}

/** One child run as its parent records it (state, result). */
export interface ChildRun {
  /** The child's workflow id (and its conversation id). */
  id: string;
  agent: string;
  /** The sub-agent call that started it; absent for a pev todo run as a child. */
  toolCallId?: string;
  /** The pev todo it executes (`pev.parallel`). */
  todoId?: string;
  turn: number;
  status: AgentStatus;
  stopReason?: AgentStopReason;
  usage: Usage;
  costUsd: number;
  startedAt: number;
  endedAt?: number;
}

/** A call waiting for a person in a run's family: the run's own, or one of a child (at any depth). */
export interface WaitingCall {
  /** The run that waits: send the decision there, or to any of its ancestors. */
  runId: string;
  toolCallId: string;
  tool: string;
  args: Record<string, unknown>;
}

/** A child's report of what waits in it and in its own children (the `childWaits` signal). */
export interface ChildWaitsInput {
  /** The child that reports. */
  childId: string;
  /** Counts the child's reports: one older than the last taken is dropped. */
  seq: number;
  /** Pending approvals, each with the hash a decision quotes. */
  approvals: (WaitingCall & { argsHash: string })[];
  /** Client tool calls waiting for their result. */
  clientTools: WaitingCall[];
}
