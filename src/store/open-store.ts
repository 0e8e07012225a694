/** Opening the content store a worker's config names: worker, CLI commands, codec server and tests. */
import path from 'node:path';
import { errorText } from '../common/error-text';
import { SetupError } from '../connection/setup-error';
import type { ContentStore } from './content-store';
import { FileContentStore } from './file-store';
import { PostgresContentStore } from './postgres-store';

/**
 * Where conversations are kept: a PostgreSQL database (`url`, `postgres://…`), else the file store
 * in `dir`. The worker's config reads it from `DURABLE_AGENTS_STORE_URL` and `DURABLE_AGENTS_STORE_DIR`.
 */
export interface StoreConfig {
  url?: string;
  /** The file store's directory (absolute, or relative to the process's working directory). */
  dir: string;
}

/**
 * Opens the store `config` names: the PostgreSQL store connected, its schema created or migrated;
 * else the file store. Refuses with a one-line {@link SetupError} when the database cannot be used.
 * The caller closes the store.
 */
export async function openStore(config: StoreConfig): Promise<ContentStore> {
  try {
    return config.url ? await PostgresContentStore.open(config.url) : new FileContentStore(path.resolve(config.dir));
  } catch (error) {
    throw new SetupError(errorText(error));
  }
}
