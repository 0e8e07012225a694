/**
 * Input, carried state, result and query of the Planner → Executor → Verifier workflow. The
 * agent's own signals, updates and `state` query (steer, follow-up, stop, approvals, switch model)
 * apply unchanged; `state` gains a `pev` field with the progress.
 */
import { defineQuery } from '@temporalio/workflow';
import type { AgentWorkflowInput, PlanDecisionInput } from './agent-workflows';
import type { ResolverState } from './model-resolution';
import type { ModelName, ModelRef } from './model-ref';
import type { AgentResult, AgentStateView } from './agent-run';
import type { PevBusinessContext, PreparedPevPrompts } from './pev-activities';

import type { PevEndReason, PevLimits, PevProgress, PevTodo, ToolLedger } from './pev-progress';

/**
 * - `pev`: planner rounds, executor per todo, verifier; improvements start another cycle.
 * - `plan`: Plan mode as a preset of the same workflow: one planning round, one cycle,
 *   the verifier's answer is the summary (limits given explicitly still win).
 */
export type PevMode = 'pev' | 'plan';

export interface PevOptions {
  mode?: PevMode;
  /** Model per role (`planner`, `executor`, `verifier`); a role without one uses the run's model. */
  models?: Record<string, ModelName>;
  limits?: Partial<PevLimits>;
  /** Worker-side directory with `<role>.md` business context and optional `core/<role>.md` overrides. */
  promptsDir?: string;
  /** Ask providers for schema-constrained JSON (`responseFormat` of type `json_schema`). Default true. */
  structuredOutput?: boolean;
  /**
   * Wait for the caller to approve each plan (`decidePlanUpdate`) before executing it
   * (the plan goes back to the user). A rejection's feedback goes to the planner.
   */
  confirmPlan?: boolean;
  /**
   * Business context of this run (Markdown), in every role's prompt where its template has the
   * `{{businessContext}}` placeholder: `shared` for every role, `roles` per role, after what the
   * prompts directory's `<role>.md` says.
   */
  businessContext?: PevBusinessContext;
  /**
   * Run the todos as child runs (ReAct executors), at most this many at a time: a todo starts once
   * the todos it `dependsOn` have ended. Absent: the executor works through the todos one after
   * another in this run.
   */
  parallel?: number;
  /**
   * End the run when a todo fails (stop reason `todo_failed`), instead of moving on to the next
   * todo. Default false. Child runs already executing (`parallel`) finish first.
   */
  stopOnFailedTodo?: boolean;
}

/** Options with every default applied. */
export interface ResolvedPevOptions {
  mode: PevMode;
  models: Record<string, ModelRef>;
  limits: PevLimits;
  promptsDir?: string;
  structuredOutput: boolean;
  confirmPlan: boolean;
  businessContext?: PevBusinessContext;
  parallel?: number;
  stopOnFailedTodo?: boolean;
}

/** What a PEV run keeps besides the agent state; plain JSON, carried across continue-as-new. */
export interface PevState {
  options: ResolvedPevOptions;
  /** The request the current cycles work on (the task, or the latest follow-up). */
  request: string;
  /** Each role's stored system prompt, by content hash (prepared once per run chain). */
  prompts?: PreparedPevPrompts;
  progress: PevProgress;
  ledger: ToolLedger;
  /** Failover position of each role that runs on its own model. */
  roleResolvers: Record<string, ResolverState>;
  endReason?: PevEndReason;
  /** The caller's decision on the plan shown in the `confirming` phase. */
  planDecision?: PlanDecisionInput;
}

export interface PevWorkflowInput extends AgentWorkflowInput {
  pev?: PevOptions;
  /** Set by continue-as-new. */
  pevCarry?: PevState;
}

/** The agent's result plus the todo list; `finalText` is the verifier's summary when it confirmed the work. */
export interface PevAgentResult extends Omit<AgentResult, 'stopReason'> {
  /**
   * The agent's stop reason, or the PEV reason (`max_cycles`, `unverified`, `plan_not_confirmed`,
   * `todo_failed`) when the rounds ended without a confirmed summary.
   */
  stopReason: AgentResult['stopReason'] | Exclude<PevEndReason, 'completed'>;
  todos: PevTodo[];
  pev: { mode: PevMode; cycles: number; verified: boolean; endReason?: PevEndReason; trace: PevProgress['trace'] };
}

export type PevStateView = AgentStateView & { pev: PevProgress };

/** Phase, cycle, round, current todo, todo statuses and the trace. */
export const pevProgressQuery = defineQuery<PevProgress>('pevProgress');
