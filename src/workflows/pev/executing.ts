/**
 * The executing phase: todos in priority order, each worked in executor rounds over the shared
 * conversation until the executor reports it done, it fails, or its rounds run out.
 */
import { executorOutcome, nextOpenTodo, reportedTodos } from '../../policy/pev/decisions';
import { correctiveReask, parseRoleAnswer } from '../../policy/pev/parse-answer';
import { executorFallback, failedTodoFinalText } from '../../policy/pev/fallbacks';
import { executorRole } from '../../policy/pev/roles';
import { executorTask } from '../../policy/pev/prompt-template';
import type { PevTodo, TodoEndReason } from '../../contracts/pev-progress';
import { emit, endIfStoppedOrLimited, shouldContinueAsNew, type LoopOutcome } from '../agent';
import { roleTurn, trace, type PevContext } from './role-turn';
import { plannedCall } from '../../policy/pev/planned-call';
import { endRounds, mirrorPlan, say, setPhase } from './phases';

/** Marks `todo` as executing and announces it: the executing phase is announced per todo. */
export function startTodo(pctx: PevContext, todo: PevTodo): void {
  todo.status = 'executing';
  emit(pctx.agent, {
    type: 'phase',
    phase: 'executing',
    cycle: pctx.pev.progress.cycle,
    todoId: todo.id,
    todo: todo.description,
  });
}

export function endTodo(pctx: PevContext, todo: PevTodo, status: PevTodo['status'], reason: TodoEndReason): void {
  todo.status = status;
  todo.endReason = reason;
  trace(pctx, { type: 'todo_ended', todoId: todo.id, rounds: todo.rounds, status, reason });
  mirrorPlan(pctx);
}

/**
 * Executor rounds on one todo. A round is one model turn: tool calls lead to the next round with
 * their results; a JSON answer is judged by the executor's flow control (`executorOutcome`); the round limit is the
 * backstop.
 */
async function executeTodo(pctx: PevContext, todo: PevTodo): Promise<LoopOutcome | undefined> {
  const { pev } = pctx;
  const { progress, options } = pev;
  const max = options.limits.maxExecutorRounds;
  progress.currentTodoId = todo.id;
  startTodo(pctx, todo);
  mirrorPlan(pctx);
  const nextTask = (): string =>
    executorTask({ request: pev.request, todo, round: todo.rounds + 1, maxExecutorRounds: max });
  let prompt: string | undefined = nextTask();
  let reasked = false;
  for (;;) {
    if (todo.rounds >= max) {
      endTodo(pctx, todo, 'failed', 'max_executor_rounds');
      return undefined;
    }
    const ended = await endIfStoppedOrLimited(pctx.agent);
    if (ended) return ended;
    todo.rounds += 1;
    progress.round = todo.rounds;
    if (prompt) await say(pctx, executorRole, prompt);
    prompt = undefined;
    const turn = await roleTurn(pctx, executorRole, () => {
      const { state } = pctx.agent;
      const call = plannedCall(todo, todo.rounds, state.tools, state.nextSeq);
      if (call) trace(pctx, { type: 'planned_call', todoId: todo.id, toolName: call.name, toolCallId: call.id });
      return call ? [call] : undefined;
    });
    if (turn.type === 'end') return turn.outcome;
    if (turn.type !== 'answer') continue;
    const parsed = parseRoleAnswer(executorRole, turn.text);
    if (!parsed.ok) {
      if (!reasked) {
        reasked = true;
        trace(pctx, { type: 'reask', role: executorRole.name, problems: parsed.problems });
        prompt = correctiveReask(executorRole, parsed.problems);
        continue;
      }
      trace(pctx, { type: 'fallback', role: executorRole.name, problems: parsed.problems });
      const fallback = executorFallback(turn.text);
      todo.result = fallback.result;
      endTodo(pctx, todo, fallback.status, 'fallback');
      return undefined;
    }
    reasked = false;
    todo.result = parsed.value.summary;
    for (const { id, status } of reportedTodos(parsed.value, progress.todos, todo.id)) {
      const other = progress.todos.find((t) => t.id === id) as PevTodo;
      other.result = `Reported ${status} while working on todo ${todo.id}: ${parsed.value.summary}`;
      endTodo(pctx, other, status, 'reported');
    }
    const outcome = executorOutcome(parsed.value, todo.id);
    if (outcome.done) {
      endTodo(pctx, todo, outcome.status, outcome.reason);
      return undefined;
    }
    prompt = nextTask();
  }
}

/** A todo of this cycle that failed, when the run stops on one (`stopOnFailedTodo`). */
export function failedTodo(pctx: PevContext): PevTodo | undefined {
  const { options, progress } = pctx.pev;
  if (!options.stopOnFailedTodo) return undefined;
  return progress.todos.find((t) => t.status === 'failed' && t.cycle === progress.cycle);
}

/** Ends the rounds on a failed todo: the run's stop reason is `todo_failed`, its final text says what failed. */
export const endOnFailedTodo = (pctx: PevContext, failed: PevTodo): void =>
  endRounds(pctx, 'todo_failed', failedTodoFinalText(failed, pctx.pev.progress.todos));

/** Todos in priority order; continue-as-new may happen between two todos. */
export async function executingPhase(pctx: PevContext): Promise<LoopOutcome | undefined> {
  for (;;) {
    const todo = nextOpenTodo(pctx.pev.progress.todos);
    if (!todo) break;
    if (todo.rounds === 0 && shouldContinueAsNew(pctx.agent)) return 'continue_as_new';
    const outcome = await executeTodo(pctx, todo);
    if (outcome) return outcome;
    const failed = failedTodo(pctx);
    if (failed) {
      endOnFailedTodo(pctx, failed);
      return undefined;
    }
  }
  setPhase(pctx, 'verifying');
  return undefined;
}
