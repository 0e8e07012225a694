/**
 * The three phases over one shared conversation: the planner's rounds, the executor's rounds per
 * todo, the verifier's verdict. Each phase returns a loop outcome when the run ended inside it,
 * and otherwise moves `progress.phase` on. Phases start only from states a query can show and
 * continue-as-new can carry: a cycle's start, or between two todos.
 */
import {
  afterPlannerRound,
  afterVerifier,
  applyPlan,
  executorOutcome,
  nextOpenTodo,
  reportedTodos,
} from '../../policy/pev/decisions';
import { correctiveReask, parseRoleAnswer } from '../../policy/pev/parse-answer';
import {
  executorFallback,
  failedTodoFinalText,
  plannerFallback,
  unfinishedFinalText,
  unverifiedFinalText,
} from '../../policy/pev/fallbacks';
import { executorRole, plannerRole, verifierRole, type PevRoleDefinition } from '../../policy/pev/roles';
import { executorTask, plannerContinue, plannerTask, verifierTask } from '../../policy/pev/prompt-template';
import { type PevPhase, type PevTodo, type PlanningEndReason, type TodoEndReason } from '../../contracts/pev-progress';
import { type PlannerResponse } from '../../policy/pev/answer-schemas';
import {
  appendDrafts,
  emit,
  endIfStoppedOrLimited,
  publishSearchAttributes,
  shouldContinueAsNew,
  type LoopOutcome,
} from '../agent';
import { roleTurn, trace, type PevContext } from './role-turn';
import { plannedCall } from '../../policy/pev/planned-call';

export type Structured<T> =
  { type: 'valid'; value: T } | { type: 'invalid'; raw: string } | { type: 'end'; outcome: LoopOutcome };

export function setPhase(pctx: PevContext, phase: PevPhase): void {
  const { progress } = pctx.pev;
  const changed = progress.phase !== phase;
  progress.phase = phase;
  progress.round = 0;
  if (phase !== 'executing') progress.currentTodoId = undefined;
  mirrorPlan(pctx);
  publishSearchAttributes(pctx.agent, phase);
  // Executing is announced per todo, by executeTodo.
  if (changed && phase !== 'executing') emit(pctx.agent, { type: 'phase', phase, cycle: progress.cycle });
}

/** The todos as the agent's plan, so the `state` view shows them too. */
export function mirrorPlan(pctx: PevContext): void {
  const { todos } = pctx.pev.progress;
  pctx.agent.state.plan = todos.map((t) => ({
    id: t.id,
    title: `${t.description} (${t.status})`,
    done: t.status === 'completed',
  }));
}

/** Writes the prompt of `role`'s next turn. */
const say = (pctx: PevContext, role: PevRoleDefinition, text: string) =>
  appendDrafts(pctx.agent, [{ kind: 'user', text, agentRole: role.name }]);

/**
 * Asks a tool-less role (planner, verifier, or a role added beside them) for its JSON answer: after an
 * invalid answer, one corrective re-ask; after a second, `invalid` and the caller applies the
 * role's fallback. The prompt for the role is already in the conversation.
 */
export async function askRole<T>(pctx: PevContext, role: PevRoleDefinition<T>): Promise<Structured<T>> {
  for (let attempt = 1; ; attempt++) {
    const turn = await roleTurn(pctx, role as PevRoleDefinition);
    if (turn.type === 'end') return turn;
    const raw = turn.type === 'answer' ? turn.text : '';
    const parsed =
      turn.type === 'answer'
        ? parseRoleAnswer(role, turn.text)
        : {
            ok: false as const,
            problems: [
              `the ${role.name} called tools ` +
                `(${turn.type === 'tools_refused' ? turn.tools.join(', ') : ''}); it never calls tools`,
            ],
          };
    if (parsed.ok) return { type: 'valid', value: parsed.value };
    if (attempt === 2) {
      trace(pctx, { type: 'fallback', role: role.name, problems: parsed.problems });
      return { type: 'invalid', raw };
    }
    trace(pctx, { type: 'reask', role: role.name, problems: parsed.problems });
    await say(pctx, role as PevRoleDefinition, correctiveReask(role as PevRoleDefinition, parsed.problems));
  }
}

function endPlanning(pctx: PevContext, plan: PlannerResponse, rounds: number, reason: PlanningEndReason): void {
  const { progress } = pctx.pev;
  progress.todos = applyPlan(progress.todos, plan.todos, progress.cycle);
  trace(pctx, { type: 'planning_ended', rounds, reason, todoIds: progress.todos.map((t) => t.id) });
  setPhase(pctx, pctx.pev.options.confirmPlan ? 'confirming' : 'executing');
}

/** Planner rounds of one cycle: `needsMorePlanning` asks for another, up to the planning-round limit. */
export async function planningPhase(pctx: PevContext): Promise<LoopOutcome | undefined> {
  const { pev } = pctx;
  const { progress, options } = pev;
  setPhase(pctx, 'planning');
  let lastValid: PlannerResponse | undefined;
  for (let round = 1; ; round++) {
    const ended = await endIfStoppedOrLimited(pctx.agent);
    if (ended) return ended;
    progress.round = round;
    await say(
      pctx,
      plannerRole,
      round === 1
        ? plannerTask({
            request: pev.request,
            cycle: progress.cycle,
            maxPlanningRounds: options.limits.maxPlanningRounds,
            todos: progress.todos,
            improvements: progress.improvements,
          })
        : plannerContinue(round, options.limits.maxPlanningRounds),
    );
    const answer = await askRole(pctx, plannerRole);
    if (answer.type === 'end') return answer.outcome;
    if (answer.type === 'invalid') {
      endPlanning(
        pctx,
        plannerFallback({ request: pev.request, improvements: progress.improvements, lastValid }),
        round,
        'fallback',
      );
      return undefined;
    }
    lastValid = answer.value;
    const decision = afterPlannerRound(answer.value, round, options.limits);
    if (decision.next === 'execute') {
      endPlanning(pctx, answer.value, round, decision.reason);
      return undefined;
    }
  }
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
  todo.status = 'executing';
  progress.currentTodoId = todo.id;
  mirrorPlan(pctx);
  emit(pctx.agent, {
    type: 'phase',
    phase: 'executing',
    cycle: progress.cycle,
    todoId: todo.id,
    todo: todo.description,
  });
  let prompt: string | undefined = executorTask({
    request: pev.request,
    todo,
    round: todo.rounds + 1,
    maxExecutorRounds: max,
  });
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
    prompt = executorTask({ request: pev.request, todo, round: todo.rounds + 1, maxExecutorRounds: max });
  }
}

/** A todo of this cycle that failed, when the run stops on one (`stopOnFailedTodo`). */
export function failedTodo(pctx: PevContext): PevTodo | undefined {
  const { options, progress } = pctx.pev;
  if (!options.stopOnFailedTodo) return undefined;
  return progress.todos.find((t) => t.status === 'failed' && t.cycle === progress.cycle);
}

/** Ends the rounds on a failed todo: the run's stop reason is `todo_failed`, its final text says what failed. */
export function endOnFailedTodo(pctx: PevContext, failed: PevTodo): void {
  pctx.pev.endReason = 'todo_failed';
  pctx.agent.state.finalText = failedTodoFinalText(failed, pctx.pev.progress.todos);
  setPhase(pctx, 'done');
}

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

/** One verifier round: a confirmed summary ends the rounds, improvements start the next cycle. */
export async function verifyingPhase(pctx: PevContext): Promise<LoopOutcome | undefined> {
  const { pev } = pctx;
  const { progress, options } = pev;
  const { state } = pctx.agent;
  setPhase(pctx, 'verifying');
  const ended = await endIfStoppedOrLimited(pctx.agent);
  if (ended) return ended;
  progress.round = 1;
  await say(
    pctx,
    verifierRole,
    verifierTask({
      request: pev.request,
      todos: progress.todos,
      cycle: progress.cycle,
      maxCycles: options.limits.maxCycles,
    }),
  );
  const answer = await askRole(pctx, verifierRole);
  if (answer.type === 'end') return answer.outcome;
  if (answer.type === 'invalid') {
    pev.endReason = 'unverified';
    state.finalText = unverifiedFinalText(answer.raw, progress.todos);
    setPhase(pctx, 'done');
    return undefined;
  }
  const decision = afterVerifier(answer.value, progress.cycle, options.limits);
  trace(pctx, {
    type: 'verified',
    passed: decision.next === 'finish',
    improvements: decision.next === 'finish' ? [] : decision.improvements,
  });
  if (decision.next === 'finish') {
    pev.endReason = 'completed';
    state.finalText = decision.finalText;
    setPhase(pctx, 'done');
  } else if (decision.next === 'replan') {
    progress.improvements = decision.improvements;
    progress.cycle += 1;
    // What the tools said in the last cycle may be what the verifier found wrong: read it again.
    pev.ledger = {};
    setPhase(pctx, 'planning');
  } else {
    pev.endReason = 'max_cycles';
    state.finalText = unfinishedFinalText(decision.improvements, progress.todos);
    setPhase(pctx, 'done');
  }
  return undefined;
}
