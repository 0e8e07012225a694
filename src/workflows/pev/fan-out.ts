/**
 * The executing phase with `pev.parallel`: each todo runs as a child run (a ReAct executor), at
 * most `parallel` at a time, a todo once those it depends on have ended. A child's final answer is
 * the todo's result, which later todos and the verifier read. The run records where each todo ran
 * (a note in its conversation naming the child), and continues as new only when no child is open.
 */
import { condition } from '@temporalio/workflow';
import { readyTodos } from '../../policy/pev/decisions';
import { todoChildTask, todoExecutorPrompt } from '../../policy/pev/prompt-template';
import { limitReached } from '../../policy/limits';
import { previewText } from '../../policy/previews';
import { depthRefusal, todoChildId } from '../../policy/sub-agents';
import type { PevTodo } from '../../contracts/pev-progress';
import { appendDrafts, endIfStoppedOrLimited, shouldContinueAsNew, type LoopOutcome } from '../agent';
import { runChild } from '../features/sub-agents';
import { mirrorPlan, setPhase } from './phases';
import { endOnFailedTodo, endTodo, failedTodo, startTodo } from './executing';
import type { PevContext } from './role-turn';

/** The name the run gives its todo executors. */
const EXECUTOR = 'executor';

/** Whether the run executes its todos as child runs: `parallel` is set and a child may run at this depth. */
export const fansOut = (pctx: PevContext): boolean =>
  pctx.pev.options.parallel !== undefined && depthRefusal(pctx.agent.state.config, EXECUTOR) === undefined;

/** The executor child of one todo: its own model if the executor role has one, the run's tools. */
async function executeInChild(pctx: PevContext, todo: PevTodo, id: string, starting: number): Promise<void> {
  const { agent, pev } = pctx;
  const { config } = agent.state;
  const model = pev.options.models[EXECUTOR];
  const outcome = await runChild(agent, {
    id,
    agent: EXECUTOR,
    origin: { todoId: todo.id },
    task: todoChildTask({
      request: pev.request,
      todo,
      dependencies: pev.progress.todos.filter((t) => todo.dependsOn?.includes(t.id)),
    }),
    preview: previewText(todo.description),
    as: {
      spec: {
        description: 'Executes one todo of the plan.',
        instructions: todoExecutorPrompt(pev.options.businessContext),
      },
      ...(model ? { resolver: { ...config.model, primary: model } } : {}),
    },
    starting,
  });
  todo.result = outcome.text;
  todo.rounds = outcome.result?.turns ?? 0;
  endTodo(pctx, todo, outcome.isError ? 'failed' : 'completed', 'child_run');
}

/** Marks `todos` as executing and writes where each runs, one note per todo; returns their children's ids. */
async function announce(pctx: PevContext, todos: readonly PevTodo[]): Promise<string[]> {
  const { agent } = pctx;
  const ids = todos.map((todo) => todoChildId(agent.workflowId, todo.id, agent.state.turn));
  for (const todo of todos) startTodo(pctx, todo);
  mirrorPlan(pctx);
  await appendDrafts(
    agent,
    todos.map((todo, i) => ({
      kind: 'system_event',
      text: `Todo ${todo.id} runs as the child run ${ids[i]}.`,
      childRun: ids[i],
    })),
  );
  return ids;
}

/** Runs the open todos as children until every todo has ended; then the verifier's turn. */
export async function executingInChildren(pctx: PevContext): Promise<LoopOutcome | undefined> {
  const { agent, pev } = pctx;
  const { state } = agent;
  const parallel = pev.options.parallel ?? 1;
  const running = new Set<string>();
  let failure: { err: unknown } | undefined;
  for (;;) {
    if (running.size === 0) {
      // Between waves no child is open: the run may end or hand over here.
      const ended = await endIfStoppedOrLimited(agent);
      if (ended) return ended;
      if (shouldContinueAsNew(agent)) return 'continue_as_new';
    }
    const stopping =
      state.stopRequested !== undefined ||
      limitReached(state.config.limits, state) !== undefined ||
      failedTodo(pctx) !== undefined;
    const ready = stopping ? [] : readyTodos(pev.progress.todos, parallel - running.size);
    if (ready.length === 0 && running.size === 0) break;
    if (ready.length > 0) {
      const ids = await announce(pctx, ready);
      const notStarted = pev.progress.todos.filter((t) => t.status === 'pending').length;
      ready.forEach((todo, i) => {
        running.add(todo.id);
        // A child's share of the budget: what is free, split among the todos still to start.
        executeInChild(pctx, todo, ids[i], notStarted + ready.length - i)
          .catch((err: unknown) => void (failure ??= { err }))
          .finally(() => running.delete(todo.id));
      });
    }
    const before = running.size;
    await condition(() => running.size < before);
    if (failure) throw failure.err;
  }
  const failed = failedTodo(pctx);
  if (failed) endOnFailedTodo(pctx, failed);
  else setPhase(pctx, 'verifying');
  return undefined;
}
