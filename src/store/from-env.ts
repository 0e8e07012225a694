/** The one place that picks the content store from the environment: worker, CLI commands, codec server and tests. */
import { errorText } from '../common/error-text';
import path from 'node:path';
import { SetupError } from '../connection/setup-error';
import type { ContentStore } from './content-store';
import { DEFAULT_STORE_DIR, FileContentStore, STORE_DIR_ENV } from './file-store';
import { STORE_URL_ENV } from './postgres-schema';
import { PostgresContentStore } from './postgres-store';

/**
 * `DURABLE_AGENTS_STORE_URL=postgres://…` selects the PostgreSQL store (connected, schema created
 * or migrated); otherwise the file store in `DURABLE_AGENTS_STORE_DIR` (default `.durable-agents/store`,
 * relative to `cwd`). Throws one clear line when the database cannot be used.
 */
export async function storeFromEnv(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<ContentStore> {
  const url = env[STORE_URL_ENV]?.trim();
  if (url) return PostgresContentStore.open(url);
  return new FileContentStore(path.resolve(cwd, env[STORE_DIR_ENV] || DEFAULT_STORE_DIR));
}

/** {@link storeFromEnv}, refusing with a one-line {@link SetupError}. The caller closes the store. */
export async function openStore(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<ContentStore> {
  try {
    return await storeFromEnv(env, cwd);
  } catch (error) {
    throw new SetupError(errorText(error));
  }
}
