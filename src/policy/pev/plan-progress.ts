/**
 * A pev run's plan as people read it: each todo with its status and description, in `state` and in
 * the run's current details, where the Web UI shows how far the plan has come.
 */
import type { PevProgress, PevTodo } from '../../contracts/pev-progress';
import { markdownText } from '../markdown';
import { previewText } from '../previews';

/** Todos the current details list one by one; more are counted. */
const TODOS_LISTED = 20;
/** Characters of a todo's description in the current details. */
const TODO_CHARS = 200;

/** One todo: `[executing] task-1: Read README.md (calls fs_read)`. */
export const todoLine = (t: PevTodo): string =>
  `[${t.status}] ${t.id}: ${t.description}${t.call ? ` (calls ${t.call.tool})` : ''}`;

/** The plan's progress as Markdown: how many todos have ended, then each todo; nothing before there is a plan. */
export function planProgressDetails(progress: PevProgress): string | undefined {
  const { todos, cycle } = progress;
  if (todos.length === 0) return undefined;
  const ended = todos.filter((t) => t.status !== 'pending' && t.status !== 'executing').length;
  const now = (t: PevTodo) => (t.id === progress.currentTodoId ? ' ← now' : '');
  const listed = todos
    .slice(0, TODOS_LISTED)
    .map((t) => `- ${markdownText(previewText(todoLine(t), TODO_CHARS))}${now(t)}`);
  const more = todos.length - listed.length;
  return [
    `**Plan** · ${ended} of ${todos.length} todos done${cycle > 1 ? ` · cycle ${cycle}` : ''}`,
    '',
    ...listed,
    ...(more > 0 ? [`- and ${more} more`] : []),
  ].join('\n');
}
