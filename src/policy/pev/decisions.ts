/**
 * Round, todo and cycle decisions. The model's JSON drives progress; the limits are the backstop.
 */
import { isVerified, type ExecutorResponse, type PlannerResponse, type VerifierResponse } from './answer-schemas';
import type { TodoStatus, PevLimits, PevTodo, PlanningEndReason, TodoEndReason } from '../../contracts/pev-progress';

export type PlannerDecision = { next: 'plan_again' } | { next: 'execute'; reason: PlanningEndReason };

/** After a valid planner answer in `round` (1-based): another planning round, or on to execution. */
export function afterPlannerRound(answer: PlannerResponse, round: number, limits: PevLimits): PlannerDecision {
  if (!answer.needsMorePlanning) return { next: 'execute', reason: 'planned' };
  return round < limits.maxPlanningRounds ? { next: 'plan_again' } : { next: 'execute', reason: 'max_planning_rounds' };
}

export type TodoOutcome =
  | { done: false }
  | { done: true; status: Extract<TodoStatus, 'completed' | 'skipped' | 'failed'>; reason: TodoEndReason };

/**
 * The executor's flow control, in its order: `taskCompleted`, then `nextAction`, then the current
 * todo's status in the executor's own todo list. `taskCompleted: false` keeps the todo going
 * unless `nextAction` is `skip` or `shouldContinue` is `false` (the executor gave up).
 */
export function executorOutcome(answer: ExecutorResponse, todoId: string): TodoOutcome {
  if (answer.taskCompleted === true) return { done: true, status: 'completed', reason: 'task_completed' };
  if (answer.nextAction === 'skip') return { done: true, status: 'skipped', reason: 'next_action' };
  if (answer.taskCompleted === false)
    return answer.shouldContinue === false ? { done: true, status: 'failed', reason: 'gave_up' } : { done: false };
  if (answer.nextAction === 'complete') return { done: true, status: 'completed', reason: 'next_action' };
  if (answer.nextAction) return { done: false };
  const own = answer.todos.find((t) => t.id === todoId);
  if (own && (own.status === 'completed' || own.status === 'skipped' || own.status === 'failed')) {
    return { done: true, status: own.status, reason: 'todo_status' };
  }
  return { done: false };
}

/**
 * Other todos the executor's answer on `currentId` reports as ended: pending ones it lists as
 * completed or skipped (finished, or made needless, on the way), so they are not run again. A todo
 * it lists as failed is not ended by that: nobody has tried it yet.
 */
export function reportedTodos(
  answer: ExecutorResponse,
  todos: readonly PevTodo[],
  currentId: string,
): { id: string; status: Extract<TodoStatus, 'completed' | 'skipped'> }[] {
  return answer.todos.flatMap((reported) => {
    if (reported.id === currentId) return [];
    if (reported.status !== 'completed' && reported.status !== 'skipped') return [];
    const own = todos.find((t) => t.id === reported.id);
    return own?.status === 'pending' ? [{ id: own.id, status: reported.status }] : [];
  });
}

/** Todos in execution order: priority 1 first, the planner's order among equals. */
export function inPriorityOrder<T extends { priority: number }>(todos: readonly T[]): T[] {
  return todos
    .map((t, i) => ({ t, i }))
    .sort((a, b) => a.t.priority - b.t.priority || a.i - b.i)
    .map(({ t }) => t);
}

const isOpen = (t: PevTodo): boolean => t.status === 'pending' || t.status === 'executing';

/**
 * Up to `max` todos that may start now, in priority order: pending, with every todo they depend
 * on ended (an unknown id is no dependency). When none may start and none is executing, the first
 * open todo does, so a circle of dependencies cannot stall the run.
 */
export function readyTodos(todos: readonly PevTodo[], max: number): PevTodo[] {
  const ended = new Set(todos.filter((t) => !isOpen(t)).map((t) => t.id));
  const known = new Set(todos.map((t) => t.id));
  const ordered = inPriorityOrder(todos);
  const ready = ordered.filter(
    (t) => t.status === 'pending' && (t.dependsOn ?? []).every((id) => ended.has(id) || !known.has(id)),
  );
  if (ready.length === 0 && !todos.some((t) => t.status === 'executing')) ready.push(...ordered.filter(isOpen));
  return ready.slice(0, Math.max(0, max));
}

/** The next todo to execute (one already executing first), or undefined when every todo has ended. */
export function nextOpenTodo(todos: readonly PevTodo[]): PevTodo | undefined {
  return todos.find((t) => t.status === 'executing') ?? readyTodos(todos, 1)[0];
}

/**
 * The todo list after a planner answer. The planner's list replaces the previous one; a todo it
 * keeps under the same id (and does not reopen as `pending`) keeps its earlier result.
 */
export function applyPlan(previous: readonly PevTodo[], planned: PlannerResponse['todos'], cycle: number): PevTodo[] {
  const seen = new Set<string>();
  const out: PevTodo[] = [];
  for (const t of planned) {
    if (seen.has(t.id)) continue;
    seen.add(t.id);
    const before = previous.find((p) => p.id === t.id);
    const keepsEnded = before && t.status !== 'pending' && t.status !== 'executing';
    const dependsOn = (t.dependsOn ?? []).filter((id) => id !== t.id && planned.some((p) => p.id === id));
    out.push({
      id: t.id,
      description: t.description,
      priority: t.priority,
      ...(dependsOn.length ? { dependsOn: [...new Set(dependsOn)] } : {}),
      ...(t.tool ? { call: { tool: t.tool, parameters: t.parameters ?? {} } } : {}),
      status: t.status === 'executing' ? 'pending' : t.status,
      rounds: keepsEnded ? before.rounds : 0,
      cycle: keepsEnded ? before.cycle : cycle,
      ...(keepsEnded && before.result !== undefined ? { result: before.result } : {}),
      ...(keepsEnded && before.endReason ? { endReason: before.endReason } : {}),
    });
  }
  return out;
}

export type VerifierDecision =
  | { next: 'finish'; finalText: string }
  | { next: 'replan'; improvements: string[] }
  | { next: 'max_cycles'; improvements: string[] };

/** After the verifier of `cycle` (1-based): finish with its summary, or another cycle, or the cycle limit. */
export function afterVerifier(answer: VerifierResponse, cycle: number, limits: PevLimits): VerifierDecision {
  if (isVerified(answer)) return { next: 'finish', finalText: answer.summary ?? '' };
  const improvements = (answer.improvements ?? []).filter((i) => i.trim());
  return cycle < limits.maxCycles ? { next: 'replan', improvements } : { next: 'max_cycles', improvements };
}
