/**
 * What the workflow makes of the answers of application hooks (docs/hooks.md): a model a
 * `resolveModel` or `onTurnEnd` hook chose, and whether `onTurnEnd` stops the run. Hooks are the
 * application's code, so their answers are checked here like any input from outside.
 */
import type { ModelRef } from '../contracts/model-ref';
import { modelNameProblem, modelRefOf } from './model-ref';
import { isPlainObject } from '../common/type-helpers';

/** A model chosen by a hook, with the reason its switch records; or why the answer names no model. */
export type HookModel = { model: ModelRef; reason: string } | { problem: string };

/** The reason a switch records: the hook's own, after the hook's name. */
const reasonOf = (hook: string, reason: unknown): string =>
  typeof reason === 'string' && reason.trim() ? `${hook}: ${reason.trim()}` : `${hook}: chosen by the application`;

/**
 * The model of a `{ model, reason }` answer; undefined when the answer names none (nothing, null,
 * or an object without `model`).
 */
export function hookModel(hook: string, answer: unknown): HookModel | undefined {
  if (!isPlainObject(answer) || answer.model === undefined || answer.model === null) return undefined;
  const problem = modelNameProblem(answer.model);
  if (problem) return { problem: `${hook} answered with a bad model: ${problem}` };
  return { model: modelRefOf(answer.model as string | ModelRef), reason: reasonOf(hook, answer.reason) };
}

/**
 * What an `onTurnEnd` answer asks for, to stop and a model for the next turns: `false` or
 * `{ stop: true }` stops the run; `{ model, reason }` switches it; anything else goes on.
 */
export function turnEndVerdict(answer: unknown): { stop: boolean; model?: HookModel } {
  if (answer === false) return { stop: true };
  if (!isPlainObject(answer)) return { stop: false };
  const model = hookModel('on-turn-end hook', answer);
  return { stop: answer.stop === true, ...(model ? { model } : {}) };
}
