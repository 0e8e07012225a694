/**
 * What each role's answer becomes when it is still invalid after the one corrective re-ask.
 * A bad answer never crashes the run:
 * - planner: the todos of its last valid round in this cycle; without one, a single todo that
 *   carries the request (and the verifier's improvements, in later cycles);
 * - executor: its text is taken as the todo's result and the todo counts as completed, so the
 *   verifier judges it (an empty answer fails the todo instead);
 * - verifier: the run ends `unverified`; `finalText` is the verifier's prose or its `summary` field
 *   when it wrote one, otherwise the todo results.
 */
import { extractJsonObject } from '../extract-json';
import type { PlannerResponse } from './answer-schemas';
import type { PevTodo } from '../../contracts/pev-progress';

export function plannerFallback(args: {
  request: string;
  improvements: readonly string[];
  lastValid?: PlannerResponse;
}): PlannerResponse {
  if (args.lastValid && args.lastValid.todos.length > 0) return { ...args.lastValid, needsMorePlanning: false };
  const description = args.improvements.length
    ? `${args.request}\n\nAddress these improvements:\n${args.improvements.map((i) => `- ${i}`).join('\n')}`
    : args.request;
  return {
    type: 'component',
    component: 'planner-response',
    summary: 'The plan could not be read; the request is executed as a single task.',
    needsMorePlanning: false,
    todos: [{ id: 'task-1', description, priority: 1, status: 'pending' }],
  };
}

export function executorFallback(rawText: string): { status: 'completed' | 'failed'; result: string } {
  const text = rawText.trim();
  return text
    ? { status: 'completed', result: text }
    : { status: 'failed', result: 'The executor gave no usable answer for this task.' };
}

/** The final text when the run cannot end on a verified summary. */
export function unverifiedFinalText(verifierText: string, todos: readonly PevTodo[]): string {
  const text = verifierText.trim();
  const extracted = extractJsonObject(text);
  if (extracted.ok) {
    const summary = extracted.value.summary;
    if (typeof summary === 'string' && summary.trim()) return summary.trim();
  } else if (text && !/^(\{|```)/.test(text)) {
    return text;
  }
  return todos
    .filter((t) => t.result)
    .map((t) => `${t.description}\n${t.result}`)
    .join('\n\n');
}

/** The final text when a failed todo ends the run (`stopOnFailedTodo`): what failed, then what was done. */
export function failedTodoFinalText(failed: PevTodo, todos: readonly PevTodo[]): string {
  const done = unverifiedFinalText(
    '',
    todos.filter((t) => t !== failed && t.status === 'completed'),
  );
  const why = failed.result ? `: ${failed.result}` : '.';
  return `Stopped: todo ${failed.id} (${failed.description}) failed${why}${done ? `\n\nDone before it:\n${done}` : ''}`;
}

/** The final text when the cycle limit ends the run with the verifier still asking for improvements. */
export function unfinishedFinalText(improvements: readonly string[], todos: readonly PevTodo[]): string {
  const results = unverifiedFinalText('', todos);
  const open = improvements.length ? `\n\nStill open:\n${improvements.map((i) => `- ${i}`).join('\n')}` : '';
  return `${results || 'No task produced a result.'}${open}`;
}
