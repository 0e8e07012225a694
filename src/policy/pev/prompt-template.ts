/**
 * Two prompt layers: a core template per role (role, duties, output contract) with a
 * `{{businessContext}}` placeholder, and a business context per role written in Markdown. The
 * texts are loaded by an activity (`src/activities/pev`); assembly here is pure.
 */
import type { PevTodo } from '../../contracts/pev-progress';

export const BUSINESS_CONTEXT_PLACEHOLDER = '{{businessContext}}';

/** Prompt texts of a run, per role name. Loaded once per run and kept in workflow state. */
export interface PevPrompts {
  /** Core template per role; each contains {@link BUSINESS_CONTEXT_PLACEHOLDER}. */
  templates: Record<string, string>;
  /** Business context (Markdown) per role; a role without one gets {@link NO_BUSINESS_CONTEXT}. */
  businessContext: Record<string, string>;
}

export const NO_BUSINESS_CONTEXT = '(No business context is configured for this application.)';

/** Replaces `{{name}}` placeholders; unknown placeholders are left as written. */
export function renderTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? (vars[name] as string) : whole,
  );
}

/** The system prompt of a role: its core template with its business context filled in. */
export function systemPromptOf(prompts: PevPrompts, role: string): string {
  const template = prompts.templates[role];
  if (template === undefined) {
    throw new TypeError(
      `No core template for role "${role}"; templates exist for: ${Object.keys(prompts.templates).join(', ')}.`,
    );
  }
  return renderTemplate(template, { businessContext: prompts.businessContext[role]?.trim() || NO_BUSINESS_CONTEXT });
}

const STATUS_MARK: Record<string, string> = {
  pending: '[ ]',
  executing: '[>]',
  completed: '[x]',
  failed: '[!]',
  skipped: '[-]',
};

/** The current plan recited at the end of the context  (plan recitation), so it is never lost mid-conversation. */
export function todoRecitation(todos: readonly PevTodo[], currentId?: string): string {
  if (todos.length === 0) return '## Current plan\n(no tasks)';
  const lines = todos.map(
    (t) =>
      `${STATUS_MARK[t.status] ?? '[ ]'} ${t.id} (priority ${t.priority}, ` +
      `${t.status}${t.dependsOn?.length ? `, after ${t.dependsOn.join(', ')}` : ''})` +
      `${t.id === currentId ? ' <- current' : ''}: ${t.description}`,
  );
  return ['## Current plan', ...lines].join('\n');
}

function results(todos: readonly PevTodo[]): string {
  const done = todos.filter((t) => t.result !== undefined);
  if (done.length === 0) return '';
  return ['## Task results so far', ...done.map((t) => `### ${t.id} (${t.status})\n${t.result}`)].join('\n\n');
}

/** The planner's user message opening a cycle. */
export function plannerTask(args: {
  request: string;
  cycle: number;
  maxPlanningRounds: number;
  todos: readonly PevTodo[];
  improvements: readonly string[];
}): string {
  const parts = [`## User request\n${args.request}`];
  if (args.improvements.length) {
    parts.push(results(args.todos), todoRecitation(args.todos));
    parts.push(
      `## Improvements from the verifier (cycle ` +
        `${args.cycle - 1})\n${args.improvements.map((i) => `- ${i}`).join('\n')}\n\n` +
        'Plan the next cycle so that these improvements are addressed. Keep ids of tasks that are already ' +
        'completed and keep their status "completed"; give new tasks new ids.',
    );
  }
  parts.push(`Planning round 1 of at most ${args.maxPlanningRounds}. Answer with the planner-response JSON object.`);
  return parts.filter(Boolean).join('\n\n');
}

/** The planner's user message asking for another round after `needsMorePlanning: true`. */
export function plannerContinue(round: number, maxPlanningRounds: number): string {
  return (
    `Planning round ${round} of at most ${maxPlanningRounds}. Refine the plan; set needsMorePlanning to ` +
    `false once it is complete. Answer with the planner-response JSON object.`
  );
}

/** The executor's user message for one round of one todo (the plan itself is recited at every turn). */
export function executorTask(args: {
  request: string;
  todo: PevTodo;
  round: number;
  maxExecutorRounds: number;
}): string {
  const head =
    args.round === 1
      ? `## User request\n${args.request}\n\n## Current task: ${args.todo.id}\n${args.todo.description}`
      : `## Continue the current task: ${args.todo.id}\n${args.todo.description}`;
  return [
    head,
    `Executor round ${args.round} of at most ${args.maxExecutorRounds} for this task. Check the conversation ` +
      `for results you already have before calling a tool. Finish with the executor-response JSON object.`,
  ].join('\n\n');
}

/** The verifier's user message. */
export function verifierTask(args: {
  request: string;
  todos: readonly PevTodo[];
  cycle: number;
  maxCycles: number;
}): string {
  return [
    `## User request\n${args.request}`,
    todoRecitation(args.todos),
    results(args.todos) || '## Task results so far\n(none)',
    `Verification of cycle ${args.cycle} of at most ${args.maxCycles}. Answer with the verifier-response JSON object.`,
  ].join('\n\n');
}

/**
 * The system prompt of a child run that executes one todo (`pev.parallel`): a ReAct run whose
 * final answer is the todo's result. `businessContext`: the run's own, shared and the executor's.
 */
export function todoExecutorPrompt(businessContext?: { shared?: string; roles?: Record<string, string> }): string {
  const context = [businessContext?.shared, businessContext?.roles?.executor].filter((t) => t?.trim()).join('\n\n');
  return [
    'You carry out one task of a larger plan that a planner made from a user request. Other tasks run ' +
      'beside yours; a verifier reads every result afterwards.',
    `## Business context\n\n${context || NO_BUSINESS_CONTEXT}`,
    '## How you work\n\n' +
      '- Do the task with the tools you have; stay on it.\n' +
      '- Use the results of earlier tasks given with it before calling a tool.\n' +
      '- Never repeat an identical tool call that already succeeded.\n' +
      '- Finish with your result as plain text: the concrete data, findings or changes, not just "done". ' +
      'If the task cannot be done, say so and why.',
  ].join('\n\n');
}

/** The task of a child run that executes one todo: the request, the todo, and the results of those it depends on. */
export function todoChildTask(args: { request: string; todo: PevTodo; dependencies: readonly PevTodo[] }): string {
  const { todo } = args;
  const earlier = args.dependencies.map((t) => `### ${t.id} (${t.status})\n${t.result ?? '(no result)'}`);
  return [
    `## User request\n${args.request}`,
    `## Your task: ${todo.id}\n${todo.description}`,
    ...(earlier.length ? [['## Results of the tasks it builds on', ...earlier].join('\n\n')] : []),
  ].join('\n\n');
}
