/**
 * The content store as the worker's activities see it: every body is written with the worker's
 * secrets replaced, so a tool output or an answer that echoes a key is never stored with it.
 */
import type { SecretSet } from '../common/secrets';
import type { ContentStore } from '../store';

/** `store` with `put` redacting its body first; every other operation is the store's own. */
export function redactingStore<S extends ContentStore>(store: S, secrets: SecretSet): S {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'put')
        return (body: unknown, ...rest: unknown[]) =>
          (target.put as (...args: unknown[]) => Promise<string>).call(target, secrets.redactValue(body), ...rest);
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
