/**
 * Progress of a Planner → Executor → Verifier run as plain JSON: what a query returns, what
 * continue-as-new carries, and what the pev decisions read and write.
 */
/** Status of one todo. `failed` and `skipped` are set by the workflow (round limit, `nextAction: "skip"`). */
export const TODO_STATUSES = ['pending', 'executing', 'completed', 'failed', 'skipped'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

/** `confirming`: the plan waits for the caller's decision (`confirmPlan`). */
export type PevPhase = 'planning' | 'confirming' | 'executing' | 'verifying' | 'done';

/** Why one todo's executor loop ended. */
export type TodoEndReason =
  | 'task_completed' // the executor's `taskCompleted` said so
  | 'next_action' // `nextAction` was `complete` or `skip`
  | 'todo_status' // the todo's status in the executor's todo list said so
  | 'gave_up' // `taskCompleted: false` with `shouldContinue: false`
  | 'max_executor_rounds' // the round limit, the backstop
  | 'fallback' // no valid answer even after the corrective re-ask
  | 'child_run' // it ran as a child run (`parallel`): completed when that run completed
  | 'reported'; // the executor reported it completed or skipped while working on another todo

/** Why the planning phase of a cycle ended. */
export type PlanningEndReason = 'planned' | 'max_planning_rounds' | 'fallback';

/** Why the whole run ended (the agent loop adds its own: stopped, budget, ...). */
export type PevEndReason =
  | 'completed' // the verifier confirmed: `finalText` is its summary
  | 'max_cycles' // the verifier still asked for improvements after the last allowed cycle
  | 'todo_failed' // a todo failed and the run stops on a failed todo (`stopOnFailedTodo`)
  | 'unverified' // the verifier never gave a valid answer: `finalText` is what it wrote, or the todo results
  | 'plan_not_confirmed'; // `confirmPlan` and no decision came within the approval timeout

export interface PevTodo {
  id: string;
  description: string;
  /** 1 is the highest priority. */
  priority: number;
  /** Ids of the todos whose results it needs: it starts once they have ended. */
  dependsOn?: string[];
  /**
   * The tool call that does the todo, as the planner named it: the executor makes it without a
   * model turn (when the run has the tool), then reads its result.
   */
  call?: { tool: string; parameters: Record<string, unknown> };
  status: TodoStatus;
  /** The executor's summary of the last round on this todo. */
  result?: string;
  /** Executor rounds spent on this todo so far. */
  rounds: number;
  /** Cycle that planned it. */
  cycle: number;
  endReason?: TodoEndReason;
}

export interface PevLimits {
  /** Planner rounds per cycle (default 3). */
  maxPlanningRounds: number;
  /** Executor rounds per todo (default 10). */
  maxExecutorRounds: number;
  /** Planner → executor → verifier cycles per run. */
  maxCycles: number;
}

/** What happened, in order; front-ends and tests read it from the progress query and the result. */
export type PevTraceEntry =
  | { type: 'planning_ended'; cycle: number; rounds: number; reason: PlanningEndReason; todoIds: string[] }
  | { type: 'todo_ended'; cycle: number; todoId: string; rounds: number; status: TodoStatus; reason: TodoEndReason }
  | { type: 'verified'; cycle: number; passed: boolean; improvements: string[] }
  | { type: 'plan_decided'; cycle: number; approved: boolean; by: 'user' | 'timeout'; feedback?: string }
  | { type: 'reask'; cycle: number; role: string; problems: string[] }
  /** The executor made the call the plan named for a todo, without a model turn. */
  | { type: 'planned_call'; cycle: number; todoId: string; toolName: string; toolCallId: string }
  | { type: 'fallback'; cycle: number; role: string; problems: string[] }
  | { type: 'tool_reused'; cycle: number; todoId?: string; toolName: string; toolCallId: string; reusedFrom: string };

export interface PevProgress {
  phase: PevPhase;
  /** 1-based planner → executor → verifier cycle. */
  cycle: number;
  /** Round within the current phase (planner round, or executor round of the current todo). */
  round: number;
  currentTodoId?: string;
  todos: PevTodo[];
  /** The verifier's improvements that the current cycle's planner works from. */
  improvements: string[];
  trace: PevTraceEntry[];
}

export interface LedgerEntry {
  toolName: string;
  /** The call that actually ran. */
  toolCallId: string;
  /** Content-store hash of the result body the model saw; a reuse copies it under the new call id. */
  resultHash: string;
}

/** Successful tool results by {@link toolCallKey}. Error results are never recorded, so a failed call may run again. */
export type ToolLedger = Record<string, LedgerEntry>;
