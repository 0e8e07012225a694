/**
 * The built-in "ask the user" action (docs/plans.md, Asking the user): a client tool a run is
 * offered when it opts in (`askUser`). The model calls it with a question; the run waits, as for
 * any client tool, until someone answers (`answer`, or `tool-result` with the call's id).
 */
import type { RunClientTool } from '../contracts/tool-catalog';

export const ASK_USER = 'ask_user';

export const ASK_USER_TOOL: RunClientTool = {
  name: ASK_USER,
  description:
    'Ask the user a question and wait for the answer. Use it for a decision, a confirmation or information ' +
    'only the user has; not for what you can find out with your other tools.',
  parameters: {
    type: 'object',
    properties: {
      question: { type: 'string', description: 'the question, as the user should read it' },
      options: { type: 'array', items: { type: 'string' }, description: 'answers to choose from, if any' },
    },
    required: ['question'],
    additionalProperties: false,
  },
};

/** The question of an `ask_user` call's arguments, as people read it (its options after it). */
export function questionOf(args: Record<string, unknown>): string {
  const question = typeof args.question === 'string' ? args.question : JSON.stringify(args);
  const options = Array.isArray(args.options) ? args.options.filter((o) => typeof o === 'string') : [];
  return options.length > 0 ? `${question} (${options.join(' / ')})` : question;
}

/** A run's client tools with `ask_user` among them, once. */
export const withAskUser = (tools: readonly RunClientTool[] | undefined): RunClientTool[] =>
  tools?.some((t) => t.name === ASK_USER) ? [...tools] : [...(tools ?? []), ASK_USER_TOOL];
