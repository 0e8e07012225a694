/** The content store the codec server reads: the one the worker writes, chosen from the same environment. */
import path from 'node:path';
import { SetupError } from '../connection/setup-error';
import { DEFAULT_STORE_DIR, FileContentStore, STORE_DIR_ENV, type ContentStore } from '../store';

/** Environment variable naming a database content store (instead of the file store). */
export const STORE_URL_ENV = 'DURABLE_AGENTS_STORE_URL';

/**
 * The file store of `DURABLE_AGENTS_STORE_DIR` (default `.durable-agents/store`, relative to `cwd`);
 * refuses a store URL it cannot open.
 */
export function openContentStore(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ContentStore {
  const url = env[STORE_URL_ENV];
  if (url) {
    throw new SetupError(
      `${STORE_URL_ENV} is set, but this build has no content store for it: ` +
        `unset it to read the file store (${STORE_DIR_ENV}).`,
    );
  }
  return new FileContentStore(path.resolve(cwd, env[STORE_DIR_ENV] || DEFAULT_STORE_DIR));
}
