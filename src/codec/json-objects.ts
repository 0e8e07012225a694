/** Walking and rewriting, in place, the JSON value of a payload the codec decodes. */
import { isPlainObject } from '../common/type-helpers';

/**
 * Every object in `root`, in document order (walked without recursion, so any depth is safe). An
 * object's children are read once the caller is done with it, so what it adds is walked too.
 */
export function* objectsIn(root: unknown): Generator<Record<string, unknown>> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (isPlainObject(value)) yield value;
    const children = Array.isArray(value) ? value : isPlainObject(value) ? Object.values(value) : [];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** Rewrites `target` in place with the `first` entries before its own (whose keys it does not have). */
export function placeFirst(target: Record<string, unknown>, first: readonly [string, unknown][]): void {
  const before = Object.entries(target);
  for (const [key] of before) delete target[key];
  for (const [key, value] of [...first, ...before]) target[key] = value;
}
