/**
 * Readers of one flag value, shared by the CLI's own flags and the kinds' (`KindFlag.parse`): each
 * returns the value or throws with a one-line reason, which the CLI shows as the flag's usage error.
 */
import { parseDecimal } from '../common/decimal';
import { modelNameProblem } from '../policy/model-ref';

/** A whole number of at least 1, in decimal notation: a count (turns, tokens, cycles, a limit of rows). */
export const positiveInteger = (value: string): number =>
  parseDecimal(value, { what: 'a whole number', min: 1, integer: true });

/** A model spec (`provider/model`), checked by the parser the client reads it with. */
export function modelSpec(value: string): string {
  const problem = modelNameProblem(value);
  if (problem) throw new Error(problem);
  return value;
}

/** One of `values`; `what` names the value in the reason (`"later" is not a mode (pev or plan)`). */
export const oneOf =
  <T extends string>(what: string, values: readonly T[]) =>
  (value: string): T => {
    if (!(values as readonly string[]).includes(value))
      throw new Error(`"${value}" is not a ${what} (${values.join(' or ')})`);
    return value as T;
  };

/**
 * A repeatable `key=value` flag, collected in order. `shape` shows the form in the reason
 * (`role=FILE (e.g. executor=executor.md)`); `check` reads the value part.
 */
export const keyValues =
  (shape: string, check: (value: string) => string = (v) => v) =>
  (value: string, previous: [string, string][] = []): [string, string][] => {
    const at = value.indexOf('=');
    const key = at > 0 ? value.slice(0, at).trim() : '';
    const rest = at > 0 ? value.slice(at + 1).trim() : '';
    if (!key || !rest) throw new Error(`"${value}" is not ${shape}`);
    return [...previous, [key, check(rest)]];
  };
